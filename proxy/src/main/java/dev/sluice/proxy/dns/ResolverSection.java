package dev.sluice.proxy.dns;

import dev.sluice.config.model.Resolvers;
import dev.sluice.config.model.ServerDns;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.transport.Transport;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.resolver.HostsFileEntriesResolver;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.netty.resolver.dns.NoopAuthoritativeDnsServerCache;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A {@code resolvers} section at run time: its name servers and HAProxy's counters of them, the resolutions of the names
 * its servers follow, run every {@code timeout resolve} and sent again every {@code timeout retry} (at most
 * {@code resolve_retries} more times, the other address family once after a failed answer), on one event loop, with
 * Netty's {@link DnsNameResolver} asking each name server directly (no cache: the answers are HAProxy's to keep or drop,
 * with the {@code hold} periods; {@code tcp@} name servers through {@link TcpQuery}). A query goes to every name server; the first valid answer wins, an error counts when
 * every server answered with one. Everything but {@link #dump} and the counters runs on {@link #loop}.
 */
public final class ResolverSection {
    private final Resolvers config;
    private final List<Nameserver> nameservers = new ArrayList<>();
    private final EventLoop loop;
    private final Transport transport;
    private final ServerUpdates updates;
    /** Resolutions by lower-case name and preferred type. */
    private final Map<String, Resolution> resolutions = new LinkedHashMap<>();
    /** SRV resolutions and the server-template slots they fill, in declaration order. */
    private final Map<Resolution, List<Requester>> srvSlots = new LinkedHashMap<>();
    private DnsNameResolver udp;
    /** The servers that follow a name (not SRV slots), and those renamed at run time; read on the loop after start. */
    private final Map<Server, Requester> requesters = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean running;
    private ScheduledFuture<?> ticker;
    private final long started = System.nanoTime();

    ResolverSection(Resolvers config, EventLoop loop, Transport transport, Consumer<Server> moved) {
        this.config = config;
        this.loop = loop;
        this.transport = transport;
        this.updates = new ServerUpdates(moved);
        for (Resolvers.Nameserver ns : config.nameservers()) {
            nameservers.add(new Nameserver(ns.id(), new InetSocketAddress(dev.sluice.config.Addresses.literal(ns.host()), ns.port()), ns.tcp()));
        }
    }

    public String name() {
        return config.name();
    }

    Resolvers config() {
        return config;
    }

    List<Nameserver> nameservers() {
        return nameservers;
    }

    /** Milliseconds since the section was made: the clock of the hold periods. */
    long now() {
        return (System.nanoTime() - started) / 1_000_000;
    }

    /** A server that follows DNS through this section (before {@link #start}). */
    void add(Server s, ServerDns options) {
        Requester r = new Requester(s, options);
        requesters.put(s, r);
        String host = s.config().host();
        if (s.config().srv()) {
            Resolution res = resolution(host, DnsAnswer.SRV);
            srvSlots.computeIfAbsent(res, k -> new ArrayList<>()).add(r);
        } else {
            link(r, host);
        }
    }

    private Resolution resolution(String name, int type) {
        String key = name.toLowerCase(Locale.ROOT) + "/" + type;
        return resolutions.computeIfAbsent(key, k -> new Resolution(name, type, now()));
    }

    /** Makes {@code r} follow the A/AAAA answers for {@code host}. */
    private void link(Requester r, String host) {
        Resolution res = resolution(host, r.options.preferIpv6() ? DnsAnswer.AAAA : DnsAnswer.A);
        r.resolution = res;
        res.requesters.add(r);
    }

    /** Stops following {@code r}'s A/AAAA resolution (an SRV slot whose record went away or came with its address). */
    private void unlink(Requester r) {
        Resolution res = r.resolution;
        if (res != null) {
            res.requesters.remove(r);
            r.resolution = null;
        }
        if (r.ipRecord != null) {
            r.ipRecord.attached.remove(r);
            r.ipRecord = null;
        }
    }

    /**
     * Opens the DNS socket and starts resolving at once; a section no server follows (the implicit {@code default} one,
     * usually) opens nothing and only shows its counters.
     */
    void start() {
        running = true;
        if (resolutions.isEmpty()) {
            return;
        }
        loop.execute(this::open);
    }

    /** On the loop: the socket and the timer, once. */
    private void open() {
        if (udp != null || !running) {
            return;
        }
        udp = resolver();
        long period = Math.max(10, Math.min(100, Math.min(config.timeoutResolve(), config.timeoutRetry())));
        ticker = loop.scheduleAtFixedRate(this::tick, 0, period, TimeUnit.MILLISECONDS);
    }

    /**
     * {@code set server <b>/<s> fqdn <name>}: the server follows another name from now on (its address changes with the
     * first answer for it), with HAProxy 2.6's answer; SRV_ADMF_HMAINT is set as HAProxy sets it.
     */
    String rename(Server s, String fqdn) {
        if (fqdn.equals(s.fqdn())) {
            return "no need to change the FDQN by 'stats socket command'\n";
        }
        if (fqdn.length() > 255 || !fqdn.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_')) {
            return "invalid fqdn '" + fqdn + "' by 'stats socket command'\n";
        }
        String msg = s.backend().name() + "/" + s.name() + " changed its FQDN from " + (s.fqdn() == null ? "(null)" : s.fqdn()) + " to " + fqdn
                + " by 'stats socket command'\n";
        s.fqdn(fqdn);
        loop.execute(() -> {
            Requester r = requesters.computeIfAbsent(s, k -> new Requester(k, k.config().dns()));
            unlink(r);
            link(r, fqdn);
            if (running) {
                open();
            }
        });
        return msg;
    }

    private DnsNameResolver resolver() {
        InetSocketAddress any = nameservers.isEmpty() ? new InetSocketAddress("127.0.0.1", 53) : nameservers.get(0).address;
        DnsNameResolverBuilder b = new DnsNameResolverBuilder(loop)
                .datagramChannelFactory(transport::newDatagramChannel)
                .resolveCache(NoopDnsCache.INSTANCE)
                .cnameCache(NoopDnsCnameCache.INSTANCE)
                .authoritativeDnsServerCache(NoopAuthoritativeDnsServerCache.INSTANCE)
                .hostsFileEntriesResolver(HostsFileEntriesResolver.DEFAULT)
                .nameServerProvider(new SingletonDnsServerAddressStreamProvider(any))
                .queryTimeoutMillis(config.timeoutRetry())
                .maxPayloadSize(config.acceptedPayloadSize())
                .optResourceEnabled(true)
                .recursionDesired(true);
        return b.build();
    }

    /** Closes the sockets; no resolution runs afterwards. */
    void stop() {
        running = false;
        loop.execute(() -> {
            if (ticker != null) {
                ticker.cancel(false);
            }
            if (udp != null) {
                udp.close();
            }
            udp = null;
        });
    }

    /** HAProxy's process_resolvers: retries of the runs in progress, then the runs that are due. */
    void tick() {
        if (udp == null) {
            return;
        }
        long now = now();
        for (Iterator<Resolution> it = resolutions.values().iterator(); it.hasNext();) {
            Resolution res = it.next();
            if (res.requesters.isEmpty() && !srvSlots.containsKey(res)) {
                it.remove();
                continue;
            }
            if (res.running) {
                if (now - res.lastQuery < config.timeoutRetry()) {
                    continue;
                }
                if (res.tries <= 0) {
                    if (res.responses == 0) {
                        res.status = Resolution.Status.TIMEOUT;
                    }
                    failed(res, now);
                    continue;
                }
                if (res.responses == 0 || res.preferred != res.queryType) {
                    res.queryType = res.preferred;
                    res.tries--;
                } else {
                    fallback(res);
                }
                send(res, now);
            } else if (res.lastResolution < 0 || now - res.lastResolution >= config.timeoutResolve()) {
                res.tries = config.resolveRetries();
                res.queryType = res.preferred;
                res.running = true;
                send(res, now);
            }
        }
    }

    private static void fallback(Resolution res) {
        if (res.preferred == DnsAnswer.A) {
            res.queryType = DnsAnswer.AAAA;
        } else if (res.preferred == DnsAnswer.AAAA) {
            res.queryType = DnsAnswer.A;
        } else {
            res.tries--;
        }
    }

    private void send(Resolution res, long now) {
        int gen = ++res.generation;
        res.queries = 0;
        res.responses = 0;
        res.lastQuery = now;
        DnsQuestion q = new DefaultDnsQuestion(res.name + ".", DnsAnswer.type(res.queryType));
        for (Nameserver ns : nameservers) {
            res.queries++;
            ns.sent++;
            if (ns.tcp) {
                Future<DnsResponse> f = TcpQuery.send(loop, transport, ns.address, q, config.timeoutRetry());
                f.addListener(done -> answered(res, gen, ns, q, f.isSuccess() ? f.getNow() : null, f.cause()));
            } else {
                Future<AddressedEnvelope<DnsResponse, InetSocketAddress>> f = udp.query(ns.address, q);
                f.addListener(done -> answered(res, gen, ns, q, f.isSuccess() ? f.getNow().content() : null, f.cause()));
            }
        }
    }

    /** An answer ({@code r}, released here) or a failure ({@code cause}) to the query of generation {@code gen}. */
    private void answered(Resolution res, int gen, Nameserver ns, DnsQuestion q, DnsResponse r, Throwable cause) {
        if (r == null) {
            if (!(cause instanceof DnsNameResolverTimeoutException || cause instanceof java.util.concurrent.TimeoutException)) {
                ns.sndError++;
            }
            return;
        }
        DnsAnswer a;
        try {
            if (gen != res.generation || !res.running) {
                ns.outdated++;
                return;
            }
            a = DnsAnswer.of(r, q);
        } finally {
            r.release();
        }
        res.responses++;
        switch (a.verdict()) {
            case VALID -> {
            }
            case INVALID -> {
                res.status = Resolution.Status.INVALID;
                ns.invalid++;
            }
            case NX_DOMAIN -> {
                res.status = Resolution.Status.NX;
                ns.nx++;
            }
            case REFUSED -> {
                res.status = Resolution.Status.REFUSED;
                ns.refused++;
            }
            case ANCOUNT_ZERO -> {
                res.status = Resolution.Status.OTHER;
                ns.anyErr++;
            }
            case CNAME_ERROR -> {
                res.status = Resolution.Status.OTHER;
                ns.cnameError++;
            }
            case TRUNCATED -> {
                res.status = Resolution.Status.OTHER;
                ns.truncated++;
            }
            default -> {
                res.status = Resolution.Status.OTHER;
                ns.other++;
            }
        }
        long now = now();
        if (a.verdict() != DnsAnswer.Verdict.VALID) {
            if (res.responses < res.queries) {
                return;
            }
            if (res.preferred != res.queryType) {
                if (res.tries <= 0) {
                    failed(res, now);
                }
            } else if (res.preferred != DnsAnswer.SRV) {
                fallback(res);
                send(res, now);
            }
            return;
        }
        valid(res, a, ns, now);
    }

    /** The resolution {@code res}, for a benchmark that feeds it answers ({@link #valid}); null when none. */
    Resolution resolution(String name, int type, boolean create) {
        return create ? resolution(name, type) : resolutions.get(name.toLowerCase(Locale.ROOT) + "/" + type);
    }

    /** A valid answer from {@code ns}: the records kept, then the servers updated. */
    void valid(Resolution res, DnsAnswer a, Nameserver ns, long now) {
        res.status = Resolution.Status.VALID;
        res.lastValid = now;
        ns.valid++;
        res.running = false;
        res.lastResolution = now;
        merge(res, a, now);
        if (res.preferred == DnsAnswer.SRV) {
            srvAnswered(res);
        } else {
            String updater = config.name() + "/" + ns.id;
            Nameserver counting = ns;
            Map<Object, int[]> cursors = new java.util.HashMap<>();
            for (Requester r : List.copyOf(res.requesters)) {
                updates.answered(r, counting == null ? "DNS cache" : updater, counting, cursors);
                counting = null;
            }
        }
    }

    /** The records of a valid answer join those kept; those not seen for {@code hold obsolete} go, with their servers. */
    private void merge(Resolution res, DnsAnswer a, long now) {
        boolean added = false;
        for (DnsAnswer.Item item : a.items()) {
            Resolution.Record kept = res.index.get(Resolution.Record.identity(item));
            if (kept == null) {
                Resolution.Record rec = new Resolution.Record(item, now);
                res.records.add(rec);
                res.index.put(rec.identity(), rec);
                added = true;
            } else {
                kept.lastSeen = now;
                kept.weight = item.weight();
                if (item.type() == DnsAnswer.SRV && !java.util.Objects.equals(kept.additional, item.ip())) {
                    // as HAProxy: an additional record that changed is dropped, the target is then resolved on its own
                    kept.additional = null;
                }
            }
        }
        long hold = config.holdObsolete();
        res.records.removeIf(rec -> {
            if (rec.lastSeen + hold >= now) {
                return false;
            }
            res.index.remove(rec.identity());
            for (Requester r : List.copyOf(rec.attached)) {
                if (rec.type == DnsAnswer.SRV) {
                    unlink(r);
                    r.srvRecord = null;
                    ServerUpdates.srvRemoved(r);
                } else {
                    r.ipRecord = null;
                }
            }
            rec.attached.clear();
            return true;
        });
        if (added) {
            res.records.sort((x, y) -> Integer.compareUnsigned(x.key, y.key));
        }
    }

    /** The SRV records fill the free slots in order; each slot gets the address, port and weight of its record. */
    private void srvAnswered(Resolution res) {
        List<Requester> slots = srvSlots.getOrDefault(res, List.of());
        for (Resolution.Record rec : res.records) {
            Requester slot = rec.attached.isEmpty() ? null : rec.attached.get(0);
            if (slot == null) {
                for (Requester r : slots) {
                    if (r.srvRecord == null) {
                        slot = r;
                        break;
                    }
                }
                if (slot == null) {
                    continue;
                }
                slot.srvRecord = rec;
                rec.attached.add(slot);
            }
            if (rec.additional != null) {
                unlink(slot);
            } else if (slot.resolution == null) {
                link(slot, rec.target);
            }
            updates.srvAssigned(slot, rec);
        }
    }

    /** The run ended without a valid answer: past the status's hold period, the servers lose their addresses. */
    void failed(Resolution res, long now) {
        res.running = false;
        res.lastResolution = now;
        long hold = switch (res.status) {
            case NX -> config.holdNx();
            case TIMEOUT -> config.holdTimeout();
            case REFUSED -> config.holdRefused();
            default -> config.holdOther();
        };
        if (now - res.lastValid < hold) {
            return;
        }
        if (res.preferred == DnsAnswer.SRV) {
            for (Requester slot : srvSlots.getOrDefault(res, List.of())) {
                if (slot.srvRecord != null) {
                    slot.srvRecord = null;
                    unlink(slot);
                    ServerUpdates.srvRemoved(slot);
                }
            }
        } else {
            for (Requester r : List.copyOf(res.requesters)) {
                ServerUpdates.failed(r, res.status);
                r.ipRecord = null;
            }
        }
        for (Resolution.Record rec : res.records) {
            rec.attached.clear();
        }
        res.records.clear();
        res.index.clear();
    }

    /** HAProxy 2.6's block of {@code show resolvers} for this section. */
    void dump(StringBuilder out) {
        out.append("Resolvers section ").append(config.name()).append('\n');
        for (Nameserver ns : nameservers) {
            ns.dump(out);
        }
    }
}

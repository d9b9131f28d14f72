package dev.sluice.proxy.peers;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.Peers;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.config.model.StickTableDecl;
import dev.sluice.peers.Peer;
import dev.sluice.peers.PeerFrameDecoder;
import dev.sluice.peers.PeerSession;
import dev.sluice.peers.PeersSync;
import dev.sluice.peers.SharedTable;
import dev.sluice.peers.ShowPeers;
import dev.sluice.peers.TableCodec;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.metrics.PrometheusExporter;
import dev.sluice.proxy.rules.StickTables;
import dev.sluice.proxy.tls.CertifiedKey;
import dev.sluice.proxy.tls.PemLoader;
import dev.sluice.proxy.transport.Transport;
import dev.sluice.sticktable.StickTable;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The peers sections of a running process: one {@link PeersSync} per active section, its listener on the local peer's
 * address (SO_REUSEPORT, so the next process binds it while this one stops), its outgoing sessions, {@code show peers},
 * the Prometheus series, and the hand-over of a soft stop (the old process teaches the new one before it exits). Each
 * section runs on one event loop of the process.
 */
public final class PeersRuntime {
    private final List<PeersSync> syncs = new ArrayList<>();
    private final List<Peers> sections = new ArrayList<>();
    private final List<Channel> listeners = new ArrayList<>();
    /** The TLS of each section's listener (null: clear text), and of the links to each remote peer by section and name. */
    private final List<SslContext> serverTls = new ArrayList<>();
    private final Map<String, SslContext> clientTls = new HashMap<>();
    private final long startedAt = System.currentTimeMillis();
    private volatile boolean drained = true;

    private PeersRuntime() {
    }

    /** The active sections of {@code config}, with the tables of {@code tables} that name them. */
    public static PeersRuntime of(Config config, StickTables tables) {
        PeersRuntime r = new PeersRuntime();
        long pid = ProcessHandle.current().pid();
        long origin = System.nanoTime();
        for (Peers ps : config.peers()) {
            if (!ps.active()) {
                continue;
            }
            // ids as HAProxy 2.6 gives them (they show in 'show peers'): the section's own tables last declared first,
            // then the proxies' tables in order
            List<StickTable> ordered = new ArrayList<>();
            for (Peers.PeersTable pt : ps.tables().reversed()) {
                StickTable t = tables.get(pt.fullName());
                if (t != null && ps.name().equals(t.spec().peers())) {
                    ordered.add(t);
                }
            }
            for (StickTable t : tables.all()) {
                if (ps.name().equals(t.spec().peers()) && !ordered.contains(t)) {
                    ordered.add(t);
                }
            }
            List<SharedTable> shared = new ArrayList<>();
            for (StickTable t : ordered) {
                shared.add(new SharedTable(shared.size() + 1, t,
                        TableCodec.keySize(t.keyType(), t.spec().keyLength(), explicitLength(config, t.name())),
                        SharedTable.wireName(t.name(), ps.name())));
            }
            List<PeersSync.PeerSpec> specs = new ArrayList<>();
            for (Peers.Peer p : ps.peers()) {
                String host = p.host();
                int port = p.port();
                if (p.local() && ps.bind() instanceof ListenAddress.Inet in) {
                    host = in.host().isEmpty() ? "0.0.0.0" : in.host();
                    port = in.port();
                }
                specs.add(new PeersSync.PeerSpec(p.name(), host, port, p.local()));
            }
            r.serverTls.add(serverTls(ps));
            for (Peers.Peer p : ps.remotes()) {
                if (p.ssl()) {
                    r.clientTls.put(ps.name() + "/" + p.name(), clientTls(ps, p));
                }
            }
            r.syncs.add(new PeersSync(ps.name(), ps.localName(), pid, specs, shared, ps.maxUpdates(),
                    () -> (System.nanoTime() - origin) / 1_000_000L + 1, new Random()));
            r.sections.add(ps);
        }
        return r;
    }

    /** The listener's TLS ({@code ssl crt <pem>} on its bind or default-bind), or null. */
    private static SslContext serverTls(Peers ps) {
        String crt = ps.bindCertificate();
        if (crt == null) {
            return null;
        }
        try {
            CertifiedKey ck = PemLoader.loadCertifiedKey(Path.of(crt));
            return SslContextBuilder.forServer(ck.key(), ck.chainArray()).build();
        } catch (Exception e) {
            throw new IllegalStateException("peers section '" + ps.name() + "': cannot load certificate '" + crt + "': " + e.getMessage(), e);
        }
    }

    /** The TLS of the link to {@code p} ({@code ssl verify none}, or {@code ssl ca-file <pem>}). */
    private static SslContext clientTls(Peers ps, Peers.Peer p) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient();
            if ("none".equals(p.option("verify"))) {
                b.trustManager(InsecureTrustManagerFactory.INSTANCE);
            } else {
                b.trustManager(new File(p.option("ca-file")));
            }
            return b.build();
        } catch (Exception e) {
            throw new IllegalStateException("peers section '" + ps.name() + "', peer '" + p.name() + "': " + e.getMessage(), e);
        }
    }

    /** Whether the table was declared with {@code len} (HAProxy's key size of a string table counts it). */
    private static boolean explicitLength(Config config, String table) {
        for (Peers ps : config.peers()) {
            for (Peers.PeersTable t : ps.tables()) {
                if (t.fullName().equals(table)) {
                    return t.decl().args().contains("len");
                }
            }
        }
        StickTableDecl d = config.proxy(table).map(p -> p.stickTable()).orElse(null);
        return d != null && d.args().contains("len");
    }

    public List<PeersSync> sections() {
        return syncs;
    }

    public boolean isEmpty() {
        return syncs.isEmpty();
    }

    /** Binds the listeners and starts each section's task; {@code oldProcess}: -sf/-st named a process to replace. */
    public void start(Transport transport, EventLoopGroup group, boolean oldProcess, Consumer<String> log) {
        for (int i = 0; i < syncs.size(); i++) {
            PeersSync sync = syncs.get(i);
            Peers ps = sections.get(i);
            EventLoop loop = group.next();
            SslContext tls = serverTls.get(i);
            if (ps.bind() instanceof ListenAddress.Inet in) {
                ServerBootstrap b = new ServerBootstrap().group(loop, loop).channelFactory(transport::newServerChannel)
                        .childHandler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel ch) {
                                if (tls != null) {
                                    ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                                }
                                ch.pipeline().addLast(new PeerFrameDecoder(), sync.acceptedSession());
                            }
                        });
                if (transport.reusePortOption() != null) {
                    b.option(transport.reusePortOption(), true);
                }
                InetSocketAddress sa = in.host().isEmpty() ? new InetSocketAddress(in.port())
                        : new InetSocketAddress(Addresses.literal(in.host()), in.port());
                ChannelFuture f = b.bind(sa).awaitUninterruptibly();
                if (!f.isSuccess()) {
                    throw new IllegalStateException("Starting peers " + ps.name() + ": cannot bind socket [" + in + "]: "
                            + f.cause().getMessage());
                }
                listeners.add(f.channel());
            }
            long connectTimeout = ps.timeoutConnectMs();
            String section = ps.name();
            sync.start(loop, (peer, session) -> connect(transport, loop, peer, session, connectTimeout, clientTls.get(section + "/" + peer.name())),
                    oldProcess, log);
        }
    }

    private static void connect(Transport transport, EventLoop loop, Peer peer, PeerSession session, long timeoutMs, SslContext tls) {
        Bootstrap b = new Bootstrap().group(loop).channelFactory(transport::newSocketChannel)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) timeoutMs)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), peer.host(), peer.port()));
                        }
                        ch.pipeline().addLast(new PeerFrameDecoder(), session);
                    }
                });
        InetSocketAddress to = Addresses.literal(peer.host()) != null ? new InetSocketAddress(Addresses.literal(peer.host()), peer.port())
                : new InetSocketAddress(peer.host(), peer.port());
        ChannelFuture f = b.connect(to);
        // a session whose connection never opened ends too (it never saw channelInactive)
        f.channel().closeFuture().addListener(x -> session.ended());
    }

    /**
     * The old process's part of a reload: stops listening, drops the remote sessions and teaches the new process (the
     * local peer) everything; {@code done} runs once every section did, or could not.
     */
    public void softStop(Runnable done) {
        for (Channel l : listeners) {
            l.close();
        }
        if (syncs.isEmpty()) {
            done.run();
            return;
        }
        drained = false;
        AtomicInteger left = new AtomicInteger(syncs.size());
        for (PeersSync s : syncs) {
            s.softStop(() -> {
                if (left.decrementAndGet() == 0) {
                    drained = true;
                    done.run();
                }
            });
        }
    }

    /** Whether a soft stop has nothing left to teach. */
    public boolean drained() {
        return drained;
    }

    public void stop() {
        for (Channel l : listeners) {
            l.close();
        }
        for (PeersSync s : syncs) {
            s.close();
        }
    }

    /** {@code show peers [<section>]}. */
    public void register(CliRegistry r) {
        r.register(new CliCommand(List.of("show", "peers"), Level.USER, "show peers [dict|-] [section]", "dump some information about all the peers or this peers section",
                req -> {
                    List<String> a = req.args();
                    int i = 2;
                    boolean dict = i < a.size() && a.get(i).equals("dict");
                    if (i < a.size() && (dict || a.get(i).equals("-"))) {
                        i++;
                    }
                    return ShowPeers.render(syncs, i < a.size() ? a.get(i) : null, startedAt, dict);
                }));
    }

    /** Gauges of peer sessions and counters of messages, errors and resyncs, per section. */
    public void metrics(PrometheusExporter m) {
        if (syncs.isEmpty()) {
            return;
        }
        m.register(sink -> {
            for (PeersSync s : syncs) {
                long up = s.peers().stream().filter(Peer::connected).count();
                sink.gauge("sluice_peers_sessions", "Established peer sessions of a peers section.", up, "section", s.section());
                sink.gauge("sluice_peers_resync_finished", "1 when this process has learned its tables (resync finished).",
                        s.resync() == PeersSync.Resync.FINISHED ? 1 : 0, "section", s.section());
                sink.counter("sluice_peers_updates_sent_total", "Table updates pushed to peers.", s.pushedCount(), "section", s.section());
                sink.counter("sluice_peers_updates_received_total", "Table updates learned from peers.", s.learnedCount(), "section",
                        s.section());
                sink.counter("sluice_peers_protocol_errors_total", "Sessions ended on a malformed or oversized message.", s.errorCount(),
                        "section", s.section());
                sink.counter("sluice_peers_handshakes_refused_total", "Handshakes refused with a status code.", s.refusedCount(),
                        "section", s.section());
                sink.counter("sluice_peers_resyncs_total", "Full resyncs (lessons) asked of this process.", s.resyncCount(), "section",
                        s.section());
                for (Peer p : s.peers()) {
                    sink.counter("sluice_peers_messages_in_total", "Messages received from a peer.", p.messagesIn(), "section", s.section(),
                            "peer", p.name());
                    sink.counter("sluice_peers_messages_out_total", "Messages sent to a peer.", p.messagesOut(), "section", s.section(),
                            "peer", p.name());
                }
            }
        });
    }
}

package dev.sluice.proxy.backend;

import dev.sluice.proxy.http.ServerSide;
import dev.sluice.proxy.rules.Fetch;
import dev.sluice.proxy.rules.Samples;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.tls.ClientTlsContext;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * A server of a backend at run time: its resolved address, its weight, its administrative state (set
 * through the admin socket), how its connections are secured, its per-event-loop pools of idle
 * connections, and its counters. The idle pool of loop {@code i} is only touched by loop {@code i};
 * weight and state are volatile and changed through the backend, which rebuilds its schedule.
 */
public final class Server {

    /**
     * TLS towards a server: the context shared with every server of the same settings, the compiled
     * {@code sni} expression (null: none) and the configured host name sent as SNI when the expression
     * gives nothing (null when the server was given as an IP address). Immutable.
     */
    public record Tls(ClientTlsContext context, Fetch sni, String hostName) {
    }

    private final String name;
    private final int id;
    private final Backend backend;
    private final InetSocketAddress address;
    private volatile int weight;
    private final int initialWeight;
    /** HAProxy's srv_admin_state bits: {@link #FORCED_MAINT}, {@link #FORCED_DRAIN}. */
    private volatile int adminState;
    /** Epoch milliseconds of the last state change (the start, maint, drain, ready). */
    private volatile long lastChange = System.currentTimeMillis();
    /** HAProxy's check health counter of a server without checks: rise (2) until it is put in maintenance. */
    private volatile int checkHealth = 2;
    private final dev.sluice.proxy.stats.Counters counters = new dev.sluice.proxy.stats.Counters();
    private final ArrayDeque<ServerSide>[] idle;
    private final java.util.ArrayList<MultiplexedConnection>[] mux;
    /** {@code proto h2}: HTTP/2 whatever ALPN says. */
    private final boolean forcedH2;
    private final Tls tls;
    /** ALPN offers h2 and, as far as the last handshake told, the server takes it. */
    private volatile boolean alpnH2;
    /**
     * Streams currently using this server (the log's %sc, scur). One atomic rather than striped cells: a
     * gauge whose maximum (smax) must be exact needs its value at each increment, as HAProxy's cur_sess.
     */
    private final java.util.concurrent.atomic.AtomicInteger active = new java.util.concurrent.atomic.AtomicInteger();

    @SuppressWarnings("unchecked")
    Server(String name, int id, Backend backend, InetSocketAddress address, int weight, int loops, boolean forcedH2, Tls tls) {
        this.name = name;
        this.id = id;
        this.backend = backend;
        this.address = address;
        this.weight = weight;
        this.initialWeight = weight;
        this.forcedH2 = forcedH2;
        this.tls = tls;
        this.alpnH2 = tls != null && tls.context().alpn().contains("h2");
        this.idle = new ArrayDeque[loops];
        this.mux = new java.util.ArrayList[loops];
        for (int i = 0; i < loops; i++) {
            idle[i] = new ArrayDeque<>();
            mux[i] = new java.util.ArrayList<>(2);
        }
    }

    public String name() {
        return name;
    }

    public int id() {
        return id;
    }

    public Backend backend() {
        return backend;
    }

    /** The server address; its port is 0 when the connection's destination port is to be used. */
    public InetSocketAddress address() {
        return address;
    }

    public int weight() {
        return weight;
    }

    /** Whether the server may be given new requests: a weight above 0 and neither in maintenance nor draining. */
    public boolean usable() {
        return weight > 0 && adminState == 0;
    }

    /** Forced maintenance ({@code set server ... state maint}): no traffic at all. */
    public static final int FORCED_MAINT = 0x01;
    /** Forced drain ({@code set server ... state drain}): no new traffic (Sluice has no persistence). */
    public static final int FORCED_DRAIN = 0x08;

    public int initialWeight() {
        return initialWeight;
    }

    public int adminState() {
        return adminState;
    }

    public long lastChange() {
        return lastChange;
    }

    public int checkHealth() {
        return checkHealth;
    }

    public dev.sluice.proxy.stats.Counters counters() {
        return counters;
    }

    /** Changes the weight (0..256); new requests follow at once. Admin path only. */
    public void weight(int w) {
        weight = w;
        backend.serversChanged();
    }

    /** Changes the administrative state; new requests follow at once. Admin path only. */
    public void adminState(int state) {
        if (state == adminState) {
            return;
        }
        adminState = state;
        lastChange = System.currentTimeMillis();
        if ((state & FORCED_MAINT) != 0) {
            checkHealth = 0;
        }
        backend.serversChanged();
    }

    /** The counters right now, with the current number of streams using the server. */
    public dev.sluice.proxy.stats.Counters.Snapshot snapshot() {
        return counters.snapshot(activeStreams());
    }

    /** Whether new connections are expected to speak HTTP/2 (streams share them) rather than HTTP/1.1. */
    public boolean multiplexed() {
        return forcedH2 || alpnH2;
    }

    /** {@code proto h2}: HTTP/2 is spoken whatever ALPN agreed. */
    public boolean forcesH2() {
        return forcedH2;
    }

    /** TLS settings, or null for clear text. */
    public Tls tls() {
        return tls;
    }

    /**
     * What the last TLS handshake agreed through ALPN: later connections are opened expecting HTTP/2 only
     * while the server keeps choosing it. Any event loop may call this.
     */
    void alpnAgreed(boolean h2) {
        if (alpnH2 != h2 && tls.context().alpn().contains("h2")) {
            alpnH2 = h2;
        }
    }

    /**
     * The server name to send in the TLS handshake for this request: the {@code sni} expression's value
     * (without a port), else the server's configured host name; null for none (clear text, IP literals).
     */
    public String sniFor(Txn t) {
        if (tls == null) {
            return null;
        }
        if (tls.sni() != null) {
            String name = hostOnly(Samples.str(tls.sni().get(t)));
            if (name != null) {
                return name;
            }
        }
        return tls.hostName();
    }

    /** A host as SNI carries it: no port, no IP literal (RFC 6066 names only), null when nothing is left. */
    static String hostOnly(CharSequence value) {
        if (value == null || value.isEmpty() || value.charAt(0) == '[') {
            return null;
        }
        String v = value.toString();
        int colon = v.indexOf(':');
        if (colon >= 0) {
            if (v.indexOf(':', colon + 1) >= 0) {
                return null;
            }
            v = v.substring(0, colon);
        }
        return v.isEmpty() || dev.sluice.config.Addresses.literal(v) != null ? null : v;
    }

    /** The multiplexed connections of one event loop; only that loop may call this. */
    java.util.ArrayList<MultiplexedConnection> mux(int loop) {
        return mux[loop];
    }

    /** The idle connections of one event loop; only that loop may call this. */
    ArrayDeque<ServerSide> idle(int loop) {
        return idle[loop];
    }

    public void countRequest() {
        counters.add(dev.sluice.proxy.stats.Counter.REQUESTS);
    }

    public void streamStarted() {
        counters.noteCurrent(active.incrementAndGet());
        backend.counters().noteCurrent(backend.active.incrementAndGet());
    }

    public void streamEnded() {
        active.decrementAndGet();
        backend.active.decrementAndGet();
    }

    public int activeStreams() {
        return active.get();
    }

    public long totalRequests() {
        return counters.get(dev.sluice.proxy.stats.Counter.REQUESTS);
    }

    @Override
    public String toString() {
        return backend.name() + "/" + name;
    }
}

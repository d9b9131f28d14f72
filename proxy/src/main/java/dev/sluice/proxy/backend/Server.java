package dev.sluice.proxy.backend;

import dev.sluice.proxy.http.ServerSide;
import dev.sluice.proxy.rules.Fetch;
import dev.sluice.proxy.rules.Samples;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.tls.ClientTlsContext;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.LongAdder;

/**
 * A server of a backend at run time: its resolved address, its weight, how its connections are secured,
 * its per-event-loop pools of idle connections, and its counters. The idle pool of loop {@code i} is only
 * touched by loop {@code i}.
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
    private final ArrayDeque<ServerSide>[] idle;
    private final java.util.ArrayList<MultiplexedConnection>[] mux;
    /** {@code proto h2}: HTTP/2 whatever ALPN says. */
    private final boolean forcedH2;
    private final Tls tls;
    /** ALPN offers h2 and, as far as the last handshake told, the server takes it. */
    private volatile boolean alpnH2;
    final LongAdder connections = new LongAdder();
    final LongAdder requests = new LongAdder();
    /** Streams currently using this server (the log's %sc). */
    private final LongAdder active = new LongAdder();

    @SuppressWarnings("unchecked")
    Server(String name, int id, Backend backend, InetSocketAddress address, int weight, int loops, boolean forcedH2, Tls tls) {
        this.name = name;
        this.id = id;
        this.backend = backend;
        this.address = address;
        this.weight = weight;
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

    /** Whether the server may be given new requests. Health and admin states come with health checks. */
    public boolean usable() {
        return weight > 0;
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
        requests.increment();
    }

    public void streamStarted() {
        active.increment();
        backend.active.increment();
    }

    public void streamEnded() {
        active.decrement();
        backend.active.decrement();
    }

    public int activeStreams() {
        return (int) active.sum();
    }

    public long totalConnections() {
        return connections.sum();
    }

    public long totalRequests() {
        return requests.sum();
    }

    @Override
    public String toString() {
        return backend.name() + "/" + name;
    }
}

package dev.sluice.proxy.runtime;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.BindQuic;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.QuicTune;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.pools.Pool;
import dev.sluice.pools.PoolRegistry;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.h3.H3ClientConnection;
import dev.sluice.proxy.metrics.MetricSink;
import dev.sluice.proxy.stream.ConnectionRules;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.transport.Transport;
import dev.sluice.proxy.transport.Workers;
import dev.sluice.quic.ClosingConnection;
import dev.sluice.quic.QuicCounters;
import dev.sluice.quic.QuicListener;
import dev.sluice.quic.QuicSettings;
import dev.sluice.quic.Secrets;
import dev.sluice.quic.ShowQuic;
import dev.sluice.quic.TokenKeys;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.quic.QuicCongestionControlAlgorithm;
import io.netty.handler.codec.quic.QuicSslContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The QUIC binds of a configuration: one {@link QuicListener} per {@code quic4@}/{@code quic6@} bind serving
 * HTTP/3 ({@link H3ClientConnection}), the process's QUIC secret and Retry-token keys (rotated on a timer), the
 * pool of closing records ({@code quic_conn_closed} in {@code show pools}) and the {@code show quic} command.
 * Built with the runtime, started and stopped with it.
 */
class QuicBinds {
    /** Test knob: the first N CONNECTION_CLOSE datagrams are dropped instead of sent, as if lost. */
    static final String DROP_CLOSE_ENV = "SLUICE_QUIC_TEST_DROP_CLOSE";

    private final QuicTune tune;
    /** Made with the first QUIC bind: without one, no secret, no SecureRandom seeding, no JCE at start-up. */
    private Secrets secrets;
    private TokenKeys tokenKeys;
    private final Pool<ClosingConnection> pool;
    private final List<QuicListener> listeners = new ArrayList<>();
    /** so_id and so_name of each listener, marked on its sockets once bound. */
    private final List<dev.sluice.proxy.listener.ListenerIdentity> identities = new ArrayList<>();
    private final boolean reusePort;
    private ScheduledFuture<?> rotation;

    /** @param reusePort false with {@code noreuseport}: one socket per bind, without SO_REUSEPORT */
    QuicBinds(QuicTune tune, PoolRegistry pools, boolean reusePort) {
        this.tune = tune;
        this.reusePort = reusePort;
        // 96 bytes a record (measured), its CONNECTION_CLOSE datagram apart; the reset step drops the datagram
        this.pool = pools == null ? null : ClosingConnection.pool(pools);
    }

    /**
     * QUIC binds that are not made: a reload keeps the running ones (the same binds and settings), whose sockets and
     * connections stay.
     */
    static QuicBinds kept(QuicTune tune) {
        return new QuicBinds(tune, null, false) {
            @Override
            void add(Frontend fe, Bind b, QuicSslContext ssl, ConnectionRules rules, dev.sluice.proxy.listener.ListenerCounters counters,
                    dev.sluice.proxy.listener.ListenerIdentity identity) {
            }
        };
    }

    /** Adds the listener of a QUIC bind of {@code fe}. */
    void add(Frontend fe, Bind b, QuicSslContext ssl, ConnectionRules rules, dev.sluice.proxy.listener.ListenerCounters counters,
            dev.sluice.proxy.listener.ListenerIdentity identity) {
        if (secrets == null) {
            secrets = Secrets.of(tune.clusterSecret());
            tokenKeys = new TokenKeys(secrets);
        }
        ListenAddress.Quic a = (ListenAddress.Quic) b.address();
        InetSocketAddress address = new InetSocketAddress(Addresses.literal(a.host()), a.port());
        BindQuic q = b.quic() != null ? b.quic() : BindQuic.DEFAULT;
        QuicSettings s = new QuicSettings(tune.maxIdleTimeoutMs(), tune.maxStreamsBidi(), tune.maxData(), tune.streamData(), tune.hystart(),
                switch (q.congestionControl()) {
                    case CUBIC -> QuicCongestionControlAlgorithm.CUBIC;
                    case NEWRENO -> QuicCongestionControlAlgorithm.RENO;
                    case BBR -> QuicCongestionControlAlgorithm.BBR;
                }, tune.retryThreshold(), q.forceRetry(), 0, dropCloses());
        listeners.add(new QuicListener(fe.name(), address, s, ssl, H3ClientConnection.initializer(fe, rules, counters), pool, secrets, tokenKeys));
        identities.add(identity);
    }

    private static int dropCloses() {
        String v = System.getenv(DROP_CLOSE_ENV);
        try {
            return v == null ? 0 : Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    List<QuicListener> listeners() {
        return listeners;
    }

    /**
     * Binds every QUIC socket (one per loop with SO_REUSEPORT; one socket without it, with {@code noreuseport} or
     * a transport that has no such option) and starts rotating the token keys.
     */
    void start(Transport transport, Workers workers) {
        List<EventLoop> loops = new ArrayList<>();
        for (int i = 0; i < workers.count(); i++) {
            loops.add(workers.loop(i));
        }
        for (int i = 0; i < listeners.size(); i++) {
            QuicListener l = listeners.get(i);
            l.allocator(transport.allocator()).start(loops, transport::newDatagramChannel, reusePort ? transport.reusePortOption() : null);
            l.channels().forEach(identities.get(i)::mark);
        }
        if (!listeners.isEmpty()) {
            scheduleRotation(workers.loop(0));
        }
    }

    private void scheduleRotation(EventLoop loop) {
        rotation = loop.schedule(() -> {
            tokenKeys.rotate();
            scheduleRotation(loop);
        }, tokenKeys.untilNextRotation() + 1, TimeUnit.MILLISECONDS);
    }

    /**
     * Graceful stop: every live connection gets {@code event} (HTTP/3: GOAWAY, its requests finish, then it closes
     * and leaves a closing record); the sockets stay open, taking no new connection, until neither connections
     * nor records remain ({@link #drained()}).
     */
    void softStop(Object event) {
        for (QuicListener l : listeners) {
            l.softStop(event);
        }
    }

    /** Whether every QUIC socket is closed: after a soft stop, once its connections and closing records are gone. */
    boolean drained() {
        for (QuicListener l : listeners) {
            if (!l.isClosed()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Hard stop: every connection is closed (CONNECTION_CLOSE sent) and the sockets with their records. The future
     * completes once every socket is closed (see {@link QuicListener#stop()}).
     */
    CompletableFuture<Void> stop() {
        if (rotation != null) {
            rotation.cancel(false);
        }
        List<CompletableFuture<Void>> closed = new ArrayList<>(listeners.size());
        for (QuicListener l : listeners) {
            closed.add(l.stop());
        }
        return CompletableFuture.allOf(closed.toArray(CompletableFuture[]::new));
    }

    /**
     * The QUIC metric families, per frontend with a QUIC bind (summed over its binds), read from the binds'
     * counters: HAProxy's quic module names where it has the value, Sluice's for the closing records.
     */
    void collect(MetricSink sink) {
        Map<String, long[]> byFrontend = new LinkedHashMap<>();
        for (QuicListener l : listeners) {
            QuicCounters c = l.counters();
            long[] v = byFrontend.computeIfAbsent(l.frontend(), k -> new long[9]);
            v[0] += c.halfOpen();
            v[1] += c.retries();
            v[2] += c.tokensValid();
            v[3] += c.tokensInvalid();
            v[4] += c.closingRecords();
            v[5] += c.closingRecords() - c.recordsFreed();
            v[6] += c.closeResends();
            v[7] += c.closeAmplificationDrops();
            v[8] += c.connections();
        }
        for (var e : byFrontend.entrySet()) {
            long[] v = e.getValue();
            String px = e.getKey();
            sink.gauge("haproxy_frontend_quic_half_open_conn", "QUIC connections whose handshake is not done.", v[0], "proxy", px);
            sink.counter("haproxy_frontend_quic_retry_sent_total", "Retry packets sent (address validation).", v[1], "proxy", px);
            sink.counter("haproxy_frontend_quic_retry_validated_total", "Retry tokens that validated.", v[2], "proxy", px);
            sink.counter("haproxy_frontend_quic_retry_error_total", "Retry tokens refused (forged, expired, from another address).", v[3],
                    "proxy", px);
            sink.counter("haproxy_frontend_quic_connections_total", "QUIC connections created.", v[8], "proxy", px);
            sink.counter("sluice_frontend_quic_closing_records_created_total", "Server-closed QUIC connections kept as compact closing records.", v[4],
                    "proxy", px);
            sink.gauge("sluice_frontend_quic_closing_records_alive", "Closing records alive (each re-sends its CONNECTION_CLOSE until its deadline).",
                    v[5], "proxy", px);
            sink.counter("sluice_frontend_quic_close_resent_total", "CONNECTION_CLOSE datagrams re-sent from closing records.", v[6],
                    "proxy", px);
            sink.counter("sluice_frontend_quic_close_amplification_skipped_total",
                    "Re-sends skipped by the anti-amplification limit.", v[7], "proxy", px);
        }
    }

    /** {@code show quic}, registered by the QUIC subsystem. */
    void register(CliRegistry r) {
        r.register(new CliCommand(List.of("show", "quic"), Level.OPERATOR, "show quic [oneline|full] [all]",
                "display quic connections status", req -> ShowQuic.run(listeners, req.args().subList(2, req.args().size()))));
    }
}

package dev.sluice.proxy.stream;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.TrafficEvent;
import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.tls.TlsSession;
import dev.sluice.proxy.stream.Termination.State;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Gets a stream ({@link Exchange}) a server connection, whatever it carries: the server's slot (assigned, queued,
 * requeued, timed out: {@link ServerSlot}), then a connection from the backend's connector, and another attempt after a
 * failed connect as {@link Attempts} decides, on the same server after HAProxy's turn-around wait or on another one
 * ({@code option redispatch}), with the counters and termination flags of each step. What the stream does with the
 * connection, and how it tells its client that none could be had, are its subclass's ({@link Connecting} for HTTP).
 * One per stream, created with its {@link Attempts} once the backend is known; the slot and the connector call it back
 * on the stream's event loop, and it is used only there.
 */
abstract class ServerPath implements ServerConnector.Callback, ServerSlot.Listener {
    private final Exchange stream;
    private final ClientEnd client;
    private final Backend backend;
    private final Attempts attempts;
    private final ServerSlot slot;
    /** The stream's processing runs for an event that came later ({@code cpu_calls}). */
    private void woken() {
        if (stream.target() instanceof ClientTxn<?> t) {
            t.woken();
        }
    }

    /** Whether the last connection attempt failed by {@code timeout connect}. */
    private boolean lastTimedOut;

    ServerPath(Exchange stream, ClientEnd client, Backend backend, Attempts attempts) {
        this.stream = stream;
        this.client = client;
        this.backend = backend;
        this.attempts = attempts;
        this.slot = new ServerSlot(stream, backend, client.loop(), this);
    }

    /** The stream's server slot. */
    final ServerSlot slot() {
        return slot;
    }

    /** The stream's attempts. */
    final Attempts attempts() {
        return attempts;
    }

    // ------------------------------------------------------------------ what the stream does

    /** The stream's server connection is there (the stream is not over): the stream takes it on. */
    abstract void established(ServerConnection connection);

    /**
     * No server connection can be had (no usable server, no queue slot, connect attempts spent): the stream ends
     * (HTTP answers 503). The termination flags are set for a queue failure ({@code SQ}, {@code sQ}); otherwise they
     * are the stream's to set (HAProxy's {@code SC}).
     */
    abstract void unreachable();

    // ------------------------------------------------------------------ assignment and queue

    /**
     * Sends the stream to {@code to} (null: as the balancing decides), {@code persistent}: a cookie or a stick match
     * chose it.
     */
    final void assign(Server to, boolean persistent) {
        attempts.direct(persistent);
        // force-persist: a full queue is no reason to go elsewhere
        ServerSlot.Outcome o = slot.assign(to, persistent && !stream.persistence().forced(), null);
        if (to != null && persistent && o != ServerSlot.Outcome.QUEUE_FULL && slot.server() != to) {
            // its queue was full (maxqueue) and option redispatch balanced it: as HAProxy, the server it leaves counts a
            // redispatch once it has another, and the log's retries get their '+'
            attempts.leaving(to);
        }
        assigned(o);
    }

    /** Goes on from an assignment: connect, wait in the queue, or give up. */
    private void assigned(ServerSlot.Outcome o) {
        switch (o) {
            case ASSIGNED -> serverAssigned();
            case QUEUED -> stream.server(slot.server());
            case NO_SERVER -> unreachable();
            case QUEUE_FULL -> {
                // the server's queue holds maxqueue requests already: flags SQ
                stream.server(slot.server());
                queueFailed(Cause.SERVER_ABORT);
            }
        }
    }

    /** A slot is held on {@code slot.server()}: the stream goes there. */
    private void serverAssigned() {
        Server server = slot.server();
        stream.server(server);
        attempts.assigned(server);
        Persistence persistence = stream.persistence();
        if (attempts.direct() && server != persistence.persistTarget()) {
            // its server's queue was full and option redispatch balanced it
            attempts.direct(false);
        }
        if (!attempts.direct() && server != persistence.preferredTarget()) {
            // lbtot counts what the balancing chose, not what persistence (a cookie, a stick match) imposed, nor the last server
            stream.accounting().balanced();
        }
        persistence.stickStore(backend, server, false);
        connect(true);
    }

    /** The queue handed the stream a slot (on its loop). */
    @Override
    public final void slotGranted() {
        if (!stream.finished()) {
            woken();
            serverAssigned();
        }
    }

    /** The server the stream waited for went down and {@code option redispatch} sends it elsewhere. */
    @Override
    public final void slotRequeued() {
        if (stream.finished()) {
            return;
        }
        if (stream.persistence().forced()) {
            // force-persist: the request stays with its server, back in its queue (HAProxy leaves it in place)
            assigned(slot.assign(stream.server(), false, null));
            return;
        }
        attempts.leaving(stream.server());
        attempts.direct(false);
        redispatch();
    }

    /** {@code timeout queue} struck while waiting: flags sQ, counted as a connection failure, as HAProxy does. */
    @Override
    public final void queueTimedOut() {
        if (!stream.finished()) {
            queueFailed(Cause.SERVER_TIMEOUT);
        }
    }

    /** No slot from the queue: counted as a connection failure (econ), termination flags {@code why} and Q. */
    private void queueFailed(Cause why) {
        stream.accounting().connectError();
        stream.outcome().set(why, State.QUEUE);
        unreachable();
    }

    /** The stream goes to another server ({@code option redispatch}): assigned again, avoiding the previous one. */
    private void redispatch() {
        stream.server(null);
        assigned(slot.assign(null, false, attempts.previous()));
    }

    // ------------------------------------------------------------------ connection

    /** Inside the connector's acquire: a connection handed over now (an idle one) is not a later event. */
    private boolean acquiring;

    /** Asks for a connection to the stream's server ({@code reuse}: an idle one of that server may serve). */
    final void connect(boolean reuse) {
        Server server = stream.server();
        slot.connecting();
        stream.accounting().connecting();
        long timeout = backend.timeouts().connect();
        Txn target = stream.target();
        acquiring = true;
        try {
            backend.connector().acquire(server, client.loop(), client.loopIndex(), client.localAddress(), timeout == Timeouts.UNSET ? 0 : timeout,
                    reuse, server.sniFor(target), client.session(), target.firstRequest(), reusePolicy(server), this);
        } finally {
            acquiring = false;
        }
    }

    @Override
    public final Future<?> sessionEnd() {
        return client.closeFuture();
    }

    /**
     * The backend's {@code http-reuse}, except towards a server that gets a PROXY protocol header: a connection that
     * told the server who the client is only ever carries that client connection's requests (HAProxy 2.6 puts the
     * header's addresses in the connection's reuse key, which comes to the same).
     */
    final HttpOptions.Reuse reusePolicy(Server server) {
        // option transparent: each client connection's destination is its own
        return server.config().proxyVersion() != 0 || backend.config().options().transparent() ? HttpOptions.Reuse.NEVER : backend.http().reuse();
    }

    @Override
    public final InetSocketAddress proxiedSource() {
        return client.remoteAddress();
    }

    @Override
    public final InetSocketAddress proxiedDestination() {
        return client.localAddress();
    }

    @Override
    public final ProxyHeader.Client proxiedClient(int options) {
        TlsSession tls = client.tlsSession();
        ProxyHeader.Received received = client.proxyHeader();
        String authority = received != null && received.authority() != null ? received.authority() : tls == null ? null : tls.sni();
        String id = null;
        if ((options & dev.sluice.config.model.Server.PP_V2_UNIQUE_ID) != 0) {
            // HAProxy sends the field even without a unique-id-format: empty
            id = stream.target().uniqueId();
            id = id == null ? "" : id;
        }
        if (tls == null) {
            return new ProxyHeader.Client(null, authority, id, null, null, null, null);
        }
        return new ProxyHeader.Client(tls.alpn(), authority, id, tls.protocol(), TlsSession.openSslCipher(tls.cipher()),
                (options & dev.sluice.config.model.Server.PP_V2_SSL_KEY_ALG) != 0 ? tls.localKeyAlgorithm() : null,
                (options & dev.sluice.config.model.Server.PP_V2_SSL_SIG_ALG) != 0 ? tls.localSignatureAlgorithm() : null);
    }

    @Override
    public final void connected(ServerConnection connection) {
        if (stream.finished()) {
            connection.release();
            return;
        }
        if (!acquiring) {
            woken();
        }
        established(connection);
    }

    /** Whether the last connection attempt failed by {@code timeout connect} (HAProxy's sC rather than SC). */
    final boolean lastFailureTimedOut() {
        return lastTimedOut;
    }

    @Override
    public final void failed(Throwable cause) {
        if (stream.finished()) {
            return;
        }
        woken();
        lastTimedOut = cause instanceof ConnectTimeoutException;
        // every failed attempt counts for the analysis of live traffic (HAProxy's back_handle_st_cer); the stream stays in
        // the server's cur_sess until it leaves the server (the "sessions active" of a server it takes down count it, as
        // HAProxy's, which leaves it between the attempts but reports the transition with it)
        stream.server().observed(TrafficEvent.L4_ERR);
        if (attempts.connectFailed()) {
            retry(!(cause instanceof ConnectTimeoutException), true);
            return;
        }
        stream.accounting().connectError();
        unreachable();
    }

    /**
     * Tries again, on the same server or, as {@code option redispatch} decides, on another one (HAProxy's
     * stream_choose_redispatch); after a refused connection, staying on the server (or redispatching with a
     * single usable server) waits MIN(1s, timeout connect) first, as HAProxy 2.6 does. {@code reuse}: the same
     * server's idle connections may serve the new attempt.
     */
    final void retry(boolean refused, boolean reuse) {
        // force-persist: never redispatched
        boolean redispatch = !stream.persistence().forced() && attempts.redispatch(stream.server());
        long delay = refused && backend.waitBeforeRetry(redispatch) ? backend.retryDelay() : 0;
        if (redispatch) {
            slot.releaseForRetry();
        } else {
            stream.accounting().retried();
        }
        Runnable again = () -> {
            if (stream.finished()) {
                return;
            }
            if (redispatch) {
                redispatch();
            } else {
                connect(reuse);
            }
        };
        if (delay > 0) {
            client.loop().schedule(again, delay, TimeUnit.MILLISECONDS);
        } else {
            again.run();
        }
    }
}

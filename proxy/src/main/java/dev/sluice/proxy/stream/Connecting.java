package dev.sluice.proxy.stream;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Retries.RetryOn;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.stream.Termination.State;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Gets a {@link Stream} to its server: the server's slot (assigned, queued, requeued, timed out: {@link ServerSlot}),
 * then a connection from the backend's connector (new or reused, as {@code http-reuse} allows, keeping the client
 * connection's private ones), the request sent on it, and another attempt after a failed connect or, as
 * {@link Attempts} decides, after a failed or {@code retry-on} response. One per stream, created with its
 * {@link Attempts} and slot once the backend's rules passed; the slot and the connector call it back on the stream's
 * event loop, and it is used only there.
 */
final class Connecting implements ServerConnector.Callback, ServerSlot.Listener {
    private final Stream stream;
    private final ClientSide client;
    private final RequestHead request;
    private final Backend backend;
    private final Attempts attempts;
    private final ServerSlot slot;

    Connecting(Stream stream, ClientSide client, RequestHead request, Backend backend, Attempts attempts) {
        this.stream = stream;
        this.client = client;
        this.request = request;
        this.backend = backend;
        this.attempts = attempts;
        this.slot = new ServerSlot(stream, backend, client.loop(), this);
    }

    /** The stream's server slot. */
    ServerSlot slot() {
        return slot;
    }

    /**
     * Sends the request to {@code to} (null: as the balancing decides), {@code persistent}: a cookie or a stick match
     * chose it.
     */
    void assign(Server to, boolean persistent) {
        attempts.direct(persistent);
        assigned(slot.assign(to, persistent, null));
    }

    /** Goes on from an assignment: connect, wait in the queue, or 503. */
    private void assigned(ServerSlot.Outcome o) {
        switch (o) {
            case ASSIGNED -> serverAssigned();
            case QUEUED -> stream.server(slot.server());
            case NO_SERVER -> stream.fail(503);
            case QUEUE_FULL -> {
                // the server's queue holds maxqueue requests already: flags SQ
                stream.server(slot.server());
                queueFailed(Cause.SERVER_ABORT);
            }
        }
    }

    /** A slot is held on {@code slot.server()}: the request goes there. */
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
    public void slotGranted() {
        if (!stream.finished()) {
            serverAssigned();
        }
    }

    /** The server the stream waited for went down and {@code option redispatch} sends it elsewhere. */
    @Override
    public void slotRequeued() {
        if (!stream.finished()) {
            attempts.leaving(stream.server());
            attempts.direct(false);
            redispatch();
        }
    }

    /** {@code timeout queue} struck while waiting: 503, flags sQ, counted as a connection failure, as HAProxy does. */
    @Override
    public void queueTimedOut() {
        if (!stream.finished()) {
            queueFailed(Cause.SERVER_TIMEOUT);
        }
    }

    /** No slot from the queue: 503, counted as a connection failure (econ), termination flags {@code why} and Q. */
    private void queueFailed(Cause why) {
        stream.accounting().connectError();
        stream.outcome().set(why, State.QUEUE);
        stream.fail(503);
    }

    /** The request goes to another server ({@code option redispatch}): assigned again, avoiding the previous one. */
    private void redispatch() {
        stream.server(null);
        assigned(slot.assign(null, false, attempts.previous()));
    }

    /** Asks for a connection to the stream's server ({@code reuse}: an idle one of that server may serve). */
    void connect(boolean reuse) {
        Server server = stream.server();
        stream.accounting().connecting();
        long timeout = backend.timeouts().connect();
        StreamTarget target = stream.target();
        backend.connector().acquire(server, client.loop(), client.loopIndex(), client.localAddress(), timeout == Timeouts.UNSET ? 0 : timeout,
                reuse, server.sniFor(target), client.session(), target.firstRequest(), reusePolicy(server), this);
    }

    @Override
    public Future<?> sessionEnd() {
        return client.closeFuture();
    }

    /**
     * The backend's {@code http-reuse}, except towards a server that gets a PROXY protocol header: a connection that
     * told the server who the client is only ever carries that client connection's requests (HAProxy 2.6 puts the
     * header's addresses in the connection's reuse key, which comes to the same).
     */
    private HttpOptions.Reuse reusePolicy(Server server) {
        return server.config().sendProxy() != 0 ? HttpOptions.Reuse.NEVER : backend.http().reuse();
    }

    @Override
    public InetSocketAddress proxiedSource() {
        return client.remoteAddress();
    }

    @Override
    public InetSocketAddress proxiedDestination() {
        return client.localAddress();
    }

    @Override
    public void connected(ServerConnection connection) {
        // every server connection handler is a ServerSide (ServerConnector's HandlerFactory makes only those)
        ServerSide c = (ServerSide) connection;
        if (stream.finished()) {
            c.release();
            return;
        }
        stream.attach(c);
        HttpOptions.Reuse policy = reusePolicy(stream.server());
        if (policy == HttpOptions.Reuse.NEVER && c.owner() == null) {
            // http-reuse never: this server connection only ever serves this client connection, and goes with it
            Object session = client.session();
            c.owner(session);
            Future<?> end = client.closeFuture();
            if (end != null) {
                end.addListener(f -> c.ownerGone(session));
            }
        }
        if (policy == HttpOptions.Reuse.NEVER && c.owner() == client.session()) {
            List<ServerSide> mine = client.privateConnections();
            if (mine != null && !mine.contains(c)) {
                // closed ones go first, so that a long client connection keeps no more than its open private connections
                mine.removeIf(x -> !x.isOpen());
                mine.add(c);
            }
        }
        stream.accounting().connected(c.reused());
        attempts.sending(c);
        c.sendHead(request);
        stream.body().sendTo(c, attempts);
    }

    @Override
    public void failed(Throwable cause) {
        if (stream.finished()) {
            return;
        }
        if (attempts.connectFailed()) {
            retry(!(cause instanceof ConnectTimeoutException), true);
            return;
        }
        stream.accounting().connectError();
        stream.fail(503);
    }

    /**
     * Tries again, on the same server or, as {@code option redispatch} decides, on another one (HAProxy's
     * stream_choose_redispatch); after a refused connection, staying on the server (or redispatching with a
     * single usable server) waits MIN(1s, timeout connect) first, as HAProxy 2.6 does. {@code reuse}: the same
     * server's idle connections may serve the new attempt.
     */
    private void retry(boolean refused, boolean reuse) {
        boolean redispatch = attempts.redispatch(stream.server());
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

    /**
     * The request went out on {@code c} and failed by {@code event} or got {@code status} (0: none): sends it again when
     * {@link Attempts#afterSending} allows, a stale reused connection on a new connection at once, a {@code retry-on}
     * failure as HAProxy's L7 retries (counted as a retry, perhaps redispatched). True when it goes again.
     */
    boolean againAfterSending(RetryOn event, int status, ServerSide c) {
        RequestBody body = stream.body();
        Attempts.Again a = attempts.afterSending(event, status, c != null && c.reused(), body.ended());
        if (a == Attempts.Again.NO) {
            return false;
        }
        ServerSide x = stream.detach();
        if (x != null) {
            // a response to retry: the connection has the rest of it
            x.abort();
        }
        // HAProxy's do_l7_retry counts a retry, and stream_choose_redispatch another one unless it redispatches
        stream.accounting().retried();
        ArrayDeque<ByteBuf> replay = attempts.replayBody();
        if (replay != null) {
            body.replay(replay);
        }
        stream.accounting().responseDropped();
        if (a == Attempts.Again.STALE) {
            connect(false);
        } else {
            retry(false, true);
        }
        return true;
    }
}

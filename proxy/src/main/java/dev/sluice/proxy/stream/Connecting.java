package dev.sluice.proxy.stream;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Retries.RetryOn;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.http.RequestHead;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.Future;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Gets a {@link Stream}'s request to its server: the way to a connection is its {@link ServerPath} (slot, queue,
 * connect, connection-failure retries); here, what HTTP adds on the connection: the client connection's private ones
 * ({@code http-reuse never}), the request head and body sent on it, another attempt after a failed or {@code retry-on}
 * response as {@link Attempts} decides, and the 503 when no connection could be had. One per stream, created with its
 * {@link Attempts} and slot once the backend's rules passed; used on the stream's event loop only.
 */
final class Connecting extends ServerPath {
    private final Stream stream;
    private final ClientSide client;
    private final RequestHead request;

    Connecting(Stream stream, ClientSide client, RequestHead request, Backend backend, Attempts attempts) {
        super(stream, client, backend, attempts);
        this.stream = stream;
        this.client = client;
        this.request = request;
    }

    /** No server, no queue slot or no connection: a 503 ({@code sC} when the last attempt timed out, as HAProxy). */
    @Override
    void unreachable() {
        if (lastFailureTimedOut() && stream.outcome().cause() == Termination.Cause.NONE) {
            stream.outcome().set(Termination.Cause.SERVER_TIMEOUT, Termination.State.CONNECT);
        }
        stream.fail(503);
    }

    @Override
    void established(ServerConnection connection) {
        // every server connection handler is a ServerSide (ServerConnector's HandlerFactory makes only those)
        ServerSide c = (ServerSide) connection;
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
        Attempts attempts = attempts();
        attempts.sending(c);
        AsciiString nameHeader = stream.backend().sendNameHeader();
        if (nameHeader != null) {
            // http-send-name-header: the server this attempt goes to, after the other fields (a retry sets it again)
            request.fields().removeAll(nameHeader);
            request.fields().add(nameHeader, new AsciiString(stream.server().name()));
        }
        c.sendHead(request);
        stream.body().sendTo(c, attempts);
    }

    /**
     * The request went out on {@code c} and failed by {@code event} or got {@code status} (0: none): sends it again when
     * {@link Attempts#afterSending} allows, a stale reused connection on a new connection at once, a {@code retry-on}
     * failure as HAProxy's L7 retries (counted as a retry, perhaps redispatched). True when it goes again.
     */
    boolean againAfterSending(RetryOn event, int status, ServerSide c) {
        RequestBody body = stream.body();
        Attempts attempts = attempts();
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

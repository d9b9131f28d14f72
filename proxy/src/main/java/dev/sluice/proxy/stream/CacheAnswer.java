package dev.sluice.proxy.stream;

import dev.sluice.proxy.cache.CacheEntry;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.stream.Termination.State;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * A {@link Stream} answered by a cache (HAProxy's cache applet, after {@code http-request cache-use} found a fresh
 * entry): the stored head with {@code Age}, as 304 Not Modified when the request's If-None-Match or If-Modified-Since
 * allows it, without body for HEAD; through the response rules and compression as a server's response; no server, so
 * the log says {@code <CACHE>}, termination "LR" and no wait, connect nor response time, as HAProxy's. Stateless; on
 * the stream's event loop.
 */
final class CacheAnswer {
    private CacheAnswer() {
    }

    static void serve(Stream s, ClientSide client, CacheEntry hit) {
        s.accounting().servedLocally();
        ResponseHead head = hit.head(System.currentTimeMillis() / 1000, hit.notModified(s.request().fields()), s.request().isHead());
        s.outcome().set(Cause.LOCAL, State.REQUEST);
        if (!s.localResponse(head, head.body() != MessageHead.Body.NONE ? hit.body().length : 0)) {
            return;
        }
        client.sendHead(head);
        Compression compression = s.compression();
        if (head.body() != MessageHead.Body.NONE) {
            // the entry's bytes are never written to: a view of them goes out
            ByteBuf b = Unpooled.wrappedBuffer(hit.body());
            b = compression != null ? compression.compress(b) : b;
            if (b != null) {
                client.sendBody(b);
            }
        }
        if (compression != null) {
            compression.finish(client, s.backend());
        }
        client.sendEnd(null);
        s.log();
    }
}

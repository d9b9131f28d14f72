package dev.sluice.proxy.listener;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the {@code so_id}, {@code so_name} and {@code dst_conn} fetches read of the listener a connection came in on: its
 * id in its frontend (HAProxy's luid: the {@code id} bind option, else the bind's position), its {@code name} bind option
 * (null without one), and how many connections it holds now (HAProxy's listener nbconn: counted from the accept, before
 * the {@code tcp-request connection} rules, to the close). Kept on the listening channel, once, so that a connection
 * finds it through its parent at no cost per accept.
 */
public final class ListenerIdentity {
    static final AttributeKey<ListenerIdentity> KEY = AttributeKey.valueOf("sluice.listener");

    private final int id;
    private final String name;
    private final AtomicInteger connections = new AtomicInteger();
    /** One listener for every connection's close: nothing is made per accept. */
    private final ChannelFutureListener leave = f -> connections.decrementAndGet();

    public ListenerIdentity(int id, String name) {
        this.id = id;
        this.name = name;
    }

    public int id() {
        return id;
    }

    public String name() {
        return name;
    }

    /** The connections accepted on this listener and not closed yet (the {@code dst_conn} fetch). */
    public int connections() {
        return connections.get();
    }

    /** Marks {@code listening} (a TCP server channel, or a QUIC bind's UDP socket) as this listener's. */
    public void mark(Channel listening) {
        listening.attr(KEY).set(this);
    }

    /** {@code accepted} came in on this listener: it counts until it closes. */
    public void accepted(Channel accepted) {
        connections.incrementAndGet();
        accepted.closeFuture().addListener(leave);
    }

    /** The identity of the listener {@code ch} came in on (an HTTP/2 or QUIC stream's through its connection), or null. */
    public static ListenerIdentity of(Channel ch) {
        for (Channel c = ch; c != null; c = c.parent()) {
            if (c.hasAttr(KEY)) {
                return c.attr(KEY).get();
            }
        }
        return null;
    }
}

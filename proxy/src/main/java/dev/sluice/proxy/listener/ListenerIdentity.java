package dev.sluice.proxy.listener;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * What the {@code so_id} and {@code so_name} fetches read of the listener a connection came in on: its id in its frontend
 * (HAProxy's luid: the {@code id} bind option, else the bind's position) and its {@code name} bind option (null without
 * one). Kept on the listening channel, once, so that a connection finds it through its parent at no cost per accept.
 */
public record ListenerIdentity(int id, String name) {
    static final AttributeKey<ListenerIdentity> KEY = AttributeKey.valueOf("sluice.listener");

    /** Marks {@code listening} (a TCP server channel, or a QUIC bind's UDP socket) as this listener's. */
    public void mark(Channel listening) {
        listening.attr(KEY).set(this);
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

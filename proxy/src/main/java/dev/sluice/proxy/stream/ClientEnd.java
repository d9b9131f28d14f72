package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * The client connection of a stream as facts, whatever the stream carries: where and when it was accepted, on which
 * event loop, its TLS and PROXY protocol details, the stick counters and session it belongs to, the bytes sent back.
 * What the connection-level machinery (the server slot and connect path, persistence, counters, the log) reads of the
 * client; {@link ClientSide} adds what an HTTP stream sends to it. All calls happen on {@link #loop()}.
 */
public interface ClientEnd {
    EventLoop loop();

    /** The index of {@link #loop()} among the process's event loops. */
    int loopIndex();

    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    /** Epoch milliseconds when the client connection was accepted (the log's %t); by default its {@link #times()}'. */
    default long acceptDate() {
        return times().acceptDate();
    }

    /** {@link System#nanoTime()} when the current request started to arrive (the log's %tr and %TR). */
    long requestStartNanos();

    /** When the connection and its current stream began (the log's %t, %Th, %Ti, %Tt of HTTP streams), or null. */
    default ClientTimes times() {
        return null;
    }

    /** The current stream's accept in HAProxy's sense ({@link System#nanoTime()}; see {@link ClientTimes}). */
    default long streamAcceptNanos() {
        ClientTimes t = times();
        return t == null ? requestStartNanos() : t.streamAcceptNanos();
    }

    /** The current stream's handshake time (the log's %Th). */
    default long handshakeMs() {
        ClientTimes t = times();
        return t == null ? 0 : t.handshakeMs();
    }

    /** The HTTP encoding of the client connection on the wire (fc_http_major): 0 outside HTTP. */
    default int httpMajor() {
        return 0;
    }

    /** Whether the client connection is TLS (the log's %ft adds "~"). */
    boolean tls();

    /** The TLS SNI the client sent, or null. */
    default String sni() {
        TlsSession t = tlsSession();
        return t == null ? null : t.sni();
    }

    /** What the TLS handshake of the client connection settled (the log's %sslv and %sslc), or null in clear text. */
    TlsSession tlsSession();

    /** Bytes sent to the client for the current response so far (the log's %B). */
    long bytesOut();

    /**
     * {@code set-src}, {@code set-dst} and their port forms: the connection's source ({@code source}) or destination is
     * {@code a} from now on, for the logs, the fetches and the streams after; ignored where a client cannot change.
     */
    default void setAddress(boolean source, InetSocketAddress a) {
    }

    /** Where {@code tcp-request connection|session} rules leave the addresses they set: {source, destination}, either null. */
    AttributeKey<InetSocketAddress[]> ADDRESSES = AttributeKey.valueOf("sluice.addresses");

    /** {@code a}, or the source ({@code source}) or destination a connection or session rule set in its place on {@code ch}. */
    static InetSocketAddress overridden(Channel ch, boolean source, InetSocketAddress a) {
        InetSocketAddress[] set = ch.hasAttr(ADDRESSES) ? ch.attr(ADDRESSES).get() : null;
        InetSocketAddress v = set == null ? null : set[source ? 0 : 1];
        return v != null ? v : a;
    }

    /** Where a connection keeps the stick counters its {@code tcp-request connection} rules set. */
    AttributeKey<Trackers> SESSION_TRACKERS = AttributeKey.valueOf("sluice.session-trackers");

    /**
     * The counters of the listener the connection came in on ({@code option socket-stats}), or null: those noted on the
     * channel whose close ends this client ({@link #closeFuture()}).
     */
    default dev.sluice.proxy.listener.ListenerCounters listenerCounters() {
        return closeFuture() instanceof ChannelFuture f ? dev.sluice.proxy.listener.ListenerCounters.of(f.channel()) : null;
    }

    /** The connection's stick counters ({@code tcp-request connection track-sc*}), or null. */
    default Trackers sessionTrackers() {
        return null;
    }

    /** The client connection (session) this exchange belongs to: what {@code http-reuse} tells apart. */
    default Object session() {
        return this;
    }

    /**
     * The server connections private to this client connection, in the order they were first used (see
     * {@link ClientSide#privateConnections()}), or null when the protocol keeps none.
     */
    default List<? extends ServerConnection> privateConnections() {
        return null;
    }

    /** Completes when the client connection closes (server connections private to it close then); null: not known. */
    default Future<?> closeFuture() {
        return null;
    }

    /** What the PROXY protocol header the connection started with said ({@code bind ... accept-proxy}), or null. */
    default ProxyHeader.Received proxyHeader() {
        return null;
    }
}

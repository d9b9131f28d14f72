package dev.sluice.proxy.tcp;

import dev.sluice.proxy.tls.TestCertificate;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * The far end of a TLS connection on an embedded channel, with the JDK's engine (TLS 1.3): it reads what the proxy
 * wrote to the channel and writes into the channel as the peer. What it decrypted, and whether the proxy's close_notify
 * came, are kept in order in {@link #events()}. Used on the test's thread, which is the channel's loop.
 */
final class TlsPeer {
    private final SSLEngine engine;
    private final EmbeddedChannel ch;
    private final Runnable settle;
    private ByteBuffer in = ByteBuffer.allocate(1 << 17);
    private final ByteBuffer app = ByteBuffer.allocate(1 << 17);
    private final ByteBuffer net = ByteBuffer.allocate(1 << 17);
    private final List<String> events = new ArrayList<>();
    private boolean closeNotified;

    private TlsPeer(SSLEngine engine, EmbeddedChannel ch, Runnable settle) {
        this.engine = engine;
        this.ch = ch;
        this.settle = settle;
    }

    /**
     * A client of the proxy on {@code ch} (the proxy's client connection), offering {@code sni} (null: none) and the
     * ALPN protocols {@code alpn} (none: no ALPN).
     */
    static TlsPeer client(EmbeddedChannel ch, String sni, Runnable settle, String... alpn) throws SSLException {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols("TLSv1.3")
                .trustManager(InsecureTrustManagerFactory.INSTANCE);
        if (alpn.length > 0) {
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE, ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    alpn));
        }
        SslContext c = b.build();
        SSLEngine e = sni == null ? c.newEngine(ch.alloc()) : c.newEngine(ch.alloc(), sni, 443);
        return new TlsPeer(e, ch, settle);
    }

    /** A server the proxy connected to on {@code ch} (a server connection), with {@code cert}. */
    static TlsPeer server(EmbeddedChannel ch, TestCertificate cert, Runnable settle) throws SSLException {
        SslContext c = SslContextBuilder.forServer(cert.key(), cert.cert()).sslProvider(SslProvider.JDK).protocols("TLSv1.3").build();
        return new TlsPeer(c.newEngine(ch.alloc()), ch, settle);
    }

    /** Runs the handshake to its end (a client starts it). */
    TlsPeer handshake() throws SSLException {
        engine.beginHandshake();
        pump();
        if (engine.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING) {
            throw new IllegalStateException("handshake not finished: " + engine.getHandshakeStatus() + " " + events);
        }
        return this;
    }

    /** Sends {@code text} encrypted, then lets the proxy and the peer answer. */
    void send(String text) throws SSLException {
        wrap(ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1)));
        pump();
    }

    /** Sends a close_notify (TLS 1.3: this side's half-close; the engine may still read). */
    void closeNotify() throws SSLException {
        engine.closeOutbound();
        wrap(ByteBuffer.allocate(0));
        pump();
    }

    /** What the proxy sent, in order: {@code data:<text>} for each decrypted piece, {@code close_notify}. */
    List<String> events() {
        return events;
    }

    boolean closeNotified() {
        return closeNotified;
    }

    /** The text decrypted so far, all pieces together. */
    String text() {
        StringBuilder sb = new StringBuilder();
        for (String e : events) {
            if (e.startsWith("data:")) {
                sb.append(e, 5, e.length());
            }
        }
        return sb.toString();
    }

    /** Moves bytes both ways until neither side has more to say. */
    void pump() throws SSLException {
        for (int round = 0; round < 100; round++) {
            settle.run();
            boolean progress = false;
            Object o;
            while ((o = ch.readOutbound()) != null) {
                if (o instanceof ByteBuf b && b.isReadable()) {
                    if (in.remaining() < b.readableBytes()) {
                        ByteBuffer bigger = ByteBuffer.allocate(in.capacity() * 2 + b.readableBytes());
                        in.flip();
                        bigger.put(in);
                        in = bigger;
                    }
                    byte[] bytes = new byte[b.readableBytes()];
                    b.readBytes(bytes);
                    in.put(bytes);
                    progress = true;
                }
                ReferenceCountUtil.release(o);
            }
            in.flip();
            while (in.hasRemaining() && !engine.isInboundDone()) {
                app.clear();
                SSLEngineResult r = engine.unwrap(in, app);
                tasks();
                app.flip();
                if (app.hasRemaining()) {
                    byte[] b = new byte[app.remaining()];
                    app.get(b);
                    events.add("data:" + new String(b, StandardCharsets.ISO_8859_1));
                }
                if (r.getStatus() == SSLEngineResult.Status.CLOSED && !closeNotified) {
                    closeNotified = true;
                    events.add("close_notify");
                }
                if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW || r.bytesConsumed() == 0 && r.bytesProduced() == 0) {
                    break;
                }
            }
            in.compact();
            while (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                wrap(ByteBuffer.allocate(0));
                progress = true;
            }
            if (!progress) {
                return;
            }
        }
        throw new IllegalStateException("the TLS exchange does not settle: " + events);
    }

    private void wrap(ByteBuffer src) throws SSLException {
        do {
            net.clear();
            engine.wrap(src, net);
            tasks();
            net.flip();
            if (net.hasRemaining()) {
                ByteBuf b = Unpooled.buffer(net.remaining());
                b.writeBytes(net);
                ch.writeInbound(b);
            }
        } while (src.hasRemaining());
    }

    private void tasks() {
        Runnable t;
        while ((t = engine.getDelegatedTask()) != null) {
            t.run();
        }
    }
}

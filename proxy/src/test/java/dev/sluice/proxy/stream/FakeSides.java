package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The fake sides a {@link Stream} runs between in the stream tests: a client side and a server side (small recording
 * implementations of {@link ClientSide} and {@link ServerSide}) on an {@link EmbeddedProxy}, the fake server waiting in
 * the idle pool of backend "be"'s first server, where the real {@link ServerConnector} finds it; and the request and
 * response heads those tests build.
 */
final class FakeSides {

    /** A client connection that records what the stream asks of it. */
    static final class FakeClient implements ClientSide {
        final List<String> events = new ArrayList<>();
        final EventLoop loop;
        boolean writable = true;
        long bytesOut;

        FakeClient(EventLoop loop) {
            this.loop = loop;
        }

        @Override
        public EventLoop loop() {
            return loop;
        }

        @Override
        public int loopIndex() {
            return 0;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return EmbeddedProxy.CLIENT;
        }

        @Override
        public InetSocketAddress localAddress() {
            return EmbeddedProxy.FRONT;
        }

        @Override
        public long acceptDate() {
            return System.currentTimeMillis();
        }

        @Override
        public long requestStartNanos() {
            return System.nanoTime();
        }

        @Override
        public boolean tls() {
            return false;
        }

        @Override
        public String sni() {
            return null;
        }

        @Override
        public dev.sluice.proxy.tls.TlsSession tlsSession() {
            return null;
        }

        @Override
        public long bytesOut() {
            return bytesOut;
        }

        @Override
        public void sendHead(ResponseHead head) {
            events.add("head " + head.status());
            bytesOut += 20;
        }

        @Override
        public void sendBody(ByteBuf data) {
            bytesOut += data.readableBytes();
            events.add("body " + data.toString(StandardCharsets.US_ASCII));
            data.release();
        }

        @Override
        public void sendEnd(HttpFields trailers) {
            events.add("end");
        }

        @Override
        public void sendGenerated(ResponseHead head, byte[] body) {
            bytesOut += body.length;
            events.add("generated " + head.status() + " " + head.reason());
        }

        @Override
        public boolean isWritable() {
            return writable;
        }

        @Override
        public void flush() {
        }

        @Override
        public void pauseRequestBody() {
            events.add("pause");
        }

        @Override
        public void resumeRequestBody() {
            events.add("resume");
        }

        @Override
        public void startTunnel() {
            events.add("tunnel");
        }

        @Override
        public void sendRaw(ByteBuf data) {
            data.release();
        }

        @Override
        public void abort() {
            events.add("abort");
        }
    }

    /** A server connection that records what the stream asks of it; released, it waits in its pool again. */
    static final class FakeServer implements ServerSide {
        final List<String> events = new ArrayList<>();
        final Server server;
        Stream stream;
        boolean open = true;
        boolean writable = true;
        boolean reused;

        FakeServer(Server server) {
            this.server = server;
        }

        @Override
        public void attach(Stream s) {
            stream = s;
            events.add("attach");
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public String sni() {
            return null;
        }

        @Override
        public boolean reused() {
            return reused;
        }

        @Override
        public Server server() {
            return server;
        }

        @Override
        public void sendHead(RequestHead head) {
            events.add("head " + head.method() + " " + head.target());
        }

        @Override
        public void sendBody(ByteBuf data) {
            events.add("body " + data.toString(StandardCharsets.US_ASCII));
            data.release();
        }

        @Override
        public void sendEnd(HttpFields trailers) {
            events.add("end");
        }

        @Override
        public boolean isWritable() {
            return writable;
        }

        @Override
        public void flush() {
        }

        @Override
        public void pauseResponseBody() {
            events.add("pause");
        }

        @Override
        public void resumeResponseBody() {
            events.add("resume");
        }

        @Override
        public void startTunnel() {
            events.add("tunnel");
        }

        @Override
        public void sendRaw(ByteBuf data) {
            data.release();
        }

        @Override
        public void release() {
            events.add("release");
            stream = null;
            reused = true;
            ServerConnector.park(server, 0, this);
        }

        @Override
        public void abort() {
            events.add("abort");
            stream = null;
            open = false;
        }
    }

    final FakeClient client;
    final FakeServer server;
    private final EmbeddedProxy proxy;

    /** The fake sides on {@code proxy}, whose backend "be" has the server the fake server stands for. */
    FakeSides(EmbeddedProxy proxy) {
        this.proxy = proxy;
        this.client = new FakeClient(proxy.loop());
        this.server = new FakeServer(proxy.backend("be").servers().get(0));
        ServerConnector.park(server.server, 0, server);
    }

    /** A request without a body, started and ended on the client side: the stream got the fake server from the pool. */
    Stream ask(String method, String target, String... fields) {
        Stream s = new Stream(client, proxy.frontend(), request(method, target, -1, fields));
        s.start();
        s.onRequestEnd(null);
        return s;
    }

    /**
     * An HTTP/1.1 request head with host "a", then {@code fields} (name, value, ...), then a content-length unless
     * {@code bodyLength} is negative.
     */
    static RequestHead request(String method, String target, long bodyLength, String... fields) {
        HttpFields f = new HttpFields();
        f.add("host", "a");
        for (int i = 0; i < fields.length; i += 2) {
            f.add(fields[i], fields[i + 1]);
        }
        RequestHead r = new RequestHead(AsciiString.of(method), AsciiString.of(target), HttpVersion.HTTP_1_1, f);
        if (bodyLength >= 0) {
            f.add("content-length", Long.toString(bodyLength));
            r.bodyLength(bodyLength);
        }
        return r;
    }

    /** An HTTP/1.1 response head (reason "OK") with {@code fields} (name, value, ...), then the content-length. */
    static ResponseHead response(int status, long bodyLength, String... fields) {
        HttpFields f = new HttpFields();
        for (int i = 0; i < fields.length; i += 2) {
            f.add(fields[i], fields[i + 1]);
        }
        f.add("content-length", Long.toString(bodyLength));
        ResponseHead r = new ResponseHead(HttpVersion.HTTP_1_1, status, AsciiString.of("OK"), f);
        r.bodyLength(bodyLength);
        return r;
    }

    static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}

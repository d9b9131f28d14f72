package dev.sluice.proxy.check;

import dev.sluice.proxy.backend.ProxyHeaderWriter;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.h1.H1Error;
import dev.sluice.proxy.http.h1.H1Limits;
import dev.sluice.proxy.fcgi.FcgiCheckCodec;
import dev.sluice.proxy.http.h1.H1Parser;
import dev.sluice.proxy.http.h1.InputBuffer;
import dev.sluice.proxy.tls.TlsHandshakeHandler;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One health check on the wire: connect (bounded by {@code inter}, or by MIN(inter, timeout connect) when
 * {@code timeout check} is set), the TLS handshake when checks speak TLS, then for HTTP checks the request and
 * its response, read through the strict HTTP/1 response parser and judged by the backend's {@link Expectations}
 * once the head (or, when a rule reads the body, the whole response up to the buffer size) arrived. The connection
 * is closed after each check, as HAProxy does. Every outcome maps to HAProxy's status: refused or failed connect
 * L4CON, connect timeout L4TOUT, handshake failure or timeout L6RSP/L6TOUT, an error after connecting SOCKERR, no or
 * an invalid response L7RSP, no answer in time L7TOUT. On the check's event loop only.
 */
final class CheckRun extends ChannelInboundHandlerAdapter implements CheckAttempt, H1Parser.Sink, TlsHandshakeHandler.Callback {
    private enum Phase { CONNECT, HANDSHAKE, RESPONSE, DONE }

    private final HealthCheck check;
    private final CheckPlan plan;
    private final byte[] request;
    /** The rules the response must pass, whether it answers a HEAD, and the connect rule (null: the server's settings). */
    private final Expectations expectations;
    private final boolean headRequest;
    private final TcpCheckPlan.Connect connectRule;
    /** The connect rule's {@code proto} (null: none). */
    private final String proto;
    /** The multi-step check this run is one connection of (null: the whole check), and its session (variables). */
    private final HttpCheckChain chain;
    private final CheckSession session;
    private Phase phase = Phase.CONNECT;
    private Channel channel;
    private ScheduledFuture<?> timer;
    private H1Parser parser;
    private final InputBuffer input = new InputBuffer();
    private ResponseHead head;
    /** Whether the check speaks HTTP/2 (the response the codec hands over is HTTP/2's, whatever its HTTP/1 form says). */
    private boolean h2;
    private ByteArrayOutputStream body;

    CheckRun(HealthCheck check, byte[] request) {
        this.check = check;
        this.plan = check.plan();
        this.request = request;
        this.expectations = plan.expectations();
        this.headRequest = plan.headRequest();
        this.connectRule = plan.httpConnect();
        this.proto = null;
        this.chain = null;
        this.session = null;
    }

    /** One connection of a multi-step check: {@code request} null when the segment is only a connection. */
    CheckRun(HealthCheck check, HttpCheckChain chain, HttpCheckSteps.Segment segment, byte[] request, CheckSession session) {
        this.check = check;
        this.plan = check.plan();
        this.request = request;
        this.expectations = segment.expects();
        this.headRequest = segment.request() != null && segment.request().head();
        this.connectRule = segment.connect();
        this.proto = segment.proto();
        this.chain = chain;
        this.session = session;
    }

    @Override
    public void start() {
        long inter = check.server().config().check().inter();
        long connectLimit = plan.timeoutCheck() > 0 && plan.timeoutConnect() > 0 ? Math.min(inter, plan.timeoutConnect()) : inter;
        timer = check.loop().schedule(this::expired, connectLimit, TimeUnit.MILLISECONDS);
        TcpCheckPlan.Connect rule = connectRule;
        ConnectTarget to = rule == null ? new ConnectTarget(check.target(), check.unixTarget(), check.tls(), check.sni(), check.proxyHeaderVersion())
                : ConnectTarget.of(check, rule, rule.portExpr() == null ? null : session != null ? session
                        : new CheckSession(check.server().backend().name(), plan.bufsize(), plan.process()));
        InetSocketAddress target = to.address();
        boolean tls = to.tls();
        Bootstrap b = to.channels(new Bootstrap().group(check.loop()), check.transport())
                .option(ChannelOption.ALLOCATOR, check.transport().allocator())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectLimit + 1000))
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        int pp = to.proxyVersion();
                        if (pp != 0) {
                            ch.pipeline().addLast("pp", ProxyHeaderWriter.forCheck(pp, check.server().config().proxyV2Options()));
                        }
                        if (tls) {
                            // a connect rule's alpn replaces the server's protocols, check-alpn without one
                            SslHandler ssl = check.server().tls().context().offering(rule != null && !rule.alpn().isEmpty() ? rule.alpn()
                                    : check.server().config().check().alpn())
                                    .newHandler(ch.alloc(), to.sni(), target);
                            // the check's own timers bound the handshake
                            ssl.setHandshakeTimeoutMillis(0);
                            ch.pipeline().addLast("tls", ssl).addLast("handshake", new TlsHandshakeHandler(CheckRun.this));
                        } else {
                            fcgi(ch.pipeline());
                            if (speaksH2(null)) {
                                h2 = true;
                                ch.pipeline().addLast("h2", new H2CheckCodec(plan.bufsize()));
                            }
                            ch.pipeline().addLast("check", CheckRun.this);
                        }
                    }
                });
        channel = to.connect(b, check.transport()).addListener((ChannelFutureListener) f -> {
            if (phase == Phase.DONE) {
                f.channel().close();
                return;
            }
            if (!f.isSuccess()) {
                Throwable cause = f.cause();
                if (cause instanceof ConnectTimeoutException) {
                    finish(CheckStatus.L4TOUT, 0, "");
                } else {
                    finish(CheckStatus.L4CON, 0, errorText(cause));
                }
                return;
            }
            if (tls) {
                phase = Phase.HANDSHAKE;
                startReadTimer();
            } else {
                connected(f.channel());
            }
        }).channel();
    }

    /** {@code timeout check}: once connected, the rest of the check has that long. */
    private void startReadTimer() {
        if (plan.timeoutCheck() > 0) {
            timer.cancel(false);
            timer = check.loop().schedule(this::expired, plan.timeoutCheck(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void handshakeDone(ChannelHandlerContext ctx, TlsSession session) {
        if (phase != Phase.HANDSHAKE) {
            return;
        }
        ctx.pipeline().addAfter(ctx.name(), "check", this);
        if (speaksFcgi()) {
            ctx.pipeline().addBefore("check", "fcgi", codec());
        } else if (speaksH2(session.alpn())) {
            h2 = true;
            ctx.pipeline().addBefore("check", "h2", new H2CheckCodec(plan.bufsize()));
        }
        connected(ctx.channel());
    }

    @Override
    public void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
        if (phase == Phase.HANDSHAKE || phase == Phase.CONNECT) {
            finish(CheckStatus.L6RSP, 0, errorText(cause));
        }
    }

    /**
     * Whether the check speaks HTTP/2, as HAProxy chooses its multiplexer: the connect rule's {@code proto h2}; without
     * a {@code proto}, through the server's check settings (no rule, or {@code default}): its {@code check-proto}, else
     * h2 agreed by ALPN when it has a {@code check-alpn}, else a {@code proto h2} server; or h2 agreed by ALPN
     * ({@code alpn}: the protocol the TLS handshake chose, null before or without one) when the connect rule offers ALPN.
     */
    private boolean speaksH2(String alpn) {
        if (proto != null) {
            return proto.equals("h2");
        }
        String checkProto = check.server().config().check().proto();
        if ((connectRule == null || connectRule.useDefault()) && checkProto != null) {
            // check-proto: the checks' protocol whatever the server's
            return checkProto.equals("h2");
        }
        if ((connectRule == null || connectRule.useDefault()) && !check.server().config().check().alpn().isEmpty()) {
            // check-alpn: the protocol the handshake agreed on
            return "h2".equals(alpn);
        }
        if ((connectRule == null || connectRule.useDefault()) && "h2".equals(check.server().config().proto())) {
            return true;
        }
        return connectRule != null && !connectRule.alpn().isEmpty() && "h2".equals(alpn);
    }

    /** A {@code proto fcgi} server is checked in FastCGI: the codec goes in front of this handler. */
    private void fcgi(io.netty.channel.ChannelPipeline p) {
        if (speaksFcgi()) {
            p.addLast("fcgi", codec());
        }
    }

    /** A {@code proto fcgi} server, or {@code http-check connect proto fcgi} with the backend's FastCGI application. */
    private boolean speaksFcgi() {
        String checkProto = check.server().config().check().proto();
        if (proto == null && (connectRule == null || connectRule.useDefault()) && checkProto != null) {
            return checkProto.equals("fcgi") && check.server().backend().fcgiRules() != null;
        }
        return FcgiCheckCodec.speaksFcgi(check.server()) || plan.httpFcgi() && check.server().backend().fcgiRules() != null;
    }

    private FcgiCheckCodec codec() {
        return new FcgiCheckCodec(check.server(), check.server().backend().config().fcgiApp(), "Sluice");
    }

    private void connected(Channel ch) {
        if (phase == Phase.CONNECT) {
            startReadTimer();
        }
        if (request == null) {
            finish(check.tls() ? CheckStatus.L6OK : CheckStatus.L4OK, 0, "");
            return;
        }
        phase = Phase.RESPONSE;
        parser = new H1Parser(false, new H1Limits(plan.bufsize(), 101), this);
        parser.expectResponseTo(headRequest, false);
        ch.writeAndFlush(Unpooled.wrappedBuffer(request));
    }

    private void expired() {
        switch (phase) {
            case CONNECT -> finish(CheckStatus.L4TOUT, 0, "");
            case HANDSHAKE -> finish(CheckStatus.L6TOUT, 0, "");
            case RESPONSE -> {
                if (head != null) {
                    // what arrived is all there is: judge it (HAProxy evaluates a full buffer the same way)
                    judge();
                } else {
                    finish(expectations.timeoutStatus(), 0, "");
                }
            }
            default -> {
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (phase != Phase.RESPONSE) {
            in.release();
            return;
        }
        parser.parse(input.append(ctx.alloc(), in));
        input.compact();
    }

    @Override
    public void onHead(MessageHead h) {
        if (phase != Phase.RESPONSE || !(h instanceof ResponseHead r) || r.isInterim()) {
            return;
        }
        head = r;
        if (!expectations.readsBody()) {
            judge();
        } else {
            body = new ByteArrayOutputStream(256);
        }
    }

    @Override
    public void onBody(ByteBuf data) {
        try {
            if (phase != Phase.RESPONSE || body == null) {
                return;
            }
            int room = plan.bufsize() - body.size();
            int n = Math.min(room, data.readableBytes());
            if (n > 0) {
                byte[] b = new byte[n];
                data.getBytes(data.readerIndex(), b);
                body.write(b, 0, n);
            }
            if (body.size() >= plan.bufsize()) {
                judge();
            }
        } finally {
            data.release();
        }
    }

    @Override
    public void onEnd(HttpFields trailers) {
        if (phase == Phase.RESPONSE && head != null) {
            judge();
        }
    }

    @Override
    public void onError(H1Error error) {
        if (phase == Phase.RESPONSE) {
            finish(CheckStatus.L7RSP, 0, "");
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (phase == Phase.RESPONSE) {
            if (head == null) {
                // closed without an answer
                finish(CheckStatus.L7RSP, 0, "");
            } else if (!parser.inputClosed() && phase == Phase.RESPONSE) {
                judge();
            }
        } else if (phase == Phase.HANDSHAKE) {
            finish(CheckStatus.L6RSP, 0, "");
        }
        input.release();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        switch (phase) {
            case RESPONSE -> {
                if (head == null) {
                    finish(CheckStatus.SOCKERR, 0, errorText(cause));
                } else {
                    judge();
                }
            }
            case HANDSHAKE -> finish(CheckStatus.L6RSP, 0, errorText(cause));
            case CONNECT -> finish(CheckStatus.L4CON, 0, errorText(cause));
            default -> {
            }
        }
    }

    private void judge() {
        ResponseHead r = head;
        List<String[]> fields = new ArrayList<>(r.fields().size());
        for (int i = 0; i < r.fields().size(); i++) {
            fields.add(new String[] {r.fields().name(i).toString().toLowerCase(Locale.ROOT), r.fields().value(i).toString()});
        }
        byte[] b = body == null ? new byte[0] : body.toByteArray();
        String reason = r.reason() == null ? "" : r.reason().toString();
        if (session != null) {
            // the response fetches of the rules' samples read it (res.ver: 2.0 over HTTP/2)
            session.response(h2 ? new ResponseHead(HttpVersion.HTTP_2, r.status(), r.reason(), r.fields()) : r);
        }
        Expectations.Outcome o = expectations.evaluate(new Expectations.Response(r.status(), reason, fields, b), check.server().up(), session);
        finish(o.status(), o.code(), o.desc());
    }

    private void finish(CheckStatus status, int code, String desc) {
        if (phase == Phase.DONE) {
            return;
        }
        phase = Phase.DONE;
        if (timer != null) {
            timer.cancel(false);
        }
        if (channel != null) {
            channel.close();
        }
        Expectations.Outcome o = new Expectations.Outcome(status, code, desc);
        if (chain != null) {
            chain.segmentDone(this, o);
        } else {
            check.completed(this, o);
        }
    }

    @Override
    public void abandon() {
        phase = Phase.DONE;
        if (timer != null) {
            timer.cancel(false);
        }
        if (channel != null) {
            channel.close();
        }
    }

    /**
     * The system's words for a failure, as HAProxy prints strerror: {@code Connection refused}, without Netty's
     * {@code connect(..) failed: } prefix or the address Java appends.
     */
    static String errorText(Throwable cause) {
        Throwable c = cause;
        while (c.getCause() != null && c.getMessage() == null) {
            c = c.getCause();
        }
        String m = c.getMessage();
        if (m == null) {
            return "";
        }
        // Netty's native transport: "finishConnect(..) failed with error(-111): Connection refused"
        int failed = m.indexOf("failed");
        if (failed >= 0 && m.indexOf(": ", failed) >= 0) {
            m = m.substring(m.indexOf(": ", failed) + 2);
        }
        int colon = m.indexOf(": /");
        if (colon >= 0) {
            m = m.substring(0, colon);
        }
        return m;
    }
}

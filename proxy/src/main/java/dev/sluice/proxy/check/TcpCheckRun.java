package dev.sluice.proxy.check;

import dev.sluice.config.model.TcpCheck;
import dev.sluice.config.model.TcpCheck.ExpectKind;
import dev.sluice.proxy.backend.ProxyHeaderWriter;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.check.ProtocolExpects.Verdict;
import dev.sluice.proxy.check.TcpCheckPlan.Connect;
import dev.sluice.proxy.check.TcpCheckPlan.Expect;
import dev.sluice.proxy.check.TcpCheckPlan.Send;
import dev.sluice.proxy.check.TcpCheckPlan.SetVar;
import dev.sluice.proxy.check.TcpCheckPlan.Step;
import dev.sluice.proxy.rules.Samples;
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
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One run of a backend's tcp-check rules ({@link TcpCheckPlan}) against one server, as HAProxy 2.6's tcpcheck_main
 * plays them: connect (to the rule's port and address, with TLS, SNI, ALPN and a PROXY header as asked; a new connect
 * closes the previous connection), send, and expect, which waits for data and is evaluated again from its chain's
 * head each time more arrives, until it matches, {@code min-recv} bytes make its failure final, the server closes or
 * the buffer ({@code tune.bufsize}) is full. A send forgets what the expects before it have read. The statuses and
 * descriptions are HAProxy's: the rule's or the defaults (L7OK, L7RSP, L7TOUT), "TCPCHK did not match content 'x' at
 * step 2", " at step 1 of tcp-check (expect string 'x')" for a timeout, "(tcp-check)" for a success, or what a
 * protocol option says ({@code on-success}/{@code on-error}). Connections are closed with a reset unless the connect
 * rule asks {@code linger}. On the check's event loop only.
 */
final class TcpCheckRun implements CheckAttempt, TlsHandshakeHandler.Callback {
    private enum Conn { NONE, CONNECTING, HANDSHAKE, OPEN }

    private final TcpCheckOwner check;
    private final TcpCheckPlan rules;
    private final CheckSession session;
    /** The step to evaluate next (or to resume at). */
    private int pos;
    /** HAProxy's current_step: the last connect, send or expect started (what a failure is about). */
    private Step current;
    private Channel channel;
    /** The connection's generation: events of an earlier connection are ignored. */
    private int generation;
    /** The connect step that opened the current connection, -1 before the first. */
    private int connStep = -1;
    private Conn conn = Conn.NONE;
    private boolean tls;
    private boolean linger;
    /** The server closed its side. */
    private boolean eos;
    private Throwable error;
    /** Data arrived that no expect has read yet. */
    private boolean fresh;
    /** How much of the buffer the expects have read (a send drops it). */
    private int seen;
    /** Stopped at an expect until something arrives. */
    private boolean waiting;
    private boolean done;
    private int code;
    private ScheduledFuture<?> timer;

    TcpCheckRun(TcpCheckOwner check) {
        this.check = check;
        this.rules = check.tcpRules();
        this.session = new CheckSession(check.proxyName(), check.bufsize(), check.process());
    }

    @Override
    public void start() {
        for (TcpCheck.Var v : rules.vars()) {
            session.vars().put(v.name(), v.integer() ? (Object) Long.parseLong(v.value()) : v.value());
        }
        run();
    }

    @Override
    public void abandon() {
        done = true;
        cancelTimer();
        closeChannel();
    }

    // ------------------------------------------------------------------ the rules

    /** Evaluates the rules from {@link #pos} until one waits or the check ends. */
    private void run() {
        waiting = false;
        boolean mustRead = true;
        boolean lastRead = false;
        while (!done && pos < rules.size()) {
            Step s = rules.step(pos);
            code = 0;
            switch (s) {
                case Connect c -> {
                    current = c;
                    if (connStep == pos && conn == Conn.OPEN) {
                        // established (and handshaken): the rest of the check has 'timeout check'
                        if (check.timeoutCheck() > 0) {
                            schedule(check.timeoutCheck());
                        }
                        lastRead = false;
                        mustRead = true;
                        pos++;
                        continue;
                    }
                    if (connStep != pos || conn == Conn.NONE) {
                        open(c);
                    }
                    return;
                }
                case Send snd -> {
                    current = snd;
                    if (!send(snd)) {
                        return;
                    }
                    mustRead = true;
                    pos++;
                }
                case Expect e -> {
                    current = e;
                    if (mustRead) {
                        if (!fresh && !session.full()) {
                            if (!eos && error == null) {
                                waiting = true;
                                return;
                            }
                            if (session.length() == 0) {
                                if (error != null) {
                                    connectionProblem(CheckStatus.SOCKERR, error);
                                } else {
                                    String d = "TCPCHK got an empty response at step " + TcpCheckPlan.stepId(e);
                                    finish(e.error() != null ? e.error() : CheckStatus.L7RSP, 0,
                                            e.comment() == null ? d : d + " comment: '" + e.comment() + "'");
                                }
                                return;
                            }
                        }
                        fresh = false;
                        lastRead = eos || error != null;
                        mustRead = false;
                    }
                    Verdict v = expect(e, lastRead || session.full());
                    seen = session.length();
                    if (v == Verdict.WAIT) {
                        pos = e.head();
                        current = rules.step(pos);
                        waiting = true;
                        return;
                    }
                    if (v != Verdict.CONTINUE) {
                        return;
                    }
                    pos++;
                }
                case SetVar v -> {
                    setVar(v);
                    pos++;
                }
            }
        }
        if (!done) {
            passed();
        }
    }

    /** All rules were evaluated: the status follows the last connect, send or expect. */
    private void passed() {
        switch (current) {
            case Expect e -> {
                String desc = onSuccess(e, "");
                finish(e.ok() != null ? e.ok() : CheckStatus.L7OK, code, desc);
            }
            case Connect c -> finish(tls ? CheckStatus.L6OK : CheckStatus.L4OK, 0, c.implicit() ? "" : "(tcp-check)");
            case null, default -> finish(CheckStatus.L7OK, 0, "(tcp-check)");
        }
    }

    private void setVar(SetVar v) {
        setVar(session, v);
    }

    /** Sets (or unsets) a variable rule's variable in {@code session}; a sample that fetches nothing leaves it as it is. */
    static void setVar(CheckSession session, SetVar v) {
        if (v.value() == null && v.format() == null) {
            session.vars().remove(v.name());
            return;
        }
        Object value = v.format() != null ? v.format().render(session) : v.value().get(session);
        if (value == null) {
            return;
        }
        session.vars().put(v.name(), value instanceof byte[] b ? new String(b, StandardCharsets.ISO_8859_1) : value);
    }

    /** Writes a send rule's bytes; false when the check ended. */
    private boolean send(Send s) {
        if (error != null) {
            connectionProblem(CheckStatus.SOCKERR, error);
            return false;
        }
        byte[] data = s.data();
        if (s.format() != null) {
            String text = s.format().render(session);
            if (text.isEmpty()) {
                return true;
            }
            if (s.hex()) {
                try {
                    data = HexFormat.of().parseHex(text);
                } catch (IllegalArgumentException e) {
                    data = null;
                }
                if (data == null || data.length == 0) {
                    finish(CheckStatus.L7RSP, 0, "tcp-check send : failed to build log-format string at step " + TcpCheckPlan.stepId(s));
                    return false;
                }
            } else {
                data = text.getBytes(StandardCharsets.ISO_8859_1);
            }
        }
        if (data.length >= check.bufsize()) {
            finish(CheckStatus.L7RSP, 0, "tcp-check send : string too large (" + data.length + ") for buffer size (" + check.bufsize() + ") at step "
                    + TcpCheckPlan.stepId(s));
            return false;
        }
        // what the expects before read is gone; what came since stays for the next one
        session.consume(seen);
        seen = 0;
        int gen = generation;
        channel.writeAndFlush(Unpooled.wrappedBuffer(data)).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                failed(gen, f.cause());
            }
        });
        return true;
    }

    /** Evaluates an expect rule on what was received; {@code lastRead}: nothing more will come. */
    private Verdict expect(Expect e, boolean lastRead) {
        int len = session.length();
        if (e.kind() == ExpectKind.CUSTOM) {
            return custom(e, lastRead);
        }
        if (!lastRead) {
            if (e.bytes() != null && len < e.bytes().length || e.minRecv() > 0 && len < e.minRecv()) {
                return Verdict.WAIT;
            }
        }
        CheckStatus status = e.error() != null ? e.error() : CheckStatus.L7RSP;
        String info = "";
        boolean match = false;
        boolean failed = false;
        switch (e.kind()) {
            case STRING, BINARY -> match = indexOf(session.bytes(), len, e.bytes()) >= 0;
            case RSTRING -> match = e.regex().matcher(new String(session.bytes(), 0, Math.min(len, check.bufsize() - 1), StandardCharsets.ISO_8859_1))
                    .find();
            case RBINARY -> {
                int n = Math.min(len, (check.bufsize() - 1) / 2);
                match = e.regex().matcher(HexFormat.of().withUpperCase().formatHex(session.bytes(), 0, n)).find();
            }
            default -> {
                String text = e.format().render(session);
                byte[] pattern = null;
                if (text.isEmpty()) {
                    info = "log-format string evaluated to an empty string";
                } else if (e.kind() == ExpectKind.BINARY_LF) {
                    try {
                        pattern = HexFormat.of().parseHex(text);
                    } catch (IllegalArgumentException x) {
                        info = "Failed to parse hexastring resulting of eval of a log-format string";
                    }
                } else {
                    pattern = text.getBytes(StandardCharsets.ISO_8859_1);
                }
                if (pattern == null) {
                    status = CheckStatus.L7RSP;
                    failed = true;
                } else if (len < pattern.length) {
                    if (!lastRead) {
                        return Verdict.WAIT;
                    }
                } else {
                    match = indexOf(session.bytes(), len, pattern) >= 0;
                }
            }
        }
        if (!failed) {
            if (!match && !lastRead && e.minRecv() == -1) {
                return Verdict.WAIT;
            }
            if (match ^ e.inverse()) {
                return Verdict.CONTINUE;
            }
        }
        String desc = onError(e, match, info);
        finish(status, code, desc);
        return null;
    }

    /** The built-in parsers of the protocol options; one that passes as the last rule reports its status at once. */
    private Verdict custom(Expect e, boolean lastRead) {
        if (e.custom() == null) {
            return Verdict.CONTINUE;
        }
        Verdict v = switch (e.custom()) {
            case TcpCheck.MYSQL_GREETING -> ProtocolExpects.mysql(session, true, lastRead, rules.last(pos), e.ok());
            case TcpCheck.MYSQL_OK -> ProtocolExpects.mysql(session, false, lastRead, rules.last(pos), e.ok());
            case TcpCheck.LDAP_BIND -> ProtocolExpects.ldap(session, lastRead, e.ok());
            default -> Verdict.CONTINUE;
        };
        switch (v.kind()) {
            case FAILED -> {
                code = v.code();
                String desc = onError(e, false, v.desc());
                finish(v.status(), code, desc);
                return null;
            }
            case PASSED -> {
                // HAProxy sets the status here, then once more when the rules end (without the message)
                check.interim(this, new Expectations.Outcome(v.status(), 0, desc(v.desc())));
                return Verdict.CONTINUE;
            }
            default -> {
                return v;
            }
        }
    }

    /** HAProxy's message for a failed expect: the info, or the rule's on-error, or the generic words; then the comment. */
    private String onError(Expect e, boolean match, String info) {
        StringBuilder b = new StringBuilder();
        if (!info.isEmpty()) {
            b.append(info);
        } else if (e.onError() != null) {
            b.append(e.onError().render(session));
        } else if (rules.generic()) {
            b.append(match ? "TCPCHK matched unwanted content" : "TCPCHK did not match content");
            int step = TcpCheckPlan.stepId(e);
            switch (e.kind()) {
                case STRING -> b.append(" '").append(e.text()).append("' at step ").append(step);
                case BINARY -> b.append(" (binary) at step ").append(step);
                case RSTRING -> b.append(" (regex) at step ").append(step);
                case RBINARY -> b.append(" (binary regex) at step ").append(step);
                case STRING_LF -> b.append(" (log-format string) at step ").append(step);
                case BINARY_LF -> b.append(" (log-format binary) at step ").append(step);
                case CUSTOM -> b.append(" (custom function) at step ").append(step);
            }
        }
        if (e.comment() != null) {
            b.append(" comment: ").append(e.comment());
        }
        statusCode(e);
        return b.toString();
    }

    private String onSuccess(Expect e, String info) {
        StringBuilder b = new StringBuilder(info);
        if (e.onSuccess() != null) {
            b.append(e.onSuccess().render(session));
        } else if (rules.generic()) {
            b.append("(tcp-check)");
        }
        statusCode(e);
        return b.toString();
    }

    private void statusCode(Expect e) {
        if (e.statusCode() != null) {
            Object v = e.statusCode().get(session);
            Long n = v == null ? null : Samples.integer(v);
            if (n != null) {
                code = (int) (long) n;
            }
        }
    }

    private static int indexOf(byte[] hay, int len, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= len; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    // ------------------------------------------------------------------ the connection

    private void open(Connect c) {
        closeChannel();
        session.clear();
        seen = 0;
        fresh = false;
        eos = false;
        error = null;
        tls = false;
        connStep = pos;
        int gen = ++generation;
        conn = Conn.CONNECTING;
        linger = c.linger();
        long inter = check.inter();
        schedule(check.timeoutCheck() > 0 && check.timeoutConnect() > 0 ? Math.min(inter, check.timeoutConnect()) : inter);
        ConnectTarget to = ConnectTarget.of(check, c, session);
        InetSocketAddress target = to.address();
        String sni = to.sni();
        int proxyVersion = to.proxyVersion();
        boolean handshake = to.tls();
        tls = handshake;
        Server server = check.server();
        Bootstrap b = to.channels(new Bootstrap().group(check.loop()), check.transport())
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.ALLOCATOR, check.transport().allocator())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, inter + 1000))
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (proxyVersion != 0) {
                            ch.pipeline().addLast("pp", ProxyHeaderWriter.forCheck(proxyVersion, server.config().proxyV2Options()));
                        }
                        if (handshake) {
                            // the rule's alpn replaces the server's protocols
                            SslHandler ssl = server.tls().context().offering(c.alpn()).newHandler(ch.alloc(), sni, target);
                            ssl.setHandshakeTimeoutMillis(0);
                            ch.pipeline().addLast("tls", ssl).addLast("handshake", new TlsHandshakeHandler(TcpCheckRun.this));
                        } else {
                            ch.pipeline().addLast("check", new Link(gen));
                        }
                    }
                });
        channel = to.connect(b, check.transport()).addListener((ChannelFutureListener) f -> {
            if (done || gen != generation) {
                f.channel().close();
                return;
            }
            if (!f.isSuccess()) {
                if (f.cause() instanceof ConnectTimeoutException) {
                    connectionProblem(CheckStatus.L4TOUT, null);
                } else {
                    connectionProblem(CheckStatus.L4CON, f.cause());
                }
                return;
            }
            if (handshake) {
                conn = Conn.HANDSHAKE;
            } else {
                conn = Conn.OPEN;
                run();
            }
        }).channel();
    }

    @Override
    public void handshakeDone(ChannelHandlerContext ctx, TlsSession s) {
        if (done || ctx.channel() != channel || conn != Conn.HANDSHAKE) {
            return;
        }
        ctx.pipeline().addAfter(ctx.name(), "check", new Link(generation));
        conn = Conn.OPEN;
        run();
    }

    @Override
    public void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
        if (!done && ctx.channel() == channel && (conn == Conn.HANDSHAKE || conn == Conn.CONNECTING)) {
            connectionProblem(CheckStatus.L6RSP, cause);
        }
    }

    /** The inbound end of one connection's pipeline. */
    private final class Link extends ChannelInboundHandlerAdapter {
        private final int gen;

        Link(int gen) {
            this.gen = gen;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof ByteBuf in && !done && gen == generation) {
                    if (session.append(in) > 0 || session.full()) {
                        fresh = true;
                    }
                    if (waiting) {
                        run();
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent) {
                closed(gen);
            }
            ReferenceCountUtil.release(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            closed(gen);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failed(gen, cause);
        }
    }

    private void closed(int gen) {
        if (done || gen != generation || eos) {
            return;
        }
        eos = true;
        if (waiting) {
            run();
        }
    }

    private void failed(int gen, Throwable cause) {
        if (done || gen != generation || error != null) {
            return;
        }
        error = cause;
        if (waiting) {
            run();
        }
    }

    private void expired() {
        if (done) {
            return;
        }
        CheckStatus st = switch (conn) {
            case CONNECTING, NONE -> CheckStatus.L4TOUT;
            case HANDSHAKE -> CheckStatus.L6TOUT;
            case OPEN -> current instanceof Expect e && e.timeout() != null ? e.timeout() : CheckStatus.L7TOUT;
        };
        finish(st, 0, where());
    }

    /** A connection failure or error: the system's words, then where the rules were (option tcp-check only). */
    private void connectionProblem(CheckStatus st, Throwable cause) {
        String why = cause == null ? "" : CheckRun.errorText(cause);
        finish(st, 0, why + where());
    }

    /** HAProxy's " at step 2 of tcp-check (expect string 'x') comment: 'c'" (option tcp-check only). */
    private String where() {
        if (!rules.generic()) {
            return "";
        }
        int step = current == null ? 1 : TcpCheckPlan.stepId(current);
        if (step == 0) {
            return " at initial connection step of tcp-check";
        }
        StringBuilder b = new StringBuilder(" at step ").append(step).append(" of tcp-check");
        switch (current) {
            case Connect c -> b.append(c.port() != 0 ? " (connect port " + c.port() + ")" : " (connect)");
            case Send s -> b.append(" (send)");
            case Expect e -> b.append(switch (e.kind()) {
                case STRING -> " (expect string '" + e.text() + "')";
                case BINARY -> " (expect binary '" + e.text() + "')";
                case RSTRING -> " (expect regex)";
                case RBINARY -> " (expect binary regex)";
                case STRING_LF -> " (expect log-format string)";
                case BINARY_LF -> " (expect log-format binary)";
                case CUSTOM -> " (expect custom function)";
            });
            case null, default -> {
            }
        }
        if (current != null && current.comment() != null) {
            b.append(" comment: '").append(current.comment()).append('\'');
        }
        return b.toString();
    }

    private void schedule(long ms) {
        cancelTimer();
        timer = check.loop().schedule(this::expired, ms, TimeUnit.MILLISECONDS);
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** Closes the current connection: with a reset (HAProxy's checks do) unless its connect rule asked {@code linger}. */
    private void closeChannel() {
        Channel ch = channel;
        channel = null;
        conn = Conn.NONE;
        if (ch == null) {
            return;
        }
        if (!linger && ch.isActive()) {
            try {
                ch.config().setOption(ChannelOption.SO_LINGER, 0);
            } catch (RuntimeException e) {
                // closing normally is fine too
            }
        }
        ch.close();
    }

    private void finish(CheckStatus status, int statusCode, String desc) {
        if (done) {
            return;
        }
        done = true;
        cancelTimer();
        closeChannel();
        check.completed(this, new Expectations.Outcome(status, statusCode, desc(desc)));
    }

    /** A description as HAProxy keeps it: a C string (up to a NUL) of at most 127 characters. */
    private static String desc(String d) {
        int nul = d.indexOf('\0');
        String s = nul < 0 ? d : d.substring(0, nul);
        return s.length() > 127 ? s.substring(0, 127) : s;
    }
}

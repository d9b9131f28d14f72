package dev.sluice.proxy.check;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.ServerAgent;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerAgentCheck;
import dev.sluice.proxy.backend.ServerCommands;
import dev.sluice.proxy.backend.ServerEvents;
import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The agent check of one server ({@code agent-check}), as HAProxy 2.6 runs it: every {@code agent-inter} (else
 * {@code inter}) a TCP connection to the agent, {@code agent-send} written if any, one line read and applied by
 * {@link #applyReply}: the administrative state, then the weight, then maxconn, then the health (the agent's counter is
 * 0 or 1: rise and fall are 1). A failure to reach the agent changes nothing but its status; only an agent that says
 * {@code down}, {@code stopped} or {@code fail} takes the server down, and only when its health check (if any) agrees
 * does {@code up} bring it back. Runs on one event loop; the state is published through volatile fields.
 */
public final class AgentCheck implements ServerAgentCheck {
    /** HAProxy's CHK_ST_AGENT. */
    private static final int AGENT_BIT = 0x10;
    /** HAProxy's HCHK_DESC_LEN - 1. */
    private static final int DESC_MAX = 127;

    private final Server server;
    private final ServerAgent config;
    private final CheckPlan plan;
    private final EventLoop loop;
    private final Transport transport;
    /** When the next check runs. */
    private final CheckTimer timer;
    /** {@code agent-send}, then {@code set server ... agent-send}. */
    private volatile byte[] send;
    /** {@code set server ... agent-addr|agent-port} (null / 0: the configured ones). */
    private volatile java.net.InetAddress addrOverride;
    private volatile int portOverride;

    private volatile int health = 1;
    private volatile CheckStatus status = CheckStatus.INI;
    /** HAProxy's HCHK_STATUS_CHECKED: the agent answered without a health word ("No status change"). */
    private volatile boolean neutral;
    private volatile long duration;
    private volatile String desc = "";
    private volatile boolean running;
    private volatile boolean enabled = true;
    private long startNanos;
    private Attempt current;

    public AgentCheck(Server server, CheckPlan plan, EventLoop loop, Transport transport) {
        this(server, plan, loop, transport, 0);
    }

    /** {@code spreadPercent}: the global {@code spread-checks}. */
    public AgentCheck(Server server, CheckPlan plan, EventLoop loop, Transport transport, int spreadPercent) {
        this.timer = new CheckTimer(loop, spreadPercent, this::run, this::abandon);
        this.server = server;
        this.config = server.config().check().agent();
        this.plan = plan;
        this.loop = loop;
        this.transport = transport;
        this.send = config.send() == null ? new byte[0] : config.send().getBytes(StandardCharsets.ISO_8859_1);
    }

    public Server server() {
        return server;
    }

    @Override
    public boolean enabled() {
        return enabled;
    }

    /** {@code enable|disable agent}. Any thread. */
    @Override
    public void enabled(boolean on) {
        enabled = on;
    }

    @Override
    public void forceHealth(boolean up) {
        health = up ? 1 : 0;
    }

    @Override
    public void send(String text) {
        send = text.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void addr(java.net.InetAddress a) {
        addrOverride = a;
    }

    @Override
    public void port(int p) {
        portOverride = p;
    }

    @Override
    public int health() {
        return health;
    }

    public int rise() {
        return 1;
    }

    public int fall() {
        return 1;
    }

    /** The short status ({@code agent_status}): {@code CHECKED} after an answer without a health word. */
    public String statusInfo() {
        return neutral ? "CHECKED" : status.info();
    }

    /** The status' description ({@code agent_desc}). */
    public String statusDescription() {
        return neutral ? "No status change" : status.description();
    }

    /** {@code agent_code}: 0 after an up or down answer (statuses past HAProxy's L57DATA), else none (null). */
    public Integer code() {
        return !neutral && status.hasCode() ? 0 : null;
    }

    /** Milliseconds the last finished check took, 0 before the first (HAProxy shows 0 then). */
    public long duration() {
        return duration;
    }

    /** {@code last_agt}: what the last answer said ("via agent : down (reason)"), or the error. */
    public String desc() {
        return desc;
    }

    public boolean running() {
        return running;
    }

    /** HAProxy's agent state bits: configured (2), enabled (4), agent (0x10), in progress (1). */
    @Override
    public int stateBits() {
        return 2 | AGENT_BIT | (enabled ? 4 : 0) | (running ? 1 : 0);
    }

    @Override
    public String addr() {
        java.net.InetAddress a = addrOverride;
        return a != null ? a.getHostAddress() : config.addr();
    }

    @Override
    public int port() {
        int p = portOverride;
        return p > 0 ? p : config.port();
    }

    /** The agent's interval: {@code agent-inter}, else the server's {@code inter}. */
    long inter() {
        return config.inter() > 0 ? config.inter() : server.config().check().inter();
    }

    InetSocketAddress target() {
        InetSocketAddress srv = server.address();
        java.net.InetAddress a = addrOverride;
        return new InetSocketAddress(a != null ? a : config.addr() != null ? Addresses.literal(config.addr()) : srv.getAddress(), port());
    }

    // ------------------------------------------------------------------ schedule

    public void start(long delayMs) {
        timer.start(delayMs);
    }

    /** How long until this agent check's next run (0: running or due). Any thread. */
    public long remainingMs() {
        return timer.remainingMs();
    }

    public void stop() {
        timer.stop();
    }

    private void abandon() {
        if (current != null) {
            current.close();
            current = null;
        }
    }

    private void run() {
        if (!enabled) {
            schedule();
            return;
        }
        running = true;
        // as HAProxy's set_server_check_status(HCHK_STATUS_START): no description while a check runs
        desc = "";
        startNanos = System.nanoTime();
        current = new Attempt();
        current.start();
    }

    private void schedule() {
        timer.after(inter());
    }

    private void ended(Attempt a, CheckStatus st, String description, AgentReply reply) {
        if (a != current) {
            return;
        }
        current = null;
        running = false;
        if (timer.stopped()) {
            return;
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        if (enabled) {
            if (reply != null) {
                applyReply(reply, ms);
            } else {
                report(st, false, description, ms);
            }
        }
        schedule();
    }

    // ------------------------------------------------------------------ results

    /**
     * Applies an agent's answer with HAProxy's order: the administrative state, the weight, maxconn, then the health
     * and the server's state. On the loop (tests call it directly).
     */
    void applyReply(AgentReply r, long durationMs) {
        // HAProxy sets the agent's counter while it reads the line and commits the administrative change after: leaving
        // maintenance sees the new counter
        if (r.health() != null) {
            health = r.up() ? 1 : 0;
        }
        if (r.admin() != null) {
            int admin = server.adminState();
            switch (r.admin().toLowerCase(java.util.Locale.ROOT)) {
                case "drain" -> server.adminState(admin | Server.FORCED_DRAIN);
                case "maint" -> server.adminState(admin | Server.FORCED_MAINT);
                default -> server.adminState(admin & ~(Server.FORCED_DRAIN | Server.FORCED_MAINT));
            }
        }
        String warning = null;
        if (r.weight() != null) {
            String msg = ServerCommands.weight(server, r.weight());
            warning = msg.isEmpty() ? null : msg;
        }
        if (r.maxconn() != null) {
            String msg = maxconn(r.maxconn().substring("maxconn:".length()));
            if (warning == null) {
                warning = msg;
            }
        }
        CheckStatus st = status;
        boolean none = true;
        if (r.health() != null) {
            none = false;
            st = r.up() ? CheckStatus.L7OK : CheckStatus.L7STS;
        }
        report(st, none, r.checkDescription(warning), durationMs);
    }

    /** HAProxy's server_parse_maxconn_change_request: a decimal number; its two messages (without a line feed). */
    private String maxconn(String v) {
        int i = 0;
        while (i < v.length() && Character.isWhitespace(v.charAt(i))) {
            i++;
        }
        int start = i;
        if (i < v.length() && (v.charAt(i) == '-' || v.charAt(i) == '+')) {
            i++;
        }
        int digits = i;
        while (i < v.length() && Character.isDigit(v.charAt(i))) {
            i++;
        }
        if (i == digits) {
            return "maxconn string empty or preceded by garbage";
        }
        if (i != v.length()) {
            return "Trailing garbage in maxconn string";
        }
        long n = Long.parseLong(v.substring(start, i));
        server.maxconn((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n)));
        return null;
    }

    /**
     * HAProxy's set_server_check_status for the agent, then check_notify_*: {@code neutral} is HCHK_STATUS_CHECKED (an
     * answer without a health word: nothing changes). A failure below L7 (the agent could not be reached, timed out)
     * leaves the health alone and the server as it is.
     */
    private void report(CheckStatus st, boolean checked, String description, long durationMs) {
        String prevInfo = statusInfo();
        neutral = checked;
        status = st;
        desc = description.length() > DESC_MAX ? description.substring(0, DESC_MAX) : description;
        duration = durationMs;
        if (checked || st.result() == CheckStatus.Result.UNKNOWN) {
            return;
        }
        boolean report = false;
        if (st.result() == CheckStatus.Result.FAILED && st.hasCode() && health > 0) {
            report = true;
            health = 0;
        }
        boolean log = plan != null && plan.logsEveryCheck();
        int h = health;
        if (log && (!st.info().equals(prevInfo) || report)) {
            String line = "Agent check for " + (server.backup() ? "backup " : "") + "server " + server.backend().name() + "/" + server.name()
                    + " " + (st.result() == CheckStatus.Result.FAILED ? "failed" : "succeeded") + reason() + ", status: "
                    + (h >= 1 ? "1/1 " + (server.weight() > 0 ? "UP" : "DRAIN") : h + "/1 DOWN") + ".";
            server.backend().events().report(ServerEvents.NOTICE, line, null, ServerEvents.INFO);
        }
        if (server.maintenance() || (server.adminState() & Server.FORCED_MAINT) != 0) {
            return;
        }
        String why = log ? "" : reason();
        if (st.result() == CheckStatus.Result.FAILED) {
            if (st == CheckStatus.L7STS && h == 0 && server.up()) {
                int level = server.stopping() ? ServerEvents.NOTICE : ServerEvents.ALERT;
                server.checkedState(false, false, n -> server.backend().events().report(level,
                        ServerEvents.name(server) + " is DOWN" + why + ServerEvents.tail(server, true, n) + ".", null, level));
            }
        } else if (st.result() == CheckStatus.Result.PASSED && h >= 1 && !server.up() && healthCheckAllows()) {
            server.checkedState(true, false, n -> server.backend().events().report(ServerEvents.NOTICE,
                    ServerEvents.name(server) + " is UP" + why + ServerEvents.tail(server, false, n) + ".", null, ServerEvents.NOTICE));
        }
    }

    /** Whether the server's health check, when enabled, has the server up (HAProxy's check_notify_success). */
    private boolean healthCheckAllows() {
        var c = server.check();
        return c == null || !c.enabled() || c.health() >= c.rise();
    }

    /** {@code , reason: Layer7 wrong status, code: 0, info: "via agent : down", check duration: 1ms}. */
    String reason() {
        StringBuilder b = new StringBuilder(96).append(", reason: ").append(statusDescription());
        if (!neutral && status.hasCode()) {
            b.append(", code: 0");
        }
        if (!desc.isEmpty()) {
            b.append(", info: \"");
            HealthCheck.asciiEncode(b, desc);
            b.append('"');
        }
        if (duration >= 0) {
            b.append(", check duration: ").append(duration).append("ms");
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ one check

    /** One connection to the agent: connect, send, read one line; closed after each check. On the loop. */
    private final class Attempt extends ChannelInboundHandlerAdapter {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        private Channel channel;
        private ScheduledFuture<?> timer;
        private boolean connected;
        private boolean done;
        /** Whether the agent sent anything at all. */
        private boolean gotData;

        void start() {
            long inter = inter();
            long connectLimit = plan != null && plan.timeoutCheck() > 0 && plan.timeoutConnect() > 0 ? Math.min(inter, plan.timeoutConnect()) : inter;
            timer = loop.schedule(this::expired, connectLimit, TimeUnit.MILLISECONDS);
            Bootstrap b = new Bootstrap().group(loop).channelFactory(transport::newSocketChannel)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.ALLOCATOR, transport.allocator())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectLimit + 1000))
                    .handler(this);
            channel = b.connect(target()).addListener((ChannelFutureListener) f -> {
                if (done) {
                    f.channel().close();
                    return;
                }
                if (!f.isSuccess()) {
                    finish(f.cause() instanceof ConnectTimeoutException ? CheckStatus.L4TOUT : CheckStatus.L4CON,
                            f.cause() instanceof ConnectTimeoutException ? "" : CheckRun.errorText(f.cause()), null);
                    return;
                }
                connected = true;
                if (plan != null && plan.timeoutCheck() > 0) {
                    timer.cancel(false);
                    timer = loop.schedule(this::expired, plan.timeoutCheck(), TimeUnit.MILLISECONDS);
                }
                byte[] out = send;
                if (out.length > 0) {
                    f.channel().writeAndFlush(Unpooled.wrappedBuffer(out));
                }
            }).channel();
        }

        private void expired() {
            finish(connected ? CheckStatus.L7TOUT : CheckStatus.L4TOUT, "", null);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf in)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            try {
                gotData |= in.isReadable();
                while (!done && in.isReadable()) {
                    byte c = in.readByte();
                    if (c == '\n' || c == '\r' || c == 0) {
                        finish(null, null, AgentReply.parse(line.toString(StandardCharsets.ISO_8859_1)));
                        return;
                    }
                    if (line.size() < 16384) {
                        line.write(c);
                    }
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!done) {
                if (line.size() == 0 && !gotData) {
                    // HAProxy's agent rule set: a send (step 1), then the expect (step 2)
                    finish(CheckStatus.L7RSP, "TCPCHK got an empty response at step 2", null);
                } else {
                    // HAProxy keeps the previous status and says why
                    finish(status, "Ignoring incomplete line from agent", null);
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!done) {
                finish(connected ? CheckStatus.SOCKERR : CheckStatus.L4CON, CheckRun.errorText(cause), null);
            }
        }

        private void finish(CheckStatus st, String description, AgentReply reply) {
            if (done) {
                return;
            }
            close();
            ended(this, st, description, reply);
        }

        void close() {
            done = true;
            if (timer != null) {
                timer.cancel(false);
            }
            if (channel != null) {
                channel.close();
            }
        }
    }
}

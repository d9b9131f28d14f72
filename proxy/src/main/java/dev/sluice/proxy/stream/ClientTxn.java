package dev.sluice.proxy.stream;

import dev.sluice.config.SourceRef;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.log.LogCaptures;
import dev.sluice.proxy.rules.Network;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.tls.TlsSession;
import java.net.InetAddress;
import dev.sluice.proxy.rules.Variables;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What rules read of a stream's client connection and frontend, the same for every kind of stream (HTTP's
 * {@link StreamTarget}, the layer-4 {@link TcpTarget}): the addresses, TLS and PROXY header facts of its
 * {@link ClientEnd}, the frontend's name, and the variables (made when a rule first sets one; the {@code proc.} ones are
 * the process's, through {@link Variables}) and environment.
 */
abstract class ClientTxn<C extends ClientEnd> implements Txn {
    protected final C client;
    protected final Frontend frontend;
    private Map<String, Object> vars;
    /** Capture slots, cookies, unique id and log level (null until the frontend or a rule needs them). */
    protected LogCaptures captures;
    private SourceRef lastRule;
    private int priorityClass;
    private int priorityOffset;
    /** The stream's processing ran once more ({@link Txn#processCalls}, read by stream targets only). */
    protected int calls;

    ClientTxn(C client, Frontend frontend) {
        this.client = client;
        this.frontend = frontend;
    }

    @Override
    public InetSocketAddress clientAddress() {
        return client.remoteAddress();
    }

    @Override
    public InetSocketAddress frontendAddress() {
        return client.localAddress();
    }

    @Override
    public boolean tls() {
        return client.tls();
    }

    @Override
    public String sni() {
        return client.sni();
    }

    @Override
    public TlsSession tlsSession() {
        return client.tlsSession();
    }

    @Override
    public ProxyHeader.Received proxyHeader() {
        return client.proxyHeader();
    }

    @Override
    public io.netty.channel.Channel clientChannel() {
        return client.closeFuture() instanceof io.netty.channel.ChannelFuture f ? f.channel() : null;
    }

    @Override
    public int clientHttpMajor() {
        return client.httpMajor();
    }

    @Override
    public String frontendName() {
        return frontend.name();
    }

    /** The run for the client's current read is counted (once per read); the first run is the start's, in its read. */
    private boolean readCounted = true;

    /** The stream's processing runs once more: an event it waited for came ({@code cpu_calls}). */
    final void woken() {
        calls++;
    }

    /**
     * A client read brought what the stream runs for: the request's end or a waited body, as HAProxy's stream runs (not
     * for each piece of body it forwards); one run per read.
     */
    final void wokenByClientRead() {
        if (!readCounted) {
            readCounted = true;
            calls++;
        }
    }

    /** The client's read batch ended: its next read may run the stream again. */
    final void clientReadEnded() {
        readCounted = false;
    }

    @Override
    public int priorityClass() {
        return priorityClass;
    }

    @Override
    public int priorityOffset() {
        return priorityOffset;
    }

    /** {@code set-priority-class}, {@code set-priority-offset}: within HAProxy's bounds (queue_limit_class, queue_limit_offset). */
    public void setPriority(boolean offset, long value) {
        if (offset) {
            priorityOffset = (int) Math.clamp(value, -0x7ffff, 0x7ffff);
        } else {
            priorityClass = (int) Math.clamp(value, -0x7ff, 0x7ff);
        }
    }

    /** Linux's SO_MARK (SOL_SOCKET 1, option 36), which Netty's epoll options do not name. */
    private static final io.netty.channel.unix.IntegerUnixChannelOption SO_MARK = new io.netty.channel.unix.IntegerUnixChannelOption("SO_MARK", 1, 36);

    /** {@code set-tos}, {@code set-mark}: on the client connection's socket (an HTTP/2 stream's connection). */
    public void setSocketOption(boolean mark, int value) {
        setSocketOption(clientChannel(), mark, value);
    }

    /** {@code set-tos} ({@code mark} false) or {@code set-mark} on the socket of {@code ch} (an HTTP/2 stream's connection). */
    static void setSocketOption(io.netty.channel.Channel channel, boolean mark, int value) {
        io.netty.channel.Channel ch = Network.socketOf(channel);
        if (ch != null) {
            try {
                if (mark) {
                    ch.config().setOption(SO_MARK, value);
                } else {
                    ch.config().setOption(io.netty.channel.ChannelOption.IP_TOS, value);
                }
            } catch (io.netty.channel.ChannelException e) {
                // as HAProxy: a setsockopt that fails (EPERM without CAP_NET_ADMIN) changes nothing
            }
        }
    }

    /** {@code set-src}, {@code set-dst}...: on the client connection, for everything after. */
    public void setAddress(boolean source, InetAddress ip, int port) {
        InetSocketAddress cur = source ? client.remoteAddress() : client.localAddress();
        client.setAddress(source, Network.with(cur, ip, port));
    }

    /** The capture slots, null when neither the frontend nor a rule needed them. */
    LogCaptures captures() {
        return captures;
    }

    /** The frontend's capture slots for this stream. */
    void captures(LogCaptures c) {
        captures = c;
    }

    /** The capture slots, made when first needed (a log level, a unique id). */
    protected LogCaptures logCaptures() {
        if (captures == null) {
            captures = frontend.captures().captures();
        }
        return captures;
    }

    @Override
    public String captured(boolean isResponse, int slot) {
        return captures == null ? null : captures.get(isResponse, slot);
    }

    /** {@code capture <sample> id|len}: into the frontend's slot, when it has slots. */
    public boolean capture(boolean isResponse, int slot, CharSequence value) {
        return captures != null && captures.set(isResponse, slot, value);
    }

    /** {@code set-log-level}. */
    public void setLogLevel(int level) {
        logCaptures().level(level);
    }

    /** Where the rule that last ended a rule set of this stream was written (both kinds of stream are rule targets). */
    public void lastRule(SourceRef where) {
        lastRule = where;
    }

    @Override
    public SourceRef lastRule() {
        return lastRule;
    }

    @Override
    public Map<String, Object> vars() {
        if (vars == null) {
            vars = new Variables(frontend.process());
        }
        return vars;
    }

    @Override
    public String env(String name) {
        return frontend.process().env(name);
    }
}

package dev.sluice.peers;

import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.UpdateLog;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.List;

/**
 * One TCP session with a peer, after a {@link PeerFrameDecoder}: the handshake (as the side that connects: the hello,
 * then the status line; as the side that accepts: the three hello lines, then the status), then the messages, both
 * ways, as HAProxy 2.6's peer_io_handler runs them. Sending is {@link #pump}: acks, the live push of local updates
 * from each table's update log after the peer's position (at most {@code maxUpdates} per table and pass, never on a
 * request's path: the section's loop calls it), a lesson (every entry, timed) when the peer asked for one, the end of
 * the lesson, and confirmations. Runs on the section's event loop only.
 */
public final class PeerSession extends ChannelInboundHandlerAdapter {

    enum State {
        GET_VERSION, GET_HOST, GET_PEER, GET_STATUS, WAIT_MSG, END
    }

    private final PeersSync sync;
    private final boolean connector;
    private Peer peer;
    private State state;
    private ChannelHandlerContext ctx;
    private boolean downgrade;
    private SharedTable remoteTable;
    private final DictCache.Tx dictTx = new DictCache.Tx();
    private final DictCache.Rx dictRx = new DictCache.Rx();
    private boolean ended;
    private boolean pumpQueued;
    private final TableCodec.Result[] result = new TableCodec.Result[1];
    private volatile long calls;
    private boolean wasEstablished;

    /** A session this process opens to {@code peer}. */
    PeerSession(PeersSync sync, Peer peer) {
        this.sync = sync;
        this.peer = peer;
        this.connector = true;
        this.state = State.GET_STATUS;
    }

    /** A session a peer opened to this process. */
    PeerSession(PeersSync sync) {
        this.sync = sync;
        this.connector = false;
        this.state = State.GET_VERSION;
    }

    public Peer peer() {
        return peer;
    }

    /** HAProxy's appctx st0 for this state (WAITMSG is 7). */
    int st0() {
        return switch (state) {
            case GET_VERSION -> 1;
            case GET_HOST -> 2;
            case GET_PEER -> 3;
            case GET_STATUS -> 6;
            case WAIT_MSG -> 7;
            case END -> 11;
        };
    }

    long calls() {
        return calls;
    }

    DictCache.Tx dictTx() {
        return dictTx;
    }

    DictCache.Rx dictRx() {
        return dictRx;
    }

    SharedTable remoteTable() {
        return remoteTable;
    }

    /** The peer's address of an accepted session (null for one this process opened, as HAProxy shows it). */
    String remoteAddress() {
        return connector || ctx == null ? null : addr(ctx.channel().remoteAddress());
    }

    /** HAProxy's transport name: SSL when a TLS handler sits in front of the session, RAW otherwise. */
    String xprt() {
        return ctx != null && ctx.pipeline().toMap().values().stream().anyMatch(h -> h.getClass().getSimpleName().equals("SslHandler"))
                ? "SSL" : "RAW";
    }

    String localAddress() {
        return ctx == null ? null : addr(ctx.channel().localAddress());
    }

    private static String addr(java.net.SocketAddress a) {
        if (a instanceof java.net.InetSocketAddress in) {
            return in.getAddress().getHostAddress() + ":" + in.getPort();
        }
        return String.valueOf(a);
    }

    boolean established() {
        return state == State.WAIT_MSG;
    }

    State state() {
        return state;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (connector) {
            ByteBuf out = ctx.alloc().buffer();
            Wire.writeLine(out, Wire.hello(peer.name(), sync.localName(), sync.pid()));
            ctx.writeAndFlush(out);
            peer.statusCode = Wire.SC_CONNECTED;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (state == State.END) {
                return;
            }
            if (msg instanceof String line) {
                line(line);
            } else if (msg instanceof PeerFrame f) {
                frame(f);
            } else if (msg instanceof PeerFrameDecoder.Problem p) {
                switch (p) {
                    case LINE_TOO_LONG -> end();
                    case PROTOCOL -> error(Wire.ERR_PROTOCOL);
                    case SIZE -> error(Wire.ERR_SIZE_LIMIT);
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (state == State.WAIT_MSG) {
            pump();
        }
        ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && state == State.WAIT_MSG) {
            pump();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ended();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        end();
    }

    // ------------------------------------------------------------------ handshake

    private void line(String line) {
        switch (state) {
            case GET_VERSION -> {
                if (!line.startsWith(Wire.PROTOCOL + " ")) {
                    status(Wire.SC_ERR_PROTO);
                    return;
                }
                String v = line.substring(Wire.PROTOCOL.length() + 1);
                int dot = v.indexOf('.');
                int maj = dot > 0 ? digits(v.substring(0, dot)) : -1;
                int min = dot > 0 ? digits(v.substring(dot + 1)) : -1;
                if (maj != Wire.MAJOR || min < 0 || min > Wire.MINOR) {
                    status(Wire.SC_ERR_VERSION);
                    return;
                }
                downgrade = min == 0;
                state = State.GET_HOST;
            }
            case GET_HOST -> {
                if (!line.equals(sync.localName())) {
                    status(Wire.SC_ERR_HOST);
                    return;
                }
                state = State.GET_PEER;
            }
            case GET_PEER -> {
                int sp = line.indexOf(' ');
                if (sp < 0) {
                    status(Wire.SC_ERR_PROTO);
                    return;
                }
                Peer p = sync.peer(line.substring(0, sp));
                if (p == null) {
                    status(Wire.SC_ERR_PEER);
                    return;
                }
                PeerSession old = p.session;
                if (old != null && old != this) {
                    if (p.local()) {
                        status(Wire.SC_TRY_AGAIN);
                        return;
                    }
                    // a connection is killed: both ends wait a random time before trying again, so they do not loop
                    p.reconnectAt = sync.now() + 50 + sync.random(2000);
                    old.end();
                    p.heartbeatAt = Long.MAX_VALUE;
                    p.coll++;
                }
                peer = p;
                p.session = this;
                p.set(Peer.ALIVE);
                ByteBuf out = ctx.alloc().buffer(4);
                Wire.writeLine(out, Wire.SC_SUCCESS + "\n");
                ctx.write(out);
                sync.accepted(p, downgrade);
                startMessages();
            }
            case GET_STATUS -> {
                int code = digits(line.isEmpty() ? "" : leadingDigits(line));
                peer.statusCode = Math.max(code, 0);
                peer.lastHandshake = sync.now();
                if (code != Wire.SC_SUCCESS) {
                    end();
                    return;
                }
                sync.connected(peer);
                startMessages();
            }
            default -> {
            }
        }
    }

    private void startMessages() {
        state = State.WAIT_MSG;
        wasEstablished = true;
        remoteTable = null;
        PeerFrameDecoder d = ctx.pipeline().get(PeerFrameDecoder.class);
        if (d != null) {
            d.messages();
        }
        sync.log(peer, "connected");
    }

    private static String leadingDigits(String s) {
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i)) && i < 9) {
            i++;
        }
        return s.substring(0, i);
    }

    /** A decimal number of digits only, or -1. */
    private static int digits(String s) {
        if (s.isEmpty() || s.length() > 9 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Integer.parseInt(s);
    }

    /** The status line of a refused handshake, then the end. */
    private void status(int code) {
        ByteBuf out = ctx.alloc().buffer(4);
        Wire.writeLine(out, code + "\n");
        sync.refused(code);
        state = State.END;
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
    }

    /** An error message, then the end. */
    private void error(int type) {
        if (peer != null && type == Wire.ERR_PROTOCOL) {
            peer.protoErr++;
        }
        sync.protocolError(peer, type);
        ByteBuf out = ctx.alloc().buffer(2);
        Wire.writeShort(out, Wire.CLASS_ERROR, type);
        state = State.END;
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
    }

    /** Closes the session (HAProxy's PEER_SESS_ST_END). */
    void end() {
        if (state != State.END) {
            state = State.END;
        }
        if (ctx != null) {
            ctx.close();
        }
    }

    /** The channel is gone (or never opened): the peer is free for another session. Idempotent; on the session's loop. */
    public void ended() {
        if (ended) {
            return;
        }
        ended = true;
        state = State.END;
        if (peer != null && peer.session == this) {
            sync.sessionEnded(peer, wasEstablished);
        }
    }

    // ------------------------------------------------------------------ messages in

    private void frame(PeerFrame f) {
        peer.messagesIn++;
        switch (f.cls()) {
            case Wire.CLASS_CONTROL -> control(f.type());
            case Wire.CLASS_STICKTABLE -> {
                if (!table(f)) {
                    return;
                }
            }
            case Wire.CLASS_RESERVED -> {
                error(Wire.ERR_PROTOCOL);
                return;
            }
            default -> {
                // another class (errors included) is skipped, as HAProxy does
            }
        }
        peer.set(Peer.ALIVE);
    }

    private void control(int type) {
        switch (type) {
            case Wire.CTRL_RESYNC_REQUEST -> {
                for (SharedTable t : peer.tables) {
                    t.teachingOrigin = t.acked;
                    t.lastPushed = t.acked;
                    t.teach = null;
                    t.teachDone = false;
                }
                peer.clear(Peer.TEACH_PROCESS | Peer.TEACH_FINISHED);
                peer.set(Peer.TEACH_PROCESS);
                sync.resyncRequested(peer);
            }
            case Wire.CTRL_RESYNC_FINISHED, Wire.CTRL_RESYNC_PARTIAL -> {
                if (peer.has(Peer.LEARN_ASSIGN)) {
                    peer.clear(Peer.LEARN_ASSIGN);
                    sync.lessonEnded(peer, type == Wire.CTRL_RESYNC_FINISHED);
                }
                peer.confirm++;
            }
            case Wire.CTRL_RESYNC_CONFIRM -> {
                if (sync.stopping()) {
                    peer.set(Peer.TEACH_COMPLETE);
                    sync.taughtNewProcess(peer);
                    end();
                    return;
                }
                for (SharedTable t : peer.tables) {
                    t.lastPushed = t.teachingOrigin;
                    t.acked = t.teachingOrigin;
                    t.teach = null;
                }
                peer.clear(Peer.TEACH_PROCESS | Peer.TEACH_FINISHED);
            }
            case Wire.CTRL_HEARTBEAT -> {
                peer.reconnectAt = sync.now() + Wire.RECONNECT_TIMEOUT_MS;
                peer.rxHbt++;
            }
            default -> {
            }
        }
    }

    /** A stick-table message; false when the session ended on it. */
    private boolean table(PeerFrame f) {
        ByteBuf in = f.payload();
        switch (f.type()) {
            case Wire.STKT_DEFINE -> {
                remoteTable = TableCodec.readDefinition(in, peer.tables, result);
                if (result[0] == TableCodec.Result.MALFORMED) {
                    error(Wire.ERR_PROTOCOL);
                    return false;
                }
            }
            case Wire.STKT_SWITCH -> {
                long id = VarInt.decodeInt(in);
                if (id < 0) {
                    error(Wire.ERR_PROTOCOL);
                    return false;
                }
                remoteTable = peer.tableByRemoteId((int) id);
            }
            case Wire.STKT_UPDATE, Wire.STKT_INCUPDATE, Wire.STKT_UPDATE_TIMED, Wire.STKT_INCUPDATE_TIMED -> {
                TableCodec.Result r = TableCodec.readUpdate(in, f.type(), remoteTable, dictRx);
                if (r == TableCodec.Result.MALFORMED) {
                    error(Wire.ERR_PROTOCOL);
                    return false;
                }
                if (r == TableCodec.Result.OK) {
                    sync.learned();
                }
            }
            case Wire.STKT_ACK -> {
                if (peer.has(Peer.TEACH_PROCESS)) {
                    return true;
                }
                long id = VarInt.decodeInt(in);
                if (id < 0 || in.readableBytes() < 4) {
                    error(Wire.ERR_PROTOCOL);
                    return false;
                }
                int update = in.readInt();
                SharedTable t = peer.tableByLocalId((int) id);
                if (t != null) {
                    // the 32-bit id on the wire back to the log's 64-bit number, from the last one pushed
                    t.acked = t.lastPushed - (int) ((int) t.lastPushed - update);
                }
            }
            default -> {
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ messages out

    /** Sends what is due (HAProxy's peer_send_msgs), then flushes. Schedules another pass when a batch filled up. */
    void pump() {
        if (state != State.WAIT_MSG || ctx == null) {
            return;
        }
        calls++;
        ByteBuf out = ctx.alloc().buffer(256);
        boolean more = false;
        try {
            if (peer.has(Peer.HEARTBEAT)) {
                peer.clear(Peer.HEARTBEAT);
                Wire.writeShort(out, Wire.CLASS_CONTROL, Wire.CTRL_HEARTBEAT);
                peer.txHbt++;
                peer.messagesOut++;
            }
            if (peer.has(Peer.LEARN_ASSIGN) && sync.needsRequest()) {
                Wire.writeShort(out, Wire.CLASS_CONTROL, Wire.CTRL_RESYNC_REQUEST);
                sync.requested();
                peer.messagesOut++;
            }
            for (SharedTable t : peer.tables) {
                if (t.lastGet != t.lastAcked) {
                    TableCodec.writeAck(out, t.remoteId, t.lastGet);
                    t.lastAcked = t.lastGet;
                    peer.messagesOut++;
                }
                if (!peer.has(Peer.TEACH_PROCESS)) {
                    if (!peer.has(Peer.LEARN_ASSIGN)) {
                        more |= push(t, out);
                    }
                } else if (!peer.has(Peer.TEACH_FINISHED)) {
                    more |= teach(t, out);
                }
            }
            if (peer.has(Peer.TEACH_PROCESS) && !peer.has(Peer.TEACH_FINISHED) && !more) {
                Wire.writeShort(out, Wire.CLASS_CONTROL, sync.upToDate() ? Wire.CTRL_RESYNC_FINISHED : Wire.CTRL_RESYNC_PARTIAL);
                peer.set(Peer.TEACH_FINISHED);
                peer.messagesOut++;
            }
            while (peer.confirm > 0) {
                Wire.writeShort(out, Wire.CLASS_CONTROL, Wire.CTRL_RESYNC_CONFIRM);
                peer.confirm--;
                peer.messagesOut++;
            }
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
        if (out.isReadable()) {
            ctx.writeAndFlush(out);
        } else {
            out.release();
        }
        if (more && ctx.channel().isWritable() && !pumpQueued) {
            pumpQueued = true;
            ctx.executor().execute(() -> {
                pumpQueued = false;
                pump();
            });
        }
    }

    /** The switch to {@code t}: its definition, as HAProxy sends it each time the tables alternate. */
    private void define(SharedTable t, ByteBuf out) {
        if (peer.lastLocalTable != t) {
            TableCodec.writeDefinition(out, t);
            peer.lastLocalTable = t;
            peer.messagesOut++;
        }
    }

    /** Local updates after the peer's position, at most a batch; true when some remain. */
    private boolean push(SharedTable t, ByteBuf out) {
        UpdateLog log = t.table().updateLog();
        if (log == null) {
            return false;
        }
        UpdateLog.Batch b = log.updatesAfter(t.lastPushed, sync.maxUpdates());
        if (b.updates().isEmpty()) {
            return false;
        }
        define(t, out);
        boolean first = true;
        for (UpdateLog.Update u : b.updates()) {
            boolean incremental = !first && u.seq() == t.lastPushed + 1;
            TableCodec.writeUpdate(out, t, u.entry(), (int) u.seq(), incremental, false, dictTx);
            t.lastPushed = u.seq();
            first = false;
            peer.messagesOut++;
            sync.pushed();
        }
        return t.lastPushed < b.localUpdate();
    }

    /** The lesson: every entry of the table, timed, at most a batch per pass; true when some remain. */
    private boolean teach(SharedTable t, ByteBuf out) {
        if (t.teachDone) {
            return false;
        }
        if (t.teach == null) {
            t.teach = new ArrayDeque<>(t.table().entries());
        }
        define(t, out);
        int n = 0;
        while (!t.teach.isEmpty() && n < sync.maxUpdates()) {
            StickEntry e = t.teach.poll();
            if (e.isRemoved()) {
                continue;
            }
            TableCodec.writeUpdate(out, t, e, (int) t.teachingOrigin, false, !downgrade, dictTx);
            n++;
            peer.messagesOut++;
        }
        if (t.teach.isEmpty()) {
            t.teach = null;
            t.teachDone = true;
            return false;
        }
        return true;
    }

    /** Whether this session still has tables to teach (for tests and 'show peers'). */
    boolean teaching() {
        return peer != null && peer.has(Peer.TEACH_PROCESS) && !peer.has(Peer.TEACH_FINISHED);
    }

    List<SharedTable> tables() {
        return peer.tables;
    }
}

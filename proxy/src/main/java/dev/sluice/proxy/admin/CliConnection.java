package dev.sluice.proxy.admin;

import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.listener.SocketHandover;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * One admin socket connection: reads bytes, cuts them into commands ({@link CliLine}), runs each through
 * its {@link CliSession} and writes the answers. Non-interactive sessions close once no command is left in
 * what was received; a line longer than {@link #MAX_LINE} bytes, an idle session ({@code stats timeout}),
 * {@code quit} or the client's end of input close it too. Runs on its channel's event loop.
 */
final class CliConnection extends ChannelInboundHandlerAdapter {
    /** HAProxy reads a command and its line feed into one 16 kB buffer, less the NUL: a longer line closes the session. */
    static final int MAX_LINE = 16383;
    private static final String GETSOCKS = "_getsocks";

    private final CliSession session;
    private final AdminSockets owner;
    /** {@code expose-fd listeners} on its socket: {@code _getsocks} hands the listening sockets over. */
    private final boolean exposeFd;
    private byte[] input = new byte[256];
    private int length;
    private boolean closing;
    private boolean inputShutdown;
    /** A command answering later is running: no other command starts until its answer is written. */
    private boolean waiting;
    /** The stream being written ({@code show events -w}), or null. */
    private CliStream streaming;
    /** The stream's first chunk was written. */
    private boolean streamStarted;

    CliConnection(CliSession session, AdminSockets owner) {
        this(session, owner, false);
    }

    CliConnection(CliSession session, AdminSockets owner, boolean exposeFd) {
        this.session = session;
        this.owner = owner;
        this.exposeFd = exposeFd;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        owner.sessionStarted();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (streaming != null) {
            streaming.cancel();
            streaming = null;
        }
        owner.sessionEnded();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (closing) {
                return;
            }
            if (streaming != null) {
                // "any key to stop": what was typed is dropped with the stream
                endStream(ctx);
                return;
            }
            int n = in.readableBytes();
            if (length + n > input.length) {
                input = Arrays.copyOf(input, Math.max(input.length * 2, length + n));
            }
            in.readBytes(input, length, n);
            length += n;
        } finally {
            in.release();
        }
        process(ctx);
    }

    private void process(ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (!closing && !waiting && ctx.channel().isWritable()) {
            int end = CliLine.end(input, length);
            if (end >= MAX_LINE || end < 0 && length >= MAX_LINE) {
                close(ctx);
                return;
            }
            if (end < 0) {
                break;
            }
            String line = CliLine.text(input, end);
            System.arraycopy(input, end + 1, input, 0, length - end - 1);
            length -= end + 1;
            if (owner.handsOverSockets() && GETSOCKS.equals(CliLine.words(line).stream().findFirst().orElse(""))) {
                getsocks(ctx);
                return;
            }
            String out = session.execute(line);
            CliStream st = out == null ? session.takeStream() : null;
            if (st != null) {
                waiting = true;
                streaming = st;
                streamStarted = false;
                pump(ctx, st);
                break;
            }
            if (out == null) {
                waiting = true;
                session.pending().whenComplete((answer, e) -> ctx.executor().execute(() -> {
                    waiting = false;
                    if (closing || !ctx.channel().isActive() || !answered(ctx, answer)) {
                        return;
                    }
                    ctx.flush();
                    process(ctx);
                    if (inputShutdown && !closing && !waiting) {
                        close(ctx);
                    }
                }));
                break;
            }
            if (!answered(ctx, out)) {
                return;
            }
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        if (!ctx.channel().isWritable()) {
            // the client does not read its answers: stop taking commands until it does
            ctx.channel().config().setAutoRead(false);
        }
    }

    /**
     * {@code _getsocks}, the command of a new process started with {@code -x}: on a socket with {@code expose-fd
     * listeners} the listening sockets go to the client ({@link SocketHandover#send}), then the session ends, as in
     * HAProxy, which closes it without a word on another socket. The calls block (the first one also links them, a few
     * hundred milliseconds): they run on a thread of their own, the connection first taken off its event loop, so that
     * nothing else waits and Netty does not touch the socket meanwhile; it goes back to its loop to be closed.
     */
    private void getsocks(ChannelHandlerContext ctx) {
        closing = true;
        length = 0;
        Channel ch = ctx.channel();
        ch.config().setAutoRead(false);
        int fd = SocketHandover.descriptor(ch);
        if (!exposeFd || fd < 0) {
            ctx.close();
            return;
        }
        // what earlier commands answered goes first
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(w -> ch.deregister().addListener(d -> {
            if (!d.isSuccess() || !ch.isOpen()) {
                ch.close();
                return;
            }
            Thread.ofVirtual().name("sluice-getsocks").start(() -> {
                try {
                    SocketHandover.send(fd, owner.exportedSockets());
                } catch (SocketHandover.Failure e) {
                    System.err.println("[WARNING] " + e.getMessage());
                } catch (RuntimeException e) {
                    UnexpectedErrors.report("CliConnection _getsocks", e);
                } finally {
                    // back on its loop to close as any connection does (a channel closed off its loop ends silently)
                    ch.eventLoop().register(ch).addListener(r -> ch.close());
                }
            });
        }));
    }

    private void pump(ChannelHandlerContext ctx, CliStream st) {
        st.next().whenComplete((chunk, e) -> ctx.executor().execute(() -> {
            if (streaming != st || closing) {
                return;
            }
            if (e != null || chunk == null || !ctx.channel().isActive()) {
                endStream(ctx);
                return;
            }
            if (!chunk.isEmpty()) {
                byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
                owner.countBytesOut(bytes.length);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(bytes));
            }
            streamStarted = true;
            if (inputShutdown) {
                // the client's input ended: what there was, then the end
                endStream(ctx);
                return;
            }
            pump(ctx, st);
        }));
    }

    /** The stream stops: its separator, then the next commands (a non-interactive session closes). */
    private void endStream(ChannelHandlerContext ctx) {
        CliStream st = streaming;
        streaming = null;
        waiting = false;
        length = 0;
        st.cancel();
        if (!ctx.channel().isActive() || !answered(ctx, session.afterStream())) {
            return;
        }
        ctx.flush();
        if (session.mode() == CliSession.Mode.NON_INTERACTIVE || inputShutdown) {
            close(ctx);
        }
    }

    /** Writes an answer; false when the session ended with it (then everything was flushed or closed). */
    private boolean answered(ChannelHandlerContext ctx, String out) {
        if (session.quit()) {
            close(ctx);
            return false;
        }
        byte[] bytes = out.getBytes(StandardCharsets.UTF_8);
        owner.countBytesOut(bytes.length);
        ctx.write(Unpooled.wrappedBuffer(bytes));
        if (session.mode() == CliSession.Mode.NON_INTERACTIVE && length == 0) {
            close(ctx);
            return false;
        }
        return true;
    }

    /**
     * Sends what was written, then ends the session: the output side is shut at once and the connection
     * closes when the client's end of input arrives (what it still sends is dropped), so a client that was
     * still writing gets a clean end rather than a reset. The idle timeout closes it if the client never ends.
     */
    private void close(ChannelHandlerContext ctx) {
        closing = true;
        length = 0;
        ChannelFuture f = ctx.writeAndFlush(Unpooled.EMPTY_BUFFER);
        if (ctx.channel() instanceof DuplexChannel d && !inputShutdown) {
            f.addListener(x -> d.shutdownOutput());
            // a client that keeps sending after the end gets the stats timeout, then a plain close
            ctx.executor().schedule(() -> {
                ctx.close();
            }, owner.timeoutMs(), TimeUnit.MILLISECONDS);
        } else {
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && !closing) {
            ctx.channel().config().setAutoRead(true);
            process(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            // the client is done sending: answer what is complete, then close (a partial line is dropped)
            inputShutdown = true;
            if (closing) {
                ctx.close();
                return;
            }
            if (streaming != null) {
                // as HAProxy: the end of the client's input stops a stream (then the separator, and the session ends),
                // once its first chunk, what there was, is written
                if (streamStarted) {
                    endStream(ctx);
                }
                return;
            }
            process(ctx);
            if (!closing && !waiting) {
                close(ctx);
            }
            return;
        }
        if (evt instanceof IdleStateEvent) {
            if (closing) {
                ctx.close();
            } else {
                close(ctx);
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // resets and the like end this session only
        UnexpectedErrors.report("CliConnection", cause);
        ctx.close();
    }
}

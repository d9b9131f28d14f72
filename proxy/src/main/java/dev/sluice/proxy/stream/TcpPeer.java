package dev.sluice.proxy.stream;

import io.netty.buffer.ByteBuf;

/**
 * One socket of a layer-4 stream ({@link TcpStream}) as its relay ({@link TcpRelay}) drives it: bytes written through
 * without a copy, flushed once per read batch, reading paused while the other socket cannot take more (back-pressure),
 * a FIN sent after what was written, a close. The client connection ({@link TcpClientSide}) and the server connection
 * ({@link TcpServerSide}) are both one. All calls happen on the stream's event loop.
 */
public interface TcpPeer {
    /** Writes {@code data} (taking ownership) without flushing it. */
    void write(ByteBuf data);

    /** Flushes what was written since the last flush, if anything. */
    void flush();

    /** Whether the socket takes more bytes now (its pending writes are under the high water mark). */
    boolean isWritable();

    /** Bytes written and not yet handed to the kernel: a write in progress shows as this count going down. */
    long pendingBytes();

    /** Reads from the socket ({@code on}) or stops reading (the other socket is not writable). */
    void reading(boolean on);

    /** Sends a FIN once what was written is out, then runs {@code done} (also when the socket failed meanwhile). */
    void shutdownOutput(Runnable done);

    /** Closes the socket now; what is still pending is dropped. */
    void close();

    /**
     * A kernel splice from this socket to {@code target} ({@code pipeSize}: the pipe's size, 0: the system's), telling
     * {@code drained} when pipe bytes went out; null where it cannot be (TLS, not epoll, no pipe).
     */
    default TcpSplice spliceTo(TcpPeer target, int pipeSize, Runnable drained) {
        return null;
    }

    /** Closes the socket now with a reset (no FIN). */
    default void reset() {
        close();
    }

    /** {@code silent-drop}: closes the socket without sending anything where the platform allows, else resets it. */
    default void dropSilently() {
        reset();
    }
}

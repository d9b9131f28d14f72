package dev.sluice.proxy.stream;

/**
 * One direction of a layer-4 stream moved by the kernel ({@code option splice-*}): the source socket's bytes go into a
 * pipe and from it to the target socket, never through the process. Driven by the relay at the end of each read
 * batch of the source; a full pipe pauses the source until what it holds went out. Used on the stream's event loop.
 */
public interface TcpSplice {
    /** Moves what the source socket has, as far as the pipe has room, on its way to the target: the bytes moved. */
    long pump();

    /** Whether the pipe is full (the source waits for the target). */
    boolean full();

    /** Closes the pipe. */
    void close();
}

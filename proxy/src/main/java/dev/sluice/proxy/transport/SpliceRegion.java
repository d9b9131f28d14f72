package dev.sluice.proxy.transport;

import io.netty.channel.FileRegion;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.util.AbstractReferenceCounted;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * Bytes waiting in a pipe, written to an epoll socket channel as a {@link FileRegion}: Netty's epoll channel writes a
 * region that is not a file's by calling {@link #transferTo} when the socket can take more (EPOLLOUT), in order with
 * the buffers written before and after it, and completes its promise once all of it went; here each call splices from
 * the pipe to the socket. The region's {@code count} is what the pipe holds for it (already spliced in), so the pipe
 * is never found empty. Used on the channel's event loop only.
 */
public final class SpliceRegion extends AbstractReferenceCounted implements FileRegion {
    private final SpliceCalls calls;
    private final int pipe;
    private final int socket;
    private final long count;
    private long transferred;

    /** {@code count} bytes of the pipe whose read end is {@code pipe}, to {@code target}'s socket. */
    public SpliceRegion(SpliceCalls calls, int pipe, AbstractEpollStreamChannel target, long count) {
        this.calls = calls;
        this.pipe = pipe;
        this.socket = target.fd().intValue();
        this.count = count;
    }

    @Override
    public long position() {
        return 0;
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    @Override
    public long count() {
        return count;
    }

    /** Splices what is left towards the socket: the bytes moved, 0 when it takes nothing now. */
    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
        long n = calls.splice(pipe, socket, count - transferred);
        if (n == SpliceCalls.AGAIN) {
            return 0;
        }
        if (n == 0) {
            throw new IOException("the splice pipe ran dry: " + transferred + " of " + count + " bytes");
        }
        transferred += n;
        return n;
    }

    @Override
    protected void deallocate() {
        // the pipe is its owner's
    }

    @Override
    public SpliceRegion retain() {
        super.retain();
        return this;
    }

    @Override
    public SpliceRegion retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public SpliceRegion touch() {
        return this;
    }

    @Override
    public SpliceRegion touch(Object hint) {
        return this;
    }
}

package dev.sluice.proxy.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Linux's splice(2) and the pipes it moves bytes through, called through the JDK's foreign function interface: the
 * kernel half of {@code option splice-*} (a socket's bytes go to a pipe and from the pipe to the other socket without
 * entering the process). Every call is non-blocking ({@code SPLICE_F_NONBLOCK}, {@code O_NONBLOCK} pipes) and answers
 * a count, or {@link #AGAIN} when nothing could move now, or throws with errno's number for anything else.
 * {@link #available()} says whether the calls link here (Linux with glibc). One instance per thread (its errno
 * capture buffer is its own).
 */
public final class SpliceCalls {
    /** Nothing could move now (EAGAIN): the source is empty or the destination full. */
    public static final long AGAIN = -2;

    private static final int EAGAIN = 11;
    private static final int O_NONBLOCK = 0x800;
    private static final int O_CLOEXEC = 0x80000;
    private static final int F_SETPIPE_SZ = 1031;
    private static final int F_GETPIPE_SZ = 1032;
    private static final int SPLICE_F_MOVE = 1;
    private static final int SPLICE_F_NONBLOCK = 2;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final class Calls {
        static final Linker LINKER = Linker.nativeLinker();
        static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
        static final MethodHandle SPLICE = LINKER.downcallHandle(LINKER.defaultLookup().find("splice").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), ERRNO);
        static final MethodHandle PIPE2 = LINKER.downcallHandle(LINKER.defaultLookup().find("pipe2").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), ERRNO);
        static final MethodHandle FCNTL = LINKER.downcallHandle(LINKER.defaultLookup().find("fcntl").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                Linker.Option.firstVariadicArg(2), ERRNO);
        static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private static final boolean AVAILABLE = link();

    private final MemorySegment state = Arena.ofAuto().allocate(CALL_STATE);
    private final MemorySegment fds = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 2);

    private static boolean link() {
        try {
            return System.getProperty("os.name", "").startsWith("Linux") && Calls.SPLICE != null && Calls.CLOSE != null;
        } catch (Throwable e) {
            return false;
        }
    }

    /** Whether splice(2) can be called here. */
    public static boolean available() {
        return AVAILABLE;
    }

    /** A failed call: errno's number. */
    public static final class Failure extends java.io.IOException {
        public final int errno;

        Failure(String call, int errno) {
            super(call + " failed: errno " + errno);
            this.errno = errno;
        }
    }

    /**
     * A new non-blocking pipe: {read end, write end}; its capacity set to {@code size} bytes when above 0
     * ({@code tune.pipesize}; the kernel rounds it up to pages, and refuses more than {@code /proc/sys/fs/pipe-max-size}
     * to an unprivileged process: the pipe keeps its default size then).
     */
    public int[] pipe(int size) throws Failure {
        int rc;
        try {
            rc = (int) Calls.PIPE2.invokeExact(state, fds, O_NONBLOCK | O_CLOEXEC);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (rc != 0) {
            throw new Failure("pipe2", errno());
        }
        int[] p = {fds.getAtIndex(ValueLayout.JAVA_INT, 0), fds.getAtIndex(ValueLayout.JAVA_INT, 1)};
        if (size > 0) {
            try {
                int ignored = (int) Calls.FCNTL.invokeExact(state, p[1], F_SETPIPE_SZ, size);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
        return p;
    }

    /** The capacity of the pipe whose end is {@code fd}. */
    public int pipeSize(int fd) throws Failure {
        int rc;
        try {
            rc = (int) Calls.FCNTL.invokeExact(state, fd, F_GETPIPE_SZ, 0);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (rc < 0) {
            throw new Failure("fcntl", errno());
        }
        return rc;
    }

    /**
     * Moves at most {@code len} bytes from {@code in} to {@code out} (one of them a pipe): the count moved, 0 at the end
     * of {@code in}'s stream, {@link #AGAIN} when nothing could move now.
     */
    public long splice(int in, int out, long len) throws Failure {
        long n;
        try {
            n = (long) Calls.SPLICE.invokeExact(state, in, MemorySegment.NULL, out, MemorySegment.NULL, len,
                    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (n >= 0) {
            return n;
        }
        int e = errno();
        if (e == EAGAIN) {
            return AGAIN;
        }
        throw new Failure("splice", e);
    }

    /** Closes {@code fd} (a pipe's end); errors are ignored. */
    public static void close(int fd) {
        try {
            int ignored = (int) Calls.CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            // nothing to do
        }
    }

    private int errno() {
        return (int) ERRNO.get(state, 0L);
    }
}

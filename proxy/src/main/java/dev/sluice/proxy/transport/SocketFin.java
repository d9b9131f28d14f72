package dev.sluice.proxy.transport;

import io.netty.channel.Channel;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A FIN sent on an epoll socket by {@code shutdown(fd, SHUT_WR)} itself, through the JDK's foreign function interface.
 * Netty's {@code shutdownOutput} makes an exception with its stack trace on every call, to fail the writes still queued
 * (a layer-4 relay sends its FIN once they are out, so there are none): under connection churn that trace was an
 * eighth of the proxy's allocation. Netty is not told: the channel is not written to after its FIN (the relay's rule),
 * and its peer's FIN then closes it ({@code ALLOW_HALF_CLOSURE} off), so nothing reads the state it would have kept.
 * Where the call cannot be made (another transport, not Linux, no native access) {@link #send} says so and the caller
 * uses Netty's.
 */
public final class SocketFin {
    private static final int SHUT_WR = 1;
    private static final int SOL_SOCKET = 1;
    private static final int SO_ERROR = 4;
    private static final MethodHandle SHUTDOWN = link();
    private static final MethodHandle GETSOCKOPT = linkGetsockopt();

    /** What {@link #send} did. */
    public enum Result {
        /** The FIN went. */
        SENT,
        /** The socket refused it (its peer reset it, or it is closed). */
        FAILED,
        /** Not an epoll socket, or the call cannot be made here: use Netty's shutdown. */
        UNAVAILABLE
    }

    private SocketFin() {
    }

    private static MethodHandle link() {
        try {
            if (!System.getProperty("os.name", "").startsWith("Linux")) {
                return null;
            }
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("shutdown").map(a -> linker.downcallHandle(a,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            // no native access: Netty's shutdown
            return null;
        }
    }

    private static MethodHandle linkGetsockopt() {
        try {
            if (!System.getProperty("os.name", "").startsWith("Linux")) {
                return null;
            }
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("getsockopt").map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * Whether {@code ch}'s socket holds an error its peer caused (a reset: SO_ERROR), for a socket whose end was heard
     * without a read (Netty reports EPOLLRDHUP as the end of the input, a reset too, when nothing reads the socket, as
     * when it is spliced). False when it cannot tell.
     */
    public static boolean failed(Channel ch) {
        if (GETSOCKOPT == null || !(ch instanceof AbstractEpollStreamChannel e) || !ch.isOpen()) {
            return false;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
            MemorySegment len = a.allocateFrom(ValueLayout.JAVA_INT, 4);
            int rc = (int) GETSOCKOPT.invokeExact(e.fd().intValue(), SOL_SOCKET, SO_ERROR, v, len);
            return rc != 0 || v.get(ValueLayout.JAVA_INT, 0) != 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** Sends {@code ch}'s FIN if it is an open epoll socket (call on its event loop, once what was written is out). */
    public static Result send(Channel ch) {
        if (SHUTDOWN == null || !(ch instanceof AbstractEpollStreamChannel e) || !ch.isActive()) {
            return Result.UNAVAILABLE;
        }
        try {
            int rc = (int) SHUTDOWN.invokeExact(e.fd().intValue(), SHUT_WR);
            return rc == 0 ? Result.SENT : Result.FAILED;
        } catch (Throwable t) {
            return Result.UNAVAILABLE;
        }
    }
}

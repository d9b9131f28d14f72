package dev.sluice.proxy.transport;

import io.netty.channel.Channel;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
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
    private static final MethodHandle SHUTDOWN = link();

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

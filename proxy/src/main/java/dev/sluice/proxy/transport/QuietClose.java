package dev.sluice.proxy.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.UnixChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * HAProxy's {@code silent-drop}: a TCP socket put in repair mode ({@code TCP_REPAIR}, Linux, needs CAP_NET_ADMIN) closes
 * without sending anything, neither a FIN nor a reset, so the client keeps waiting on a connection the proxy forgot.
 * One {@code setsockopt} through the JDK's foreign function interface on the epoll transport's descriptor; where it is
 * not possible (NIO transport, no privilege, not Linux) the caller falls back to a reset, as HAProxy falls back to its
 * TTL trick.
 */
public final class QuietClose {
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_REPAIR = 19;
    private static final MethodHandle SETSOCKOPT = setsockopt();

    private QuietClose() {
    }

    private static MethodHandle setsockopt() {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("setsockopt").map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            // no native access: the reset fallback
            return null;
        }
    }

    /**
     * Makes the next close of {@code ch} silent ({@link #quiet}) or, where that is not possible, a reset (no lingering),
     * HAProxy's fallback; true when it is silent.
     */
    public static boolean prepare(Channel ch) {
        if (quiet(ch)) {
            return true;
        }
        if (ch instanceof SocketChannel && ch.isActive()) {
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
        }
        return false;
    }

    /** Puts {@code ch}'s socket in repair mode so that closing it sends nothing; true when it did. */
    public static boolean quiet(Channel ch) {
        if (SETSOCKOPT == null || !(ch instanceof UnixChannel u) || !ch.isActive()) {
            return false;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment one = a.allocateFrom(ValueLayout.JAVA_INT, 1);
            int rc = (int) SETSOCKOPT.invokeExact(u.fd().intValue(), IPPROTO_TCP, TCP_REPAIR, one, 4);
            return rc == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}

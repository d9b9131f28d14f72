package dev.sluice.proxy.listener;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Checks and prepares a listening socket inherited from the parent process ({@code bind fd@<n>}):
 * it must be an open socket in the listening state, and it is switched to non-blocking mode (the event
 * loop accepts until EAGAIN, so a blocking socket would stall it). Uses the C library through the
 * foreign-function API ({@code --enable-native-access=ALL-UNNAMED}); called once per bind at start-up.
 */
public final class InheritedSocket {
    private InheritedSocket() {
    }

    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_ACCEPTCONN = 30;
    private static final int SO_TYPE = 3;
    private static final int SOCK_STREAM = 1;

    private static final MethodHandle FCNTL;
    private static final MethodHandle GETSOCKOPT;

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        FCNTL = linker.downcallHandle(libc.find("fcntl").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                Linker.Option.firstVariadicArg(2));
        GETSOCKOPT = linker.downcallHandle(libc.find("getsockopt").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    }

    /** Throws {@link IllegalArgumentException} explaining why {@code fd} cannot be used as a listener. */
    public static void prepare(int fd) {
        try {
            int flags = (int) FCNTL.invokeExact(fd, F_GETFL, 0);
            if (flags < 0) {
                throw new IllegalArgumentException("fd@" + fd + " is not an open file descriptor in this process");
            }
            if (sockopt(fd, SO_TYPE) != SOCK_STREAM) {
                throw new IllegalArgumentException("fd@" + fd + " is not a stream socket");
            }
            if (sockopt(fd, SO_ACCEPTCONN) != 1) {
                throw new IllegalArgumentException("fd@" + fd + " is not a listening socket (call listen() before handing it over)");
            }
            if ((flags & O_NONBLOCK) == 0) {
                int r = (int) FCNTL.invokeExact(fd, F_SETFL, flags | O_NONBLOCK);
                if (r < 0) {
                    throw new IllegalArgumentException("fd@" + fd + " cannot be made non-blocking");
                }
            }
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalArgumentException("fd@" + fd + ": " + t, t);
        }
    }

    private static final int SO_DOMAIN = 39;
    private static final int AF_UNIX = 1;

    /** Whether {@code fd} is a UNIX-domain socket (checked after {@link #prepare}). */
    public static boolean isUnix(int fd) {
        try {
            return sockopt(fd, SO_DOMAIN) == AF_UNIX;
        } catch (Throwable t) {
            throw new IllegalArgumentException("fd@" + fd + ": " + t, t);
        }
    }

    private static int sockopt(int fd, int opt) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment val = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, 4);
            int r = (int) GETSOCKOPT.invokeExact(fd, SOL_SOCKET, opt, val, len);
            if (r < 0) {
                throw new IllegalArgumentException("fd@" + fd + " is not a socket");
            }
            return val.get(ValueLayout.JAVA_INT, 0);
        }
    }
}

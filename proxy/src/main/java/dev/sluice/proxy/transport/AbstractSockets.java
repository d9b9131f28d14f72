package dev.sluice.proxy.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Stream sockets in Linux's abstract namespace ({@code abns@<name>}) made as HAProxy 2.6 makes them, so that each reaches
 * the other's: the address is the whole {@code struct sockaddr_un} (110 bytes), its {@code sun_path} a NUL, the name, then
 * NULs. Netty's native calls take the address length from the path's bytes, and refuse (or read past the array for) a
 * path of the full 108 bytes, so these sockets are made here through the foreign-function API, non-blocking, and handed
 * to Netty's epoll channels as descriptors. Static; the calls do not block (a UNIX stream connect succeeds or fails at once).
 */
public final class AbstractSockets {
    private AbstractSockets() {
    }

    /** Where an abstract socket is, as a {@link SocketAddress}: {@code abns@<name>}. */
    public static final class Address extends SocketAddress {
        private final String name;

        public Address(String name) {
            this.name = name;
        }

        public String name() {
            return name;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Address a && a.name.equals(name);
        }

        @Override
        public int hashCode() {
            return name.hashCode();
        }

        @Override
        public String toString() {
            return "abns@" + name;
        }
    }

    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_NONBLOCK = 04000;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int SOCKADDR_UN = 110;
    private static final int SUN_PATH = 108;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** Linked at the first use only: most configurations have no abstract socket. */
    private static final class Calls {
        static final MethodHandle SOCKET = withErrno("socket", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        static final MethodHandle BIND = withErrno("bind", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        static final MethodHandle LISTEN = withErrno("listen", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT));
        static final MethodHandle CONNECT = withErrno("connect", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        static final MethodHandle STRERROR = LINKER.downcallHandle(LINKER.defaultLookup().find("strerror").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

        private static MethodHandle withErrno(String name, FunctionDescriptor fd) {
            return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, Linker.Option.captureCallState("errno"));
        }
    }

    /**
     * The {@code sun_path} of {@code abns@name} as HAProxy 2.6's {@code str2sa_range} fills it: a NUL, the name's bytes, NULs up
     * to 108 bytes.
     */
    public static byte[] sunPath(String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        if (n.length > SUN_PATH - 1) {
            throw new IllegalArgumentException("abstract socket name too long (max " + (SUN_PATH - 1) + ")");
        }
        byte[] p = new byte[SUN_PATH];
        System.arraycopy(n, 0, p, 1, n.length);
        return p;
    }

    /** A non-blocking socket listening on {@code abns@name}; the caller owns the descriptor. */
    public static int listen(String name, int backlog) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int fd = socket(state);
            boolean ok = false;
            try {
                if ((int) Calls.BIND.invokeExact(state, fd, address(a, name), SOCKADDR_UN) < 0) {
                    int e = errno(state);
                    // HAProxy's words for a name another socket holds
                    throw new IOException(e == 98 ? "already in use" : strerror(e));
                }
                if ((int) Calls.LISTEN.invokeExact(state, fd, backlog) < 0) {
                    throw new IOException(strerror(errno(state)));
                }
                ok = true;
                return fd;
            } finally {
                if (!ok) {
                    close(fd);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A non-blocking socket connected to {@code abns@name} (done at once, or refused); the caller owns the descriptor. */
    public static int connect(String name) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int fd = socket(state);
            boolean ok = false;
            try {
                int r;
                do {
                    r = (int) Calls.CONNECT.invokeExact(state, fd, address(a, name), SOCKADDR_UN);
                } while (r < 0 && errno(state) == 4);
                if (r < 0) {
                    throw new IOException("connect(abns@" + name + ") failed: " + strerror(errno(state)));
                }
                ok = true;
                return fd;
            } finally {
                if (!ok) {
                    close(fd);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static int socket(MemorySegment state) throws Throwable {
        int fd = (int) Calls.SOCKET.invokeExact(state, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new IOException("cannot create socket (" + strerror(errno(state)) + ")");
        }
        return fd;
    }

    private static MemorySegment address(Arena a, String name) {
        MemorySegment addr = a.allocate(SOCKADDR_UN, 2);
        addr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(MemorySegment.ofArray(sunPath(name)), 0, addr, 2, SUN_PATH);
        return addr;
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Closes a descriptor these calls made (quietly). */
    static void close(int fd) {
        try {
            int unused = (int) Calls.CLOSE.invokeExact(fd);
        } catch (Throwable ignored) {
            // nothing more to do
        }
    }

    private static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) Calls.STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }
}

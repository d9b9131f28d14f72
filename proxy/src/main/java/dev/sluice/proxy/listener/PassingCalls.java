package dev.sluice.proxy.listener;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The C library calls that pass listening sockets between processes ({@link SocketHandover}): a UNIX stream
 * socket to the old process, {@code sendmsg}/{@code recvmsg} with an {@code SCM_RIGHTS} control message holding many
 * descriptors beside the data (Netty's domain channel sends one descriptor and one byte per message, which is not
 * HAProxy's format), and what a received socket is ({@code getsockname}, {@code getsockopt}). Linux LP64 layouts
 * (x86_64, aarch64). Every call blocks; each failure throws {@link Failure} with errno's text. Stateless.
 */
final class PassingCalls {
    private PassingCalls() {
    }

    /** A call that returned -1. */
    static final class Failure extends Exception {
        Failure(String call, String reason) {
            super(call + ": " + reason);
        }
    }

    /** What {@link #receive} got: the bytes, the descriptors of its SCM_RIGHTS messages, whether control data was cut. */
    record Received(byte[] data, int[] fds, boolean truncated) {
    }

    static final int AF_UNIX = 1;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int SOL_SOCKET = 1;
    private static final int SCM_RIGHTS = 1;
    private static final int SO_TYPE = 3;
    private static final int SO_RCVTIMEO = 20;
    private static final int SO_SNDTIMEO = 21;
    private static final int SO_ACCEPTCONN = 30;
    private static final int IPPROTO_IP = 0;
    private static final int IP_FREEBIND = 15;
    private static final int IP_TRANSPARENT = 19;
    private static final int IPPROTO_IPV6 = 41;
    private static final int IPV6_V6ONLY = 26;
    private static final int IPV6_TRANSPARENT = 75;
    private static final int MSG_CTRUNC = 0x8;
    private static final int MSG_WAITALL = 0x100;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int MSG_CMSG_CLOEXEC = 0x40000000;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;
    private static final int EINTR = 4;
    /** sizeof(struct sockaddr_un): sun_family, then 108 bytes of path. */
    private static final int SOCKADDR_UN = 110;
    private static final int SOCKADDR_STORAGE = 128;
    /** struct msghdr: name, namelen (padded), iov, iovlen, control, controllen, flags (padded). */
    private static final long MSGHDR = 56;
    private static final long MSG_IOV = 16;
    private static final long MSG_IOVLEN = 24;
    private static final long MSG_CONTROL = 32;
    private static final long MSG_CONTROLLEN = 40;
    private static final long MSG_FLAGS = 48;
    /** struct cmsghdr: a size_t length, level, type, then the data, 8-byte aligned. */
    private static final long CMSG_HDR = 16;
    private static final ValueLayout.OfInt NATIVE_INT = ValueLayout.JAVA_INT;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /**
     * Linking a call costs the first use tens of milliseconds (the JDK spins a class for each shape): each side links
     * only the calls it makes, ahead of time: the new process's ({@link Fetching}) beside its configuration's parsing, the
     * old process's ({@link Sending}) once it serves (its first answer took 0.2 s more without).
     */
    private static final class Common {
        static final MethodHandle SETSOCKOPT = withErrno("setsockopt", FunctionDescriptor.of(NATIVE_INT, NATIVE_INT, NATIVE_INT,
                NATIVE_INT, ValueLayout.ADDRESS, NATIVE_INT));
        static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(NATIVE_INT, NATIVE_INT));
    }

    /** The new process's calls. */
    private static final class Fetching {
        static final MethodHandle SOCKET = withErrno("socket", FunctionDescriptor.of(NATIVE_INT, NATIVE_INT, NATIVE_INT, NATIVE_INT));
        static final MethodHandle CONNECT = withErrno("connect", FunctionDescriptor.of(NATIVE_INT, NATIVE_INT, ValueLayout.ADDRESS,
                NATIVE_INT));
        static final MethodHandle SEND = withErrno("send", FunctionDescriptor.of(ValueLayout.JAVA_LONG, NATIVE_INT, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG, NATIVE_INT));
        static final MethodHandle RECVMSG = withErrno("recvmsg", FunctionDescriptor.of(ValueLayout.JAVA_LONG, NATIVE_INT,
                ValueLayout.ADDRESS, NATIVE_INT));
        static final MethodHandle GETSOCKNAME = withErrno("getsockname", FunctionDescriptor.of(NATIVE_INT, NATIVE_INT,
                ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        static final MethodHandle GETSOCKOPT = withErrno("getsockopt", FunctionDescriptor.of(NATIVE_INT, NATIVE_INT, NATIVE_INT,
                NATIVE_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    }

    /** The old process's calls. */
    private static final class Sending {
        static final MethodHandle SENDMSG = withErrno("sendmsg", FunctionDescriptor.of(ValueLayout.JAVA_LONG, NATIVE_INT,
                ValueLayout.ADDRESS, NATIVE_INT));
        static final MethodHandle RECV = withErrno("recv", FunctionDescriptor.of(ValueLayout.JAVA_LONG, NATIVE_INT, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG, NATIVE_INT));
        static final MethodHandle FCNTL = withErrno("fcntl", FunctionDescriptor.of(NATIVE_INT, NATIVE_INT, NATIVE_INT, NATIVE_INT),
                Linker.Option.firstVariadicArg(2));
    }

    private static final class Errors {
        static final MethodHandle STRERROR = LINKER.downcallHandle(LINKER.defaultLookup().find("strerror").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, NATIVE_INT));
    }

    /** Links the new process's calls now (from a thread of its own, while the configuration is read). */
    static void prepareFetch() {
        MethodHandle unused = Fetching.SOCKET;
        unused = Common.CLOSE;
    }

    /** Links the old process's calls now (from a thread of its own, once it serves). */
    static void prepareSend() {
        MethodHandle unused = Sending.SENDMSG;
        unused = Common.CLOSE;
    }

    private static MethodHandle withErrno(String name, FunctionDescriptor fd, Linker.Option... more) {
        Linker.Option[] options = new Linker.Option[more.length + 1];
        options[0] = Linker.Option.captureCallState("errno");
        System.arraycopy(more, 0, options, 1, more.length);
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, options);
    }

    /** {@code CMSG_SPACE(n * sizeof(int))}. */
    static long controlSpace(int fds) {
        return CMSG_HDR + align(4L * fds);
    }

    private static long align(long n) {
        return (n + 7) & ~7L;
    }

    /** A blocking UNIX stream socket connected to {@code path}, its reads and writes timing out after {@code timeoutMs}. */
    static int connectUnix(String path, long timeoutMs) throws Failure {
        byte[] name = path.getBytes(StandardCharsets.UTF_8);
        if (name.length >= SOCKADDR_UN - 2) {
            throw new Failure("connect(" + path + ")", "socket path too long");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int fd = (int) Fetching.SOCKET.invokeExact(state, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw failure("socket(AF_UNIX)", state);
            }
            boolean ok = false;
            try {
                timeouts(fd, timeoutMs, true);
                MemorySegment addr = a.allocate(SOCKADDR_UN, 2);
                addr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
                MemorySegment.copy(MemorySegment.ofArray(name), 0, addr, 2, name.length);
                int r;
                do {
                    r = (int) Fetching.CONNECT.invokeExact(state, fd, addr, SOCKADDR_UN);
                } while (r < 0 && errno(state) == EINTR);
                if (r < 0) {
                    throw failure("connect(" + path + ")", state);
                }
                ok = true;
                return fd;
            } finally {
                if (!ok) {
                    close(fd);
                }
            }
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code SO_RCVTIMEO} (and {@code SO_SNDTIMEO} when {@code send}) in milliseconds. */
    static void timeouts(int fd, long timeoutMs, boolean send) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment tv = a.allocate(16, 8);
            tv.set(ValueLayout.JAVA_LONG, 0, timeoutMs / 1000);
            tv.set(ValueLayout.JAVA_LONG, 8, timeoutMs % 1000 * 1000);
            MemorySegment state = a.allocate(CALL_STATE);
            if ((int) Common.SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_RCVTIMEO, tv, 16) < 0) {
                throw failure("setsockopt(SO_RCVTIMEO)", state);
            }
            if (send && (int) Common.SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_SNDTIMEO, tv, 16) < 0) {
                throw failure("setsockopt(SO_SNDTIMEO)", state);
            }
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Makes {@code fd} blocking (or not); returns its former flags for {@link #restoreFlags}. */
    static int blocking(int fd, boolean on) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int flags = (int) Sending.FCNTL.invokeExact(state, fd, F_GETFL, 0);
            if (flags < 0) {
                throw failure("fcntl(F_GETFL)", state);
            }
            int want = on ? flags & ~O_NONBLOCK : flags | O_NONBLOCK;
            if (want != flags && (int) Sending.FCNTL.invokeExact(state, fd, F_SETFL, want) < 0) {
                throw failure("fcntl(F_SETFL)", state);
            }
            return flags;
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static void restoreFlags(int fd, int flags) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            if ((int) Sending.FCNTL.invokeExact(state, fd, F_SETFL, flags) < 0) {
                throw failure("fcntl(F_SETFL)", state);
            }
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Sends all of {@code data} (several calls if need be). */
    static void sendAll(int fd, byte[] data) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            MemorySegment buf = a.allocateFrom(ValueLayout.JAVA_BYTE, data);
            long off = 0;
            while (off < data.length) {
                long n = (long) Fetching.SEND.invokeExact(state, fd, buf.asSlice(off), data.length - off, MSG_NOSIGNAL);
                if (n < 0) {
                    if (errno(state) == EINTR) {
                        continue;
                    }
                    throw failure("send", state);
                }
                off += n;
            }
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** One {@code recv} into {@code buf}: the byte count, 0 at the end of the stream. */
    static int recv(int fd, byte[] buf, boolean waitAll) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            MemorySegment seg = a.allocate(Math.max(1, buf.length));
            long n;
            do {
                n = (long) Sending.RECV.invokeExact(state, fd, seg, (long) buf.length, waitAll ? MSG_WAITALL : 0);
            } while (n < 0 && errno(state) == EINTR);
            if (n < 0) {
                throw failure("recv", state);
            }
            MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, 0, buf, 0, (int) n);
            return (int) n;
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** One {@code sendmsg}: {@code data} with {@code fds} in one SCM_RIGHTS message (none when empty); the bytes sent. */
    static long sendWithFds(int fd, byte[] data, int[] fds) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            MemorySegment buf = a.allocateFrom(ValueLayout.JAVA_BYTE, data);
            MemorySegment iov = a.allocate(16, 8);
            iov.set(ValueLayout.ADDRESS, 0, buf);
            iov.set(ValueLayout.JAVA_LONG, 8, data.length);
            MemorySegment msg = a.allocate(MSGHDR, 8);
            msg.set(ValueLayout.ADDRESS, MSG_IOV, iov);
            msg.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, 1);
            if (fds.length > 0) {
                long space = controlSpace(fds.length);
                MemorySegment control = a.allocate(space, 8);
                control.set(ValueLayout.JAVA_LONG, 0, CMSG_HDR + 4L * fds.length);
                control.set(NATIVE_INT, 8, SOL_SOCKET);
                control.set(NATIVE_INT, 12, SCM_RIGHTS);
                for (int i = 0; i < fds.length; i++) {
                    control.set(NATIVE_INT, CMSG_HDR + 4L * i, fds[i]);
                }
                msg.set(ValueLayout.ADDRESS, MSG_CONTROL, control);
                msg.set(ValueLayout.JAVA_LONG, MSG_CONTROLLEN, space);
            }
            long n;
            do {
                n = (long) Sending.SENDMSG.invokeExact(state, fd, msg, MSG_NOSIGNAL);
            } while (n < 0 && errno(state) == EINTR);
            if (n < 0) {
                throw failure("sendmsg", state);
            }
            return n;
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * One {@code recvmsg} of at most {@code maxData} bytes and {@code maxFds} descriptors (close-on-exec); with
     * {@code waitAll}, until {@code maxData} bytes came or the stream ended.
     */
    static Received receive(int fd, int maxData, int maxFds, boolean waitAll) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            MemorySegment buf = a.allocate(Math.max(1, maxData));
            MemorySegment iov = a.allocate(16, 8);
            iov.set(ValueLayout.ADDRESS, 0, buf);
            iov.set(ValueLayout.JAVA_LONG, 8, maxData);
            long space = controlSpace(maxFds);
            MemorySegment control = a.allocate(space, 8);
            MemorySegment msg = a.allocate(MSGHDR, 8);
            msg.set(ValueLayout.ADDRESS, MSG_IOV, iov);
            msg.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, 1);
            msg.set(ValueLayout.ADDRESS, MSG_CONTROL, control);
            msg.set(ValueLayout.JAVA_LONG, MSG_CONTROLLEN, space);
            int flags = MSG_CMSG_CLOEXEC | (waitAll ? MSG_WAITALL : 0);
            long n;
            do {
                n = (long) Fetching.RECVMSG.invokeExact(state, fd, msg, flags);
            } while (n < 0 && errno(state) == EINTR);
            if (n < 0) {
                throw failure("recvmsg", state);
            }
            byte[] data = buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
            long controlLen = msg.get(ValueLayout.JAVA_LONG, MSG_CONTROLLEN);
            int[] fds = new int[0];
            for (long off = 0; off + CMSG_HDR <= controlLen; ) {
                long len = control.get(ValueLayout.JAVA_LONG, off);
                if (len < CMSG_HDR || off + len > controlLen) {
                    break;
                }
                if (control.get(NATIVE_INT, off + 8) == SOL_SOCKET && control.get(NATIVE_INT, off + 12) == SCM_RIGHTS) {
                    int count = (int) ((len - CMSG_HDR) / 4);
                    int[] more = new int[fds.length + count];
                    System.arraycopy(fds, 0, more, 0, fds.length);
                    for (int i = 0; i < count; i++) {
                        more[fds.length + i] = control.get(NATIVE_INT, off + CMSG_HDR + 4L * i);
                    }
                    fds = more;
                }
                off += align(len);
            }
            boolean truncated = (msg.get(NATIVE_INT, MSG_FLAGS) & MSG_CTRUNC) != 0;
            return new Received(data, fds, truncated);
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** What a received socket is: its family and address, type, state and the options that matter to matching. */
    static ReceivedSocket describe(int fd, String namespace, String iface) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            MemorySegment sa = a.allocate(SOCKADDR_STORAGE, 8);
            MemorySegment len = a.allocate(NATIVE_INT);
            len.set(NATIVE_INT, 0, SOCKADDR_STORAGE);
            if ((int) Fetching.GETSOCKNAME.invokeExact(state, fd, sa, len) < 0) {
                throw failure("getsockname", state);
            }
            int family = sa.get(ValueLayout.JAVA_SHORT, 0) & 0xffff;
            InetAddress address = null;
            int port = 0;
            boolean v6only = false;
            boolean transparent = false;
            if (family == AF_INET || family == AF_INET6) {
                port = Short.toUnsignedInt(sa.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2));
                byte[] raw = family == AF_INET ? sa.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE) : sa.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE);
                try {
                    // an IPv4-mapped IPv6 address comes back as an IPv4 one: the family says which it was
                    address = InetAddress.getByAddress(raw);
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
                // HAProxy's "foreign" socket: IP_TRANSPARENT, IP_FREEBIND or IPV6_TRANSPARENT
                transparent = intOption(fd, IPPROTO_IP, IP_TRANSPARENT) > 0 || intOption(fd, IPPROTO_IP, IP_FREEBIND) > 0;
                if (family == AF_INET6) {
                    v6only = intOption(fd, IPPROTO_IPV6, IPV6_V6ONLY) > 0;
                    transparent |= intOption(fd, IPPROTO_IPV6, IPV6_TRANSPARENT) > 0;
                }
            }
            String unixPath = null;
            if (family == AF_UNIX) {
                // sun_path: a path up to its NUL, or (a NUL first) an abstract name with the rest of the bytes the length says
                int n = Math.max(0, Math.min(SOCKADDR_UN, len.get(NATIVE_INT, 0)) - 2);
                byte[] raw = sa.asSlice(2, n).toArray(ValueLayout.JAVA_BYTE);
                int end = 0;
                if (raw.length > 0 && raw[0] != 0) {
                    while (end < raw.length && raw[end] != 0) {
                        end++;
                    }
                } else {
                    end = raw.length;
                }
                unixPath = new String(raw, 0, end, StandardCharsets.ISO_8859_1);
            }
            boolean datagram = intOption(fd, SOL_SOCKET, SO_TYPE) == SOCK_DGRAM;
            boolean listening = intOption(fd, SOL_SOCKET, SO_ACCEPTCONN) > 0;
            return new ReceivedSocket(fd, family, address, port, datagram, listening, v6only, transparent, iface, namespace, unixPath);
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** An integer socket option, -1 when the socket does not have it. */
    private static int intOption(int fd, int level, int option) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            MemorySegment val = a.allocate(NATIVE_INT);
            MemorySegment len = a.allocate(NATIVE_INT);
            len.set(NATIVE_INT, 0, 4);
            if ((int) Fetching.GETSOCKOPT.invokeExact(state, fd, level, option, val, len) < 0) {
                return -1;
            }
            return val.get(NATIVE_INT, 0);
        }
    }

    static void close(int fd) {
        try {
            int ignored = (int) Common.CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    private static Failure failure(String call, MemorySegment state) {
        return new Failure(call, strerror(errno(state)));
    }

    static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) Errors.STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }
}

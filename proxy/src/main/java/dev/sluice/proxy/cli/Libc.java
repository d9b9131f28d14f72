package dev.sluice.proxy.cli;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * The few C library calls the daemon makes about its own process (Linux, x86_64 glibc layouts), through
 * the JDK's foreign function interface: no JNI library to ship. Each call returns the C result; a failed
 * one throws {@link Failure} with errno's text. Used from the main thread at start-up only.
 */
final class Libc {
    private Libc() {
    }

    /** A C call that returned -1 (or NULL where that means failure). */
    static final class Failure extends Exception {
        Failure(String call, String reason) {
            super(call + ": " + reason);
        }
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final int RLIMIT_NOFILE = 7;
    static final int RLIMIT_FSIZE = 1;
    static final int RLIMIT_CORE = 4;
    private static final long RLIM_INFINITY = -1L;
    private static final int PR_SET_DUMPABLE = 4;
    /** struct passwd / struct group: the uid/gid field follows two pointers. */
    private static final long PW_UID = 16;
    private static final long PW_GID = 20;
    private static final long GR_GID = 16;

    private static final MethodHandle STRERROR = plain("strerror", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle GETPWNAM = withErrno("getpwnam", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle GETGRNAM = withErrno("getgrnam", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle SETUID = withErrno("setuid", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle SETGID = withErrno("setgid", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle SETGROUPS = withErrno("setgroups",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
    private static final MethodHandle CHROOT = withErrno("chroot", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle CHDIR = withErrno("chdir", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle GETRLIMIT = withErrno("getrlimit",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle SETRLIMIT = withErrno("setrlimit",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle PRCTL = withErrno("prctl", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle KILL = withErrno("kill", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle GETEUID = plain("geteuid", FunctionDescriptor.of(ValueLayout.JAVA_INT));
    private static final MethodHandle SOCKET = withErrno("socket",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle SENDTO = withErrno("sendto", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = plain("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final int AF_UNIX = 1;
    private static final int SOCK_DGRAM_CLOEXEC = 2 | 0x80000;
    private static final int MSG_NOSIGNAL = 0x4000;
    /** sizeof(struct sockaddr_un): sun_family then 108 bytes of path. */
    private static final int SOCKADDR_UN = 110;

    private static MethodHandle plain(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd);
    }

    private static MethodHandle withErrno(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, Linker.Option.captureCallState("errno"));
    }

    /** A user's id, or -1 when there is no such user. */
    static int userId(String name) throws Failure {
        return idOf(GETPWNAM, "getpwnam", name, PW_UID);
    }

    /** A user's primary group, or -1 when there is no such user. */
    static int userGroupId(String name) throws Failure {
        return idOf(GETPWNAM, "getpwnam", name, PW_GID);
    }

    /** A group's id, or -1 when there is no such group. */
    static int groupId(String name) throws Failure {
        return idOf(GETGRNAM, "getgrnam", name, GR_GID);
    }

    private static int idOf(MethodHandle fn, String call, String name, long offset) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            ERRNO.set(state, 0L, 0);
            MemorySegment p = (MemorySegment) fn.invokeExact(state, a.allocateFrom(name));
            if (p.address() == 0) {
                int errno = (int) ERRNO.get(state, 0L);
                if (errno != 0 && errno != 2 /* ENOENT */ && errno != 3 /* ESRCH */) {
                    throw new Failure(call + "(" + name + ")", strerror(errno));
                }
                return -1;
            }
            return p.reinterpret(offset + 4).get(ValueLayout.JAVA_INT, offset);
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static void setuid(int uid) throws Failure {
        check("setuid(" + uid + ")", (state) -> (int) SETUID.invokeExact(state, uid));
    }

    static void setgid(int gid) throws Failure {
        check("setgid(" + gid + ")", (state) -> (int) SETGID.invokeExact(state, gid));
    }

    /** Drops every supplementary group. */
    static void clearGroups() throws Failure {
        check("setgroups(0)", (state) -> (int) SETGROUPS.invokeExact(state, 0L, MemorySegment.NULL));
    }

    static void chroot(String dir) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment path = a.allocateFrom(dir);
            MemorySegment root = a.allocateFrom("/");
            check("chroot(" + dir + ")", (state) -> (int) CHROOT.invokeExact(state, path));
            check("chdir(/)", (state) -> (int) CHDIR.invokeExact(state, root));
        }
    }

    /** The soft and hard file-descriptor limits. */
    static long[] fdLimit() throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rl = a.allocate(16, 8);
            check("getrlimit(RLIMIT_NOFILE)", (state) -> (int) GETRLIMIT.invokeExact(state, RLIMIT_NOFILE, rl));
            return new long[] {rl.get(ValueLayout.JAVA_LONG, 0), rl.get(ValueLayout.JAVA_LONG, 8)};
        }
    }

    /** Sets both file-descriptor limits. */
    static void setFdLimit(long n) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rl = a.allocate(16, 8);
            rl.set(ValueLayout.JAVA_LONG, 0, n);
            rl.set(ValueLayout.JAVA_LONG, 8, n);
            check("setrlimit(RLIMIT_NOFILE, " + n + ")", (state) -> (int) SETRLIMIT.invokeExact(state, RLIMIT_NOFILE, rl));
        }
    }

    /** Sets both limits of {@code resource} ({@link #RLIMIT_CORE}, {@link #RLIMIT_FSIZE}) to unlimited. */
    static void unlimit(int resource) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rl = a.allocate(16, 8);
            rl.set(ValueLayout.JAVA_LONG, 0, RLIM_INFINITY);
            rl.set(ValueLayout.JAVA_LONG, 8, RLIM_INFINITY);
            check("setrlimit(" + resource + ", RLIM_INFINITY)", (state) -> (int) SETRLIMIT.invokeExact(state, resource, rl));
        }
    }

    /** {@code prctl(PR_SET_DUMPABLE, 1)}: the process may dump core again after its identity changed. */
    static void setDumpable() throws Failure {
        check("prctl(PR_SET_DUMPABLE)", (state) -> (int) PRCTL.invokeExact(state, PR_SET_DUMPABLE, 1L, 0L, 0L, 0L));
    }

    /**
     * Sends one datagram to a UNIX datagram socket (systemd's {@code NOTIFY_SOCKET}); a path starting with '@' is in
     * the abstract namespace. The JDK has no UNIX datagram sockets.
     */
    static void sendUnixDatagram(String path, byte[] data) throws Failure {
        byte[] name = path.getBytes(StandardCharsets.UTF_8);
        boolean abstractName = name.length > 0 && name[0] == '@';
        if (name.length >= SOCKADDR_UN - 2) {
            throw new Failure("sendto(" + path + ")", "socket path too long");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int fd = (int) SOCKET.invokeExact(state, AF_UNIX, SOCK_DGRAM_CLOEXEC, 0);
            if (fd < 0) {
                throw new Failure("socket(AF_UNIX)", strerror((int) ERRNO.get(state, 0L)));
            }
            try {
                MemorySegment addr = a.allocate(SOCKADDR_UN, 2);
                addr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
                MemorySegment.copy(MemorySegment.ofArray(name), 0, addr, 2, name.length);
                if (abstractName) {
                    addr.set(ValueLayout.JAVA_BYTE, 2, (byte) 0);
                }
                // an abstract name is counted exactly; a path with its NUL
                int len = 2 + name.length + (abstractName ? 0 : 1);
                MemorySegment buf = a.allocateFrom(ValueLayout.JAVA_BYTE, data);
                long sent = (long) SENDTO.invokeExact(state, fd, buf, (long) data.length, MSG_NOSIGNAL, addr, len);
                if (sent < 0) {
                    throw new Failure("sendto(" + path + ")", strerror((int) ERRNO.get(state, 0L)));
                }
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
            }
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static void kill(long pid, int signal) throws Failure {
        check("kill(" + pid + ", " + signal + ")", (state) -> (int) KILL.invokeExact(state, (int) pid, signal));
    }

    static int geteuid() {
        try {
            return (int) GETEUID.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @FunctionalInterface
    private interface Call {
        int invoke(MemorySegment state) throws Throwable;
    }

    private static void check(String what, Call call) throws Failure {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            if (call.invoke(state) == -1) {
                throw new Failure(what, strerror((int) ERRNO.get(state, 0L)));
            }
        } catch (Failure f) {
            throw f;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }
}

package dev.sluice.proxy.log;

import dev.sluice.config.model.LogTarget;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;

/**
 * Where formatted lines are written: stdout/stderr (one line each), a UDP syslog server (one datagram
 * each), or a UNIX datagram socket such as /dev/log (through the C library: the JDK has no UNIX
 * datagram sockets). Used only by the log writer thread.
 */
abstract class LogSink implements AutoCloseable {

    abstract void write(byte[] line, int len) throws IOException;

    /** Whether lines need a trailing newline (stream outputs) or not (datagrams). */
    abstract boolean stream();

    @Override
    public void close() {
    }

    static LogSink open(LogTarget t) throws IOException {
        return switch (t.kind()) {
            case STDOUT -> new Std(FileDescriptor.out);
            case STDERR -> new Std(FileDescriptor.err);
            case UDP -> new Udp(new InetSocketAddress(t.address(), t.port()));
            case UNIX -> new Unix(t.address());
            case RING -> throw new IOException("a ring is not a sink");
        };
    }

    private static final class Std extends LogSink {
        private final FileOutputStream out;

        Std(FileDescriptor fd) {
            this.out = new FileOutputStream(fd);
        }

        @Override
        void write(byte[] line, int len) throws IOException {
            out.write(line, 0, len);
        }

        @Override
        boolean stream() {
            return true;
        }
    }

    private static final class Udp extends LogSink {
        private final DatagramChannel ch;

        Udp(InetSocketAddress to) throws IOException {
            ch = DatagramChannel.open();
            ch.connect(to);
        }

        @Override
        void write(byte[] line, int len) throws IOException {
            try {
                ch.write(ByteBuffer.wrap(line, 0, len));
            } catch (PortUnreachableException e) {
                // nobody listens (yet): syslog over UDP is fire-and-forget
            }
        }

        @Override
        boolean stream() {
            return false;
        }

        @Override
        public void close() {
            try {
                ch.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private static final class Unix extends LogSink {
        private static final int AF_UNIX = 1;
        private static final int SOCK_DGRAM = 2;
        private static final int MSG_DONTWAIT = 0x40;
        private static final MethodHandle SOCKET;
        private static final MethodHandle SENDTO;
        private static final MethodHandle CLOSE;

        static {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            SOCKET = linker.downcallHandle(libc.find("socket").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            SENDTO = linker.downcallHandle(libc.find("sendto").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            CLOSE = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        }

        private final Arena arena = Arena.ofShared();
        private final int fd;
        private final MemorySegment addr;
        private final MemorySegment buf;

        Unix(String path) throws IOException {
            byte[] p = path.getBytes(StandardCharsets.UTF_8);
            if (p.length >= 108) {
                throw new IOException("UNIX socket path too long: " + path);
            }
            try {
                fd = (int) SOCKET.invokeExact(AF_UNIX, SOCK_DGRAM, 0);
            } catch (Throwable t) {
                throw new IOException(t);
            }
            if (fd < 0) {
                throw new IOException("cannot create a UNIX datagram socket");
            }
            addr = arena.allocate(110);
            addr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
            MemorySegment.copy(p, 0, addr, ValueLayout.JAVA_BYTE, 2, p.length);
            buf = arena.allocate(65536);
        }

        @Override
        void write(byte[] line, int len) {
            MemorySegment.copy(line, 0, buf, ValueLayout.JAVA_BYTE, 0, len);
            try {
                long r = (long) SENDTO.invokeExact(fd, buf, (long) len, MSG_DONTWAIT, addr, 110);
                if (r < 0) {
                    LogWriter.DROPPED.increment();
                }
            } catch (Throwable t) {
                LogWriter.DROPPED.increment();
            }
        }

        @Override
        boolean stream() {
            return false;
        }

        @Override
        public void close() {
            try {
                int r = (int) CLOSE.invokeExact(fd);
                if (r < 0) {
                    LogWriter.DROPPED.add(0);
                }
            } catch (Throwable t) {
                // closing anyway
            }
            arena.close();
        }
    }
}

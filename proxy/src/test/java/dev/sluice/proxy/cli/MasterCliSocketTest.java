package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliSession;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The master CLI's socket on the JDK's channels: binding as a stats socket binds, and sessions as the workers' end. */
class MasterCliSocketTest {

    @TempDir
    Path dir;

    private MasterCliSocket socket;

    @AfterEach
    void close() {
        if (socket != null) {
            socket.close();
        }
    }

    private static StatsSocket unix(Path path, int mode) {
        return new StatsSocket(new SourceRef("-S", 1), new ListenAddress.Unix(path.toString()), mode, Level.ADMIN, null, null);
    }

    private Path serve(long timeoutMs) {
        Path path = dir.resolve("master.sock");
        CliRegistry registry = new CliRegistry();
        registry.register(new CliCommand(List.of("show", "version"), Level.USER, "show version", "show version", req -> "1.0\n"));
        socket = MasterCliSocket.bind(unix(path, 0600), () -> new CliSession(registry, Level.ADMIN), timeoutMs);
        return path;
    }

    /** Sends {@code input} (then ends its output when {@code end}) and reads until the master ends the session. */
    private static String exchange(Path path, String input, boolean end) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(path));
            ch.write(ByteBuffer.wrap(input.getBytes(StandardCharsets.UTF_8)));
            if (end) {
                ch.shutdownOutput();
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(4096);
            while (ch.read(buf.clear()) >= 0) {
                out.write(buf.array(), 0, buf.position());
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void aUnixSocketGetsItsModeAndSessionsEndAsTheWorkersDo() throws Exception {
        Path path = serve(10_000);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path))).isEqualTo("rw-------");
        assertThat(Files.list(dir).toList()).containsExactly(path);
        // non-interactive: one answer, its empty line, then the end (without the client ending first)
        assertThat(exchange(path, "show version\n", false)).isEqualTo("1.0\n\n");
        // what was received runs to its end, a last command without its line feed dropped at the client's end
        assertThat(exchange(path, "show version; show version\nshow ver", true)).isEqualTo("1.0\n\n1.0\n\n");
        // prompt mode until quit (a worker's prompt: without the master's router, a prompt has its empty line)
        assertThat(exchange(path, "prompt\nshow version\nquit\n", false)).isEqualTo("\n> 1.0\n\n> ");
        // a line longer than HAProxy's buffer ends the session without an answer
        assertThat(exchange(path, "x".repeat(MasterCliSession.MAX_LINE + 10), false)).isEmpty();
    }

    @Test
    void anIdleSessionEndsAtTheTimeout() throws Exception {
        Path path = serve(300);
        long t0 = System.nanoTime();
        assertThat(exchange(path, "prompt\n", false)).isEqualTo("\n> ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(250L, 5_000L);
    }

    @Test
    void aSocketThatCannotBeBoundIsSaidInHaproxysWords() throws Exception {
        Path missing = dir.resolve("none/master.sock");
        assertThatThrownBy(() -> MasterCliSocket.bind(unix(missing, -1), () -> null, 1000)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Binding [-S:1] for frontend GLOBAL: cannot bind UNIX socket (").hasMessageEndingWith(") [" + missing + "]");
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            StatsSocket tcp = new StatsSocket(new SourceRef("-S", 1), new ListenAddress.Inet("127.0.0.1", taken.getLocalPort()), -1, Level.ADMIN, null,
                    null);
            assertThatThrownBy(() -> MasterCliSocket.bind(tcp, () -> null, 1000)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("Binding [-S:1] for frontend GLOBAL: cannot bind socket (Address already in use) [127.0.0.1:" + taken.getLocalPort() + "]");
        }
    }

    @Test
    void anAddressAndPortServeToo() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        CliRegistry registry = new CliRegistry();
        socket = MasterCliSocket.bind(new StatsSocket(new SourceRef("-S", 1), new ListenAddress.Inet("127.0.0.1", port), -1, Level.USER, null, null),
                () -> new CliSession(registry, Level.USER), 10_000);
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            ch.write(ByteBuffer.wrap("show cli level\n".getBytes(StandardCharsets.UTF_8)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(4096);
            while (ch.read(buf.clear()) >= 0) {
                out.write(buf.array(), 0, buf.position());
            }
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("user\n\n");
        }
    }
}

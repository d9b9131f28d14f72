package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Servers on UNIX stream sockets ({@code server s unix@/path}, {@code server s /path}): HTTP requests and a layer-4
 * relay reach them, health checks connect to them, and the logs ({@code %si:%sp}), {@code show stat}'s addr and
 * {@code show servers state}'s address are HAProxy 2.6's for such a server.
 */
class UnixServerTest {

    /** An HTTP/1.1 origin on a UNIX socket: answers every request with its target and the connection's number. */
    static final class UnixOrigin implements AutoCloseable {
        final Path path;
        private final ServerSocketChannel server;
        final AtomicInteger connections = new AtomicInteger();

        UnixOrigin(Path path) throws IOException {
            this.path = path;
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path));
            Thread.ofVirtual().start(() -> {
                while (server.isOpen()) {
                    try {
                        SocketChannel ch = server.accept();
                        int id = connections.incrementAndGet();
                        Thread.ofVirtual().start(() -> serve(ch, id));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        private static void serve(SocketChannel ch, int id) {
            try (ch; InputStream in = Channels.newInputStream(ch); OutputStream out = Channels.newOutputStream(ch)) {
                while (true) {
                    Http1.Head h = Http1.readHead(in);
                    if (h == null) {
                        return;
                    }
                    String target = h.startLine().split(" ")[1];
                    Origin.respond(out, 200, "OK", Origin.headers(), ("unix " + target).getBytes(StandardCharsets.US_ASCII));
                }
            } catch (IOException e) {
                // the proxy closed
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            Files.deleteIfExists(path);
        }
    }

    private static List<String> run(boolean haproxy) throws Exception {
        Path dir = Files.createTempDirectory("sluice-unix");
        try (UnixOrigin a = new UnixOrigin(dir.resolve("a.sock")); UnixOrigin b = new UnixOrigin(dir.resolve("b.sock"))) {
            int port = Ports.free();
            int tcp = Ports.free();
            String cfg = """
                    global
                        log stdout format raw local0
                        stats socket @DIR@/admin.sock level admin
                    defaults
                        log global
                        option dontlognull
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                    frontend fe
                        mode http
                        bind 127.0.0.1:%d
                        log-format "http %%b/%%s %%si:%%sp %%ST"
                        use_backend viaslash if { path_beg /b }
                        default_backend viaunix
                    backend viaunix
                        mode http
                        option httpchk GET /health
                        server a unix@%s check inter 300 rise 1 fall 1
                    backend viaslash
                        mode http
                        server b %s
                    listen relay
                        mode tcp
                        bind 127.0.0.1:%d
                        log-format "tcp %%b/%%s %%si:%%sp"
                        server a unix@%s
                    """.formatted(port, a.path, b.path, tcp, a.path);
            List<String> out = new ArrayList<>();
            try (Daemon d = Daemon.start(haproxy, cfg, port)) {
                ServerQueueTest.awaitStat(d, "viaunix,a", "check_status", "L7OK");
                try (RawClient c = new RawClient(port, 5_000)) {
                    out.add(c.send("GET /x HTTP/1.1\r\nhost: t\r\n\r\n").read().bodyText());
                    out.add(c.send("GET /b HTTP/1.1\r\nhost: t\r\n\r\n").read().bodyText());
                }
                try (RawClient c = new RawClient(tcp, 5_000)) {
                    out.add(c.send("GET /tcp HTTP/1.1\r\nhost: t\r\n\r\n").read().bodyText());
                }
                // the lines in a fixed order: a layer-4 stream is logged when it closes, whenever that is
                out.addAll(d.awaitLines(l -> l.startsWith("http ") || l.startsWith("tcp "), 3).stream().sorted().toList());
                out.add("addr " + ServerQueueTest.stat(d, "viaunix,a", "addr") + " " + ServerQueueTest.stat(d, "viaslash,b", "addr"));
                String state = AdminClient.run(d.dir().resolve("admin.sock"), "show servers state viaunix\n");
                String[] f = state.lines().filter(l -> l.contains(" a ")).findFirst().orElseThrow().split(" ");
                // srv_addr, srv_port
                out.add("state " + f[4] + " " + f[18]);
            }
            return out;
        }
    }

    @Test
    void serversOnUnixSocketsAsInHaproxy() throws Exception {
        List<String> sluice = run(false);
        assertThat(sluice).containsExactly(
                "unix /x",
                "unix /b",
                "unix /tcp",
                "http viaslash/b unix:0 200",
                "http viaunix/a unix:0 200",
                "tcp relay/a unix:0",
                "addr unix unix",
                "state - 0");
        Program.HAPROXY.require();
        assertThat(run(true)).as("HAProxy 2.6").isEqualTo(sluice);
    }
}

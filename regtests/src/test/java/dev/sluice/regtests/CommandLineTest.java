package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The command line as HAProxy's: {@code -q} silences, {@code -d} tells where it listens, {@code -f} takes a directory
 * (its {@code *.cfg} in name order) or several files, the NIO transport serves as epoll does, and {@code maxconn}
 * (frontend and global) holds the connections past it in the kernel's queue until a slot frees.
 */
class CommandLineTest {

    private static String server(int port, String more) {
        return """
                global
                    %s
                defaults
                    mode http
                    timeout client 10s
                    timeout server 10s
                    timeout connect 2s
                    timeout check 2s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "served"
                """.formatted(more, port);
    }

    @Test
    void quietSilencesCheckModeAndTheConsole() throws Exception {
        Path cfg = Sluice.writeConfig(server(Ports.free(), "maxconn 100") + "backend b\n    server s 127.0.0.1:1 check inter 100\n");
        Sluice.Result loud = Sluice.run(List.of("-c", "-f", cfg.toString()), Map.of());
        assertThat(loud.exitCode()).isZero();
        assertThat(loud.output()).contains("Configuration file is valid");
        Sluice.Result quiet = Sluice.run(List.of("-c", "-q", "-f", cfg.toString()), Map.of());
        assertThat(quiet.exitCode()).isZero();
        assertThat(quiet.output()).isEmpty();
        // running quiet: the failing check takes the server down without a word on the console. The backend also
        // logs to stdout through the same writer queue: its DOWN line tells the check concluded, and a later
        // event's line (the server put in maintenance) tells everything queued before it was written
        int port = Ports.free();
        Path admin = Files.createTempDirectory("quiet").resolve("admin.sock");
        Path run = Sluice.writeConfig(server(port, "maxconn 100\n    stats socket " + admin + " level admin")
                + "backend b\n    log stdout format raw local0\n    server s 127.0.0.1:1 check inter 100\n");
        try (Sluice s = Sluice.start(run, List.of("-q"), Map.of(), port)) {
            awaitOutput(s, "Server b/s is DOWN");
            AdminClient.run(admin, "disable server b/s\n");
            awaitOutput(s, "maintenance");
            assertThat(s.output()).doesNotContain("[WARNING]").doesNotContain(") : Server b/s");
            assertThat(s.output().split("Server b/s is DOWN", -1)).as("the log line only, not the console's").hasSize(2);
        }
        try (Sluice s = Sluice.start(run, List.of(), Map.of(), port)) {
            awaitOutput(s, "[WARNING]  (");
            assertThat(s.output()).contains(") : Server b/s is DOWN, reason: Layer4 connection problem");
        }
    }

    @Test
    void debugTellsWhereItListensAndNioServesToo() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(server(port, "maxconn 100"));
        try (Sluice s = Sluice.start(cfg, List.of("-d"), Map.of("SLUICE_TRANSPORT", "nio"), port)) {
            awaitOutput(s, "listening on");
            assertThat(s.output()).contains("[NOTICE] using the NIO transport: SLUICE_TRANSPORT=nio")
                    .contains("[NOTICE] listening on /127.0.0.1:" + port + " (nio)");
            assertThat(get(port)).isEqualTo("served");
        }
    }

    @Test
    void aDirectoryIsReadInNameOrderAndFilesFollowEachOther() throws Exception {
        int port = Ports.free();
        Path dir = Files.createTempDirectory("sluice-cfgdir");
        // 10-... declares the backend the frontend of 20-... uses; a non-.cfg file is ignored
        Files.writeString(dir.resolve("20-frontend.cfg"), """
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                """.formatted(port));
        Files.writeString(dir.resolve("10-defaults.cfg"), """
                defaults
                    mode http
                    timeout client 10s
                    timeout server 10s
                    timeout connect 2s
                backend be
                    http-request return status 200 content-type text/plain string "from the directory"
                """);
        Files.writeString(dir.resolve("notes.txt"), "this is not configuration\n");
        try (Sluice s = Sluice.startWith(Sluice.launcher(List.of("-f", dir.toString()), Map.of()), dir, port)) {
            assertThat(get(port)).isEqualTo("from the directory");
        }
        int other = Ports.free();
        Path extra = Files.writeString(Files.createTempDirectory("sluice-cfg2").resolve("more.cfg"), """
                frontend fe2
                    bind 127.0.0.1:%d
                    default_backend be
                """.formatted(other));
        try (Sluice s = Sluice.startWith(Sluice.launcher(List.of("-f", dir.toString(), "-f", extra.toString()), Map.of()), dir, port, other)) {
            assertThat(get(other)).isEqualTo("from the directory");
        }
    }

    /**
     * {@code maxconn 2} on a plain HTTP frontend: a third client connects (the kernel queues it) but is not served until
     * one of the first two leaves; the global maxconn does the same across frontends.
     */
    @Test
    void maxconnHoldsTheNextConnectionUntilASlotFrees() throws Exception {
        for (String where : new String[] {"frontend", "global"}) {
            int port = Ports.free();
            String cfg = where.equals("global") ? server(port, "maxconn 2")
                    : server(port, "maxconn 100").replace("frontend fe\n", "frontend fe\n    maxconn 2\n");
            try (Sluice s = Sluice.start(cfg, port); Socket a = new Socket("127.0.0.1", port); Socket b = new Socket("127.0.0.1", port)) {
                assertThat(exchange(a)).contains("served");
                assertThat(exchange(b)).contains("served");
                try (Socket c = new Socket("127.0.0.1", port)) {
                    c.setSoTimeout(700);
                    send(c);
                    assertThat(readOrTimeout(c)).as(where + " maxconn holds the third connection").isNull();
                    a.close();
                    c.setSoTimeout(10_000);
                    String answer = readOrTimeout(c);
                    assertThat(answer).as(where + " maxconn serves it once a slot frees").contains("served");
                }
            }
        }
    }

    private static void send(Socket s) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write("GET / HTTP/1.1\r\nhost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String exchange(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        send(s);
        return readOrTimeout(s);
    }

    /** What arrived until the end of the small response, or null when nothing arrived within the socket's timeout. */
    private static String readOrTimeout(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        StringBuilder got = new StringBuilder();
        try {
            while (!got.toString().contains("served")) {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (java.net.SocketTimeoutException e) {
            return got.isEmpty() ? null : got.toString();
        }
        return got.toString();
    }

    private static String get(int port) {
        try (RawClient c = new RawClient(port, 10_000)) {
            return new String(c.send("GET / HTTP/1.1\r\nhost: t\r\n\r\n").read().body(), StandardCharsets.UTF_8);
        }
    }

    private static void awaitOutput(Sluice s, String part) {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!s.output().contains(part) && System.nanoTime() < deadline) {
            sleep(20);
        }
        assertThat(s.output()).contains(part);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}

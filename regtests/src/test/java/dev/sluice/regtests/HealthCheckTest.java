package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Health checks through the real daemon against origins that fail on demand: the health counter's transitions, the
 * log and console lines, the {@code show stat} and {@code show servers state} columns, traffic following the
 * checks, a server's queue sent elsewhere when it goes down, timeouts, TLS checks and the admin commands. The
 * *InHaproxy tests (which require HAProxy 2.6) run the same configurations in it: what both print must be the same
 * (durations and PIDs aside).
 */
class HealthCheckTest {
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    /**
     * An origin whose {@code /health} answers per {@link #mode}: ok (200), 500, 404, hang (no answer for 2 s), garbage,
     * close; other paths get the named answer, after {@link #hold} when one is set.
     */
    private final class Checked {
        final AtomicReference<String> mode = new AtomicReference<>("ok");
        final AtomicReference<CountDownLatch> hold = new AtomicReference<>();
        final Origin origin;

        Checked(String name) {
            origin = Origin.start(name, this::handle);
            closing.add(origin);
        }

        private boolean handle(Origin.Request r, OutputStream out) throws IOException {
            if (!r.target().equals("/health")) {
                CountDownLatch l = hold.get();
                if (l != null) {
                    try {
                        l.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        return false;
                    }
                }
                Origin.respond(out, 200, "OK", Origin.headers("X-Origin", origin.name()),
                        ("origin " + origin.name() + "\n").getBytes(StandardCharsets.US_ASCII));
                return true;
            }
            switch (mode.get()) {
                case "ok" -> Origin.respond(out, 200, "OK", Origin.headers("X-Health", "good"), "ok".getBytes(StandardCharsets.US_ASCII));
                case "500" -> Origin.respond(out, 500, "Internal Error", List.of(), "fail".getBytes(StandardCharsets.US_ASCII));
                case "404" -> Origin.respond(out, 404, "Not Found", List.of(), new byte[0]);
                case "hang" -> {
                    try {
                        Thread.sleep(2000);
                    } catch (InterruptedException e) {
                        return false;
                    }
                    return false;
                }
                case "garbage" -> {
                    out.write("garbage\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    return false;
                }
                default -> {
                    return false;
                }
            }
            return true;
        }

        int port() {
            return origin.port();
        }
    }

    private static final String HEADER = """
            global
                log stdout format raw local0
                stats socket @DIR@/admin.sock level admin
            defaults
                mode http
                log global
                option httplog
                timeout connect 500ms
                timeout client 5s
                timeout server 5s
            """;

    private static String config(int port, String extraDefaults, String backend) {
        return HEADER + extraDefaults.strip().indent(4) + """
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                %s""".formatted(port, backend.strip().indent(4));
    }

    /** The lines about checks and transitions, the durations and PIDs replaced, in order. */
    private static List<String> checkLines(Daemon d, String about) {
        return d.output().lines().filter(l -> l.contains(about) && (l.contains("Health check") || l.contains("Server ")
                || l.contains("has no server available"))).map(l -> l.replaceAll("duration: \\d+ms", "duration: Nms")
                .replaceAll("\\(\\d+\\) :", "(PID) :")).toList();
    }

    private static void awaitLine(Daemon d, String part) {
        List<String> l = d.awaitLines(x -> x.contains(part), 1);
        assertThat(l).as("%s printed '%s'\n%s", d.name(), part, d.output()).isNotEmpty();
    }

    /** The check columns of a {@code show stat} row ("* " of a check in progress left out). */
    private static String checkColumns(Daemon d, String row) {
        StringBuilder b = new StringBuilder(row);
        for (String c : List.of("status", "weight", "act", "bck", "chkfail", "chkdown", "check_status", "check_code", "check_desc",
                "last_chk", "check_rise", "check_fall", "check_health")) {
            b.append(' ').append(c).append('=').append(ServerQueueTest.stat(d, row, c).replace("* ", ""));
        }
        return b.toString();
    }

    /** {@code show servers state} lines without the time since the last change. */
    private static List<String> serversState(Daemon d) {
        return AdminClient.run(d.dir().resolve("admin.sock"), "show servers state be\n").lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                .filter(l -> !l.matches("^\\d+$")).map(l -> {
                    String[] w = l.split(" ");
                    w[9] = "T";
                    // srv_check_state's CHK_ST_INPROGRESS bit says whether a check runs at this instant: timing, on both
                    w[13] = String.valueOf(Integer.parseInt(w[13]) & ~1);
                    return String.join(" ", w);
                }).toList();
    }

    private record Run(List<String> s1, List<String> s2, List<String> stats, List<String> state) {
    }

    private Run transitions(boolean haproxy, Checked o, int dead) {
        o.mode.set("ok");
        int port = Ports.free();
        String cfg = config(port, "timeout check 400ms", """
                option httpchk GET /health
                option log-health-checks
                server s1 127.0.0.1:%d check inter 150 rise 2 fall 2
                server s2 127.0.0.1:%d check inter 150 rise 1 fall 1 backup
                """.formatted(o.port(), dead));
        try (Daemon d = Daemon.start(haproxy, cfg, port)) {
            awaitLine(d, "be/s1 succeeded, reason: Layer7 check passed, code: 200, check duration: ");
            awaitLine(d, "Backup Server be/s2 is DOWN");
            o.mode.set("500");
            awaitLine(d, "backend be has no server available!");
            o.mode.set("hang");
            awaitLine(d, "Layer7 timeout");
            o.mode.set("garbage");
            awaitLine(d, "Layer7 invalid response");
            o.mode.set("404");
            awaitLine(d, "code: 404");
            o.mode.set("ok");
            awaitLine(d, "Server be/s1 is UP");
            List<String> stats = List.of(checkColumns(d, "be,s1"), checkColumns(d, "be,s2"), checkColumns(d, "be,BACKEND"));
            return new Run(checkLines(d, "be/s1").stream().filter(l -> !l.contains("be/s2")).toList()
                    .stream().toList(), checkLines(d, "be/s2"), stats, serversState(d));
        }
    }

    @Test
    void transitionsLogLinesAndStatsAsHaproxy() {
        Checked o = new Checked("s1");
        int dead = Ports.free();
        Run sluice = transitions(false, o, dead);
        String s1 = "Health check for server be/s1 ";
        assertThat(sluice.s1().stream().filter(l -> !l.startsWith("[")).toList()).containsExactly(
                s1 + "succeeded, reason: Layer7 check passed, code: 200, check duration: Nms, status: 2/2 UP.",
                s1 + "failed, reason: Layer7 wrong status, code: 500, info: \"Internal Error\", check duration: Nms, status: 1/2 UP.",
                s1 + "failed, reason: Layer7 wrong status, code: 500, info: \"Internal Error\", check duration: Nms, status: 0/2 DOWN.",
                "Server be/s1 is DOWN. 0 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.",
                s1 + "failed, reason: Layer7 timeout, check duration: Nms, status: 0/2 DOWN.",
                s1 + "failed, reason: Layer7 invalid response, check duration: Nms, status: 0/2 DOWN.",
                s1 + "failed, reason: Layer7 wrong status, code: 404, info: \"Not Found\", check duration: Nms, status: 0/2 DOWN.",
                s1 + "succeeded, reason: Layer7 check passed, code: 200, check duration: Nms, status: 1/2 DOWN.",
                s1 + "succeeded, reason: Layer7 check passed, code: 200, check duration: Nms, status: 2/2 UP.",
                "Server be/s1 is UP. 1 active and 0 backup servers online. 0 sessions requeued, 0 total in queue.");
        // the same lines on the console, as warnings
        assertThat(sluice.s1().stream().filter(l -> l.startsWith("[")).toList()).hasSize(10)
                .allSatisfy(l -> assertThat(l).startsWith("[WARNING]  (PID) : "));
        assertThat(sluice.s2().stream().filter(l -> !l.startsWith("[")).toList()).containsExactly(
                "Health check for backup server be/s2 failed, reason: Layer4 connection problem, info: \"Connection refused\", check duration: Nms,"
                        + " status: 0/1 DOWN.",
                "Backup Server be/s2 is DOWN. 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.");
        assertThat(sluice.stats()).containsExactly(
                "be,s1 status=UP weight=1 act=1 bck=0 chkfail=2 chkdown=1 check_status=L7OK check_code=200 check_desc=Layer7 check passed"
                        + " last_chk= check_rise=2 check_fall=2 check_health=3",
                "be,s2 status=DOWN weight=1 act=0 bck=1 chkfail=1 chkdown=1 check_status=L4CON check_code= check_desc=Layer4 connection problem"
                        + " last_chk=Connection refused check_rise=1 check_fall=1 check_health=0",
                "be,BACKEND status=UP weight=1 act=1 bck=0 chkfail= chkdown=1 check_status= check_code= check_desc= last_chk= check_rise="
                        + " check_fall= check_health=");
        assertThat(sluice.state()).hasSize(2);
        assertThat(sluice.state().get(0)).startsWith("3 be 1 s1 127.0.0.1 2 0 1 1 T 15 3 3 6 0 ");
        assertThat(sluice.state().get(1)).startsWith("3 be 2 s2 127.0.0.1 0 0 1 1 T 8 2 0 6 0 ");
    }

    /** Every line, stat and state of {@link #transitionsLogLinesAndStatsAsHaproxy}'s run is HAProxy 2.6's. */
    @Test
    void transitionsSameInHaproxy() {
        Program.HAPROXY.require();
        Checked o = new Checked("s1");
        int dead = Ports.free();
        Run sluice = transitions(false, o, dead);
        Run haproxy = transitions(true, o, dead);
        // log lines and console lines each in order (stdout and stderr interleave as they may)
        for (boolean console : new boolean[] {false, true}) {
            assertThat(haproxy.s1().stream().filter(l -> l.startsWith("[") == console).toList()).as("HAProxy 2.6")
                    .isEqualTo(sluice.s1().stream().filter(l -> l.startsWith("[") == console).toList());
            assertThat(haproxy.s2().stream().filter(l -> l.startsWith("[") == console).toList()).as("HAProxy 2.6")
                    .isEqualTo(sluice.s2().stream().filter(l -> l.startsWith("[") == console).toList());
        }
        assertThat(haproxy.stats()).as("HAProxy 2.6").isEqualTo(sluice.stats());
        assertThat(haproxy.state()).as("HAProxy 2.6").isEqualTo(sluice.state());
    }

    private static String via(int port, String path) {
        try (RawClient c = new RawClient(port, 10_000)) {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nhost: t\r\n\r\n").read();
            return r.status() == 200 ? r.header("x-origin") : Integer.toString(r.status());
        }
    }

    @Test
    void trafficFollowsTheChecks() {
        Checked a = new Checked("s1");
        Checked b = new Checked("s2");
        int port = Ports.free();
        try (Daemon d = Daemon.start(false, config(port, "timeout check 2s", """
                option httpchk GET /health
                server s1 127.0.0.1:%d check inter 200 rise 1 fall 1
                server s2 127.0.0.1:%d check inter 200 rise 1 fall 1
                """.formatted(a.port(), b.port())), port)) {
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                seen.add(via(port, "/x"));
            }
            assertThat(seen).containsExactly("s1", "s2", "s1", "s2");
            a.mode.set("500");
            ServerQueueTest.awaitStat(d, "be,s1", "status", "DOWN");
            seen.clear();
            for (int i = 0; i < 4; i++) {
                seen.add(via(port, "/x"));
            }
            assertThat(seen).containsOnly("s2");
            b.mode.set("close");
            ServerQueueTest.awaitStat(d, "be,BACKEND", "status", "DOWN");
            assertThat(via(port, "/x")).isEqualTo("503");
            awaitLine(d, "[ALERT]    (");
            assertThat(d.output()).contains(") : backend 'be' has no server available!").contains("\nbackend be has no server available!");
            assertThat(checkLines(d, "be/s2").stream().filter(l -> !l.startsWith("[")).toList()).containsExactly(
                    "Server be/s2 is DOWN, reason: Layer7 invalid response, check duration: Nms. 0 active and 0 backup servers left. 0 sessions"
                            + " active, 0 requeued, 0 remaining in queue.");
            a.mode.set("ok");
            b.mode.set("ok");
            ServerQueueTest.awaitStat(d, "be,BACKEND", "act", "2");
            seen.clear();
            for (int i = 0; i < 4; i++) {
                seen.add(via(port, "/x"));
            }
            assertThat(seen).containsExactlyInAnyOrder("s1", "s2", "s1", "s2");
        }
    }

    /** The path {@code balance uri} sends to s1 of two equal servers (HAProxy's map, which Sluice reproduces). */
    private static String pathToFirst(int port) {
        for (int i = 0; i < 50; i++) {
            if (via(port, "/p" + i).equals("s1")) {
                return "/p" + i;
            }
        }
        throw new AssertionError("no path goes to s1");
    }

    private String queueRedispatch(boolean haproxy, Checked a, Checked b) throws Exception {
        a.mode.set("ok");
        a.hold.set(null);
        int port = Ports.free();
        try (Daemon d = Daemon.start(haproxy, config(port, "timeout queue 10s\ntimeout check 2s", """
                balance uri
                option redispatch
                option httpchk GET /health
                server s1 127.0.0.1:%d check inter 200 rise 1 fall 1 maxconn 1
                server s2 127.0.0.1:%d maxconn 10
                """.formatted(a.port(), b.port())), port)) {
            ServerQueueTest.awaitStat(d, "be,s1", "check_status", "L7OK");
            String path = pathToFirst(port);
            CountDownLatch release = new CountDownLatch(1);
            a.hold.set(release);
            try (RawClient first = new RawClient(port, 20_000); RawClient second = new RawClient(port, 20_000)) {
                first.send("GET " + path + " HTTP/1.1\r\nhost: t\r\n\r\n");
                ServerQueueTest.awaitStat(d, "be,s1", "scur", "1");
                second.send("GET " + path + " HTTP/1.1\r\nhost: t\r\n\r\n");
                ServerQueueTest.awaitStat(d, "be,s1", "qcur", "1");
                a.mode.set("500");
                RawClient.Response moved = second.read();
                assertThat(moved.status()).isEqualTo(200);
                assertThat(moved.header("x-origin")).isEqualTo("s2");
                release.countDown();
                RawClient.Response held = first.read();
                assertThat(held.header("x-origin")).isEqualTo("s1");
            }
            // the line goes through the log writer: it may come a moment after the responses
            d.awaitLines(l -> l.startsWith("Server be/s1 is DOWN"), 1);
            return checkLines(d, "be/s1").stream().filter(l -> !l.startsWith("[")).findFirst().orElseThrow();
        }
    }

    private static final String QUEUE_REDISPATCH_LINE = "Server be/s1 is DOWN, reason: Layer7 wrong status, code: 500, info: \"Internal Error\","
            + " check duration: Nms. 1 active and 0 backup servers left. 1 sessions active, 1 requeued, 0 remaining in queue.";

    @Test
    void aServerGoingDownSendsItsQueueElsewhereAsHaproxy() throws Exception {
        Checked a = new Checked("s1");
        Checked b = new Checked("s2");
        String line = queueRedispatch(false, a, b);
        assertThat(line).isEqualTo(QUEUE_REDISPATCH_LINE);
    }

    /** HAProxy 2.6 logs the line {@link #aServerGoingDownSendsItsQueueElsewhereAsHaproxy} expects. */
    @Test
    void aServerGoingDownSendsItsQueueElsewhereInHaproxy() throws Exception {
        Program.HAPROXY.require();
        assertThat(queueRedispatch(true, new Checked("s1"), new Checked("s2"))).as("HAProxy 2.6").isEqualTo(QUEUE_REDISPATCH_LINE);
    }

    @Test
    void connectTimeoutTlsChecksOtherPortsAndTheAdminCommands() throws Exception {
        // a listener that never accepts, its queue full: connections time out (Linux drops the SYNs)
        ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        closing.add(full);
        for (int i = 0; i < 3; i++) {
            java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open();
            ch.configureBlocking(false);
            ch.connect(full.getLocalSocketAddress());
            closing.add(ch);
        }
        TestPki pki = new TestPki("check-ca");
        TlsOrigin tls = new TlsOrigin(pki.leaf("origin.test"), "tls ok".getBytes(StandardCharsets.US_ASCII));
        closing.add(tls);
        Checked other = new Checked("other");
        Checked plain = new Checked("plain");
        int port = Ports.free();
        try (Daemon d = Daemon.start(false, config(port, "timeout check 2s", """
                option log-health-checks
                server slow 127.0.0.1:%d check inter 300 rise 1 fall 1
                server tls 127.0.0.1:%d check inter 500 rise 1 fall 1 ssl verify none
                server moved 127.0.0.1:%d check inter 200 rise 1 fall 1 port %d
                """.formatted(full.getLocalPort(), tls.port(), Ports.free(), other.port())), port)) {
            awaitLine(d, "be/slow failed, reason: Layer4 timeout, check duration: ");
            awaitLine(d, "be/tls succeeded, reason: Layer6 check passed");
            // the check goes to 'port', not to the server's own port (where nothing listens)
            ServerQueueTest.awaitStat(d, "be,moved", "check_status", "L4OK");
            // the origin counts its side of the handshake after the check saw its own end of it
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); tls.handshakes() == 0 && System.nanoTime() < end; ) {
                Daemon.sleep(20);
            }
            assertThat(tls.handshakes()).isPositive();
            Path sock = d.dir().resolve("admin.sock");
            // check-port moves the checks; a bad port gets HAProxy's answer
            assertThat(AdminClient.run(sock, "set server be/moved check-port 70000\n")).isEqualTo("provided port is invalid\n\n");
            assertThat(AdminClient.run(sock, "set server be/moved check-port abc\n")).isEqualTo("provided port is not an integer\n\n");
            assertThat(AdminClient.run(sock, "set server be/moved check-port " + plain.port() + "\n")).isEqualTo("\n");
            int before = plain.origin.connections();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (plain.origin.connections() == before && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(plain.origin.connections()).isGreaterThan(before);
            assertThat(AdminClient.run(sock, "show servers state be\n")).contains(" " + plain.port() + " - - 0\n");
            // health down from the CLI, then the next check brings it back
            assertThat(AdminClient.run(sock, "set server be/moved health down\n")).isEqualTo("\n");
            ServerQueueTest.awaitStat(d, "be,moved", "status", "UP");
            // disabled checks: the server shows as unchecked and its check columns are empty
            assertThat(AdminClient.run(sock, "disable health be/moved\n")).isEqualTo("\n");
            ServerQueueTest.awaitStat(d, "be,moved", "status", "no check");
            assertThat(ServerQueueTest.stat(d, "be,moved", "check_status")).isEmpty();
            assertThat(AdminClient.run(sock, "enable health be/moved\n")).isEqualTo("\n");
            ServerQueueTest.awaitStat(d, "be,moved", "check_status", "L4OK");
            assertThat(AdminClient.run(sock, "disable health be/nope\n")).isEqualTo("No such server.\n\n");
            // maintenance pauses the checks (state bits 14) and leaving it starts from rise
            assertThat(AdminClient.run(sock, "set server be/moved state maint\n")).isEqualTo("\n");
            assertThat(AdminClient.run(sock, "show servers state be\n")).containsPattern(" moved 127.0.0.1 0 1 1 1 \\d+ 6 3 0 14 ");
            assertThat(AdminClient.run(sock, "set server be/moved state ready\n")).isEqualTo("\n");
            ServerQueueTest.awaitStat(d, "be,moved", "status", "UP");
        }
    }

    private static List<String> adminTransitions(boolean haproxy) {
        int port = Ports.free();
        String cfg = config(port, "", """
                server s1 127.0.0.1:%d
                server s2 127.0.0.1:%d
                server s3 127.0.0.1:%d backup
                """.formatted(Ports.free(), Ports.free(), Ports.free()));
        try (Daemon d = Daemon.start(haproxy, cfg, port)) {
            Path sock = d.dir().resolve("admin.sock");
            for (String cmd : List.of("set server be/s1 state maint", "set server be/s1 state ready", "set server be/s1 state drain",
                    "set server be/s1 state ready", "set server be/s2 health down", "set server be/s2 health up", "disable server be/s2",
                    "enable server be/s2", "set server be/s1 health stopping", "set server be/s1 health up", "set weight be/s1 0",
                    "set weight be/s1 1", "set server be/s1 state maint", "set server be/s2 state maint", "set server be/s3 state maint")) {
                assertThat(AdminClient.run(sock, cmd + "\n")).as(cmd).isEqualTo("\n");
            }
            awaitLine(d, "has no server available!");
            return d.output().lines().filter(l -> l.contains("Server be/") || l.contains("has no server available"))
                    .map(l -> l.replaceAll("\\(\\d+\\) :", "(PID) :")).toList();
        }
    }

    /** What the admin socket does to servers is logged and shown on the console with HAProxy's words and levels. */
    @Test
    void adminTransitionsAreLoggedAsHaproxy() {
        List<String> sluice = adminTransitions(false);
        assertThat(sluice.stream().filter(l -> !l.startsWith("[")).toList()).containsExactly(
                "Server be/s1 is going DOWN for maintenance. 1 active and 1 backup servers left. 0 sessions active, 0 requeued, 0 remaining in"
                        + " queue.",
                "Server be/s1 is UP/READY (leaving forced maintenance).",
                "Server be/s1 enters drain state. 1 active and 1 backup servers online. 0 sessions requeued, 0 total in queue.",
                "Server be/s1 is UP (leaving forced drain).",
                "Server be/s2 is DOWN, changed from CLI. 1 active and 1 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.",
                "Server be/s2 is UP, changed from CLI. 2 active and 1 backup servers online. 0 sessions requeued, 0 total in queue.",
                "Server be/s2 is going DOWN for maintenance. 1 active and 1 backup servers left. 0 sessions active, 0 requeued, 0 remaining in"
                        + " queue.",
                "Server be/s2 is UP/READY (leaving forced maintenance).",
                "Server be/s1 is stopping, changed from CLI. 1 active and 1 backup servers online. 0 sessions requeued, 0 total in queue.",
                "Server be/s1 is UP, changed from CLI. 2 active and 1 backup servers online. 0 sessions requeued, 0 total in queue.",
                "Server be/s1 is going DOWN for maintenance. 1 active and 1 backup servers left. 0 sessions active, 0 requeued, 0 remaining in"
                        + " queue.",
                "Server be/s2 is going DOWN for maintenance. 0 active and 1 backup servers left. Running on backup. 0 sessions active, 0"
                        + " requeued, 0 remaining in queue.",
                "Backup Server be/s3 is going DOWN for maintenance. 0 active and 0 backup servers left. 0 sessions active, 0 requeued, 0"
                        + " remaining in queue.",
                "backend be has no server available!");
        assertThat(sluice.stream().filter(l -> l.startsWith("[")).toList()).hasSize(14).last().isEqualTo(
                "[ALERT]    (PID) : backend 'be' has no server available!");
    }

    /** Every line of {@link #adminTransitionsAreLoggedAsHaproxy}'s run, console ones included, is HAProxy 2.6's. */
    @Test
    void adminTransitionsSameInHaproxy() {
        Program.HAPROXY.require();
        List<String> sluice = adminTransitions(false);
        List<String> haproxy = adminTransitions(true);
        for (boolean console : new boolean[] {false, true}) {
            assertThat(haproxy.stream().filter(l -> l.startsWith("[") == console).toList()).as("HAProxy 2.6")
                    .isEqualTo(sluice.stream().filter(l -> l.startsWith("[") == console).toList());
        }
    }

    @Test
    void promtoolAcceptsTheCheckFamilies() throws Exception {
        Checked a = new Checked("s1");
        int port = Ports.free();
        String cfg = config(port, "timeout check 2s", """
                option httpchk GET /health
                server s1 127.0.0.1:%d check inter 200
                """.formatted(a.port())).replace("    default_backend be", "    http-request use-service prometheus-exporter if { path /metrics }\n"
                + "    default_backend be");
        try (Daemon d = Daemon.start(false, cfg, port)) {
            ServerQueueTest.awaitStat(d, "be,s1", "check_status", "L7OK");
            String metrics;
            try (RawClient c = new RawClient(port, 10_000)) {
                metrics = new String(c.send("GET /metrics HTTP/1.1\r\nhost: t\r\n\r\n").read().body(), StandardCharsets.UTF_8);
            }
            assertThat(metrics).contains("haproxy_server_check_status{proxy=\"be\",server=\"s1\",state=\"L7OK\"} 1.0")
                    .contains("haproxy_server_check_status{proxy=\"be\",server=\"s1\",state=\"L4CON\"} 0.0")
                    .contains("haproxy_server_check_code{proxy=\"be\",server=\"s1\"} 200.0")
                    .contains("haproxy_server_check_failures_total{proxy=\"be\",server=\"s1\"} 0.0")
                    .contains("haproxy_server_check_up_down_total{proxy=\"be\",server=\"s1\"} 0.0");
            PrometheusTest.assertPromtoolAccepts(metrics);
        }
    }
}

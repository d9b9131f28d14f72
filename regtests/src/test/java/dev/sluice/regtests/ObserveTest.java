package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The analysis of live traffic ({@code observe}, {@code error-limit}, {@code on-error}) and the streams a server's state
 * change ends ({@code on-marked-down shutdown-sessions}, {@code on-marked-up shutdown-backup-sessions}) through the real
 * daemon: the log lines, the check columns of {@code show stat} and {@code show servers state}, the status and the
 * termination flags of the streams. Each scenario runs in Sluice with its expectations written out; the *InHaproxy tests
 * (which require HAProxy 2.6) run it in HAProxy too and require the same record.
 */
class ObserveTest {
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
    private volatile CountDownLatch hold = new CountDownLatch(1);

    @AfterEach
    void stop() throws Exception {
        hold.countDown();
        for (AutoCloseable c : closing) {
            c.close();
        }
        clients.shutdownNow();
    }

    private static final String HEADER = """
            global
                log stdout format raw local0
                stats socket @DIR@/admin.sock level admin
            defaults
                log global
                timeout connect 200ms
                timeout client 10s
                timeout server 10s
                retries 1
            """;

    /** An HTTP origin: /err answers 500, /e501 501, /hold waits for {@link #hold}, anything else 200. */
    private Origin origin(String name) {
        Origin o = Origin.start(name, this::handle);
        closing.add(o);
        return o;
    }

    private boolean handle(Origin.Request r, OutputStream out) throws IOException {
        switch (r.target()) {
            case "/err" -> Origin.respond(out, 500, "Internal Server Error", List.of(), "err".getBytes(StandardCharsets.US_ASCII));
            case "/e501" -> Origin.respond(out, 501, "Not Implemented", List.of(), "no".getBytes(StandardCharsets.US_ASCII));
            case "/hold" -> {
                try {
                    hold.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    return false;
                }
                return false;
            }
            default -> Origin.respond(out, 200, "OK", List.of(), "ok".getBytes(StandardCharsets.US_ASCII));
        }
        return true;
    }

    private static String status(int port, String path) {
        try (RawClient c = new RawClient(port, 10_000)) {
            return Integer.toString(c.send("GET " + path + " HTTP/1.1\r\nhost: t\r\n\r\n").read().status());
        } catch (UncheckedIOException e) {
            return "closed";
        }
    }

    private Future<String> held(int port, String path) {
        return clients.submit(() -> status(port, path));
    }

    /** A TCP client that sends a line and keeps its side open: what it read before the close, or "timeout". */
    private Future<String> tcpClient(int port) {
        return clients.submit(() -> {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
                InputStream in = s.getInputStream();
                int n = 0;
                try {
                    while (in.read() >= 0) {
                        n++;
                    }
                } catch (java.net.SocketException e) {
                    return "reset after " + n;
                }
                return "closed after " + n;
            } catch (java.net.SocketTimeoutException e) {
                return "timeout";
            }
        });
    }

    private static void awaitLine(Daemon d, String part) {
        List<String> l = d.awaitLines(x -> x.contains(part), 1);
        assertThat(l).as("%s printed '%s'\n%s", d.name(), part, d.output()).isNotEmpty();
    }

    private static final Pattern HTTP_LOG = Pattern.compile(" (f\\w*) (\\w+)/(\\S+) \\S+ (\\d+) \\d+ - - (\\S{4}) .*\"(GET \\S+)");
    private static final Pattern TCP_LOG = Pattern.compile(" (ft\\w*) (\\w+)/(\\S+) \\S+ \\d+ (\\S{2}) ");

    /**
     * What a run shows: the log's lines about servers (durations and PIDs out, log and console apart), each stream's
     * log line reduced to its frontend, backend/server, status, termination flags and request, in order.
     */
    private static List<String> record(Daemon d) {
        List<String> out = new ArrayList<>();
        for (String l : d.output().lines().toList()) {
            if (l.contains("Health check") || l.contains("Server ") || l.contains("has no server available")) {
                out.add(l.replaceAll("duration: \\d+ms", "duration: Nms").replaceAll("\\(\\d+\\) :", "(PID) :"));
                continue;
            }
            Matcher m = HTTP_LOG.matcher(l);
            if (m.find()) {
                out.add("http " + m.group(1) + " " + m.group(2) + "/" + m.group(3) + " " + m.group(4) + " " + m.group(5) + " " + m.group(6));
                continue;
            }
            m = TCP_LOG.matcher(l);
            if (m.find()) {
                out.add("tcp " + m.group(1) + " " + m.group(2) + "/" + m.group(3) + " " + m.group(4));
            }
        }
        // stdout and stderr interleave as they may, and a server's state changes on its check's thread while the streams
        // go on: the log's lines about servers, then the streams', then the console's
        List<String> sorted = new ArrayList<>(out.stream().filter(l -> !l.startsWith("[") && !l.startsWith("http ") && !l.startsWith("tcp ")).toList());
        sorted.addAll(out.stream().filter(l -> l.startsWith("http ") || l.startsWith("tcp ")).toList());
        sorted.addAll(out.stream().filter(l -> l.startsWith("[")).toList());
        return sorted;
    }

    /** The check columns of a server's {@code show stat} row. */
    private static String checkColumns(Daemon d, String row) {
        StringBuilder b = new StringBuilder(row);
        for (String c : List.of("status", "chkfail", "chkdown", "hanafail", "check_status", "check_code", "check_duration", "check_desc",
                "last_chk", "check_health", "eresp", "econ", "wretr")) {
            b.append(' ').append(c).append('=').append(stat(d, row, c).replace("* ", ""));
        }
        return b.toString();
    }

    /** A column of a {@code show stat} row, its CSV quotes read (a field with a comma is quoted). */
    private static String stat(Daemon d, String row, String column) {
        List<String> lines = cli(d, "show stat").lines().toList();
        List<String> header = List.of(lines.get(0).substring(2).split(",", -1));
        for (String l : lines) {
            if (l.startsWith(row + ",")) {
                return csv(l).get(header.indexOf(column));
            }
        }
        throw new AssertionError("no row " + row);
    }

    private static List<String> csv(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quoted) {
                if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    f.append('"');
                    i++;
                } else if (ch == '"') {
                    quoted = false;
                } else {
                    f.append(ch);
                }
            } else if (ch == '"') {
                quoted = true;
            } else if (ch == ',') {
                out.add(f.toString());
                f.setLength(0);
            } else {
                f.append(ch);
            }
        }
        out.add(f.toString());
        return out;
    }

    /** A server's {@code show servers state} line up to its check columns, without the time since the last change. */
    private static String serverState(Daemon d, String be, String srv) {
        for (String l : AdminClient.run(d.dir().resolve("admin.sock"), "show servers state " + be + "\n").lines().toList()) {
            String[] w = l.split(" ");
            if (w.length > 13 && w[3].equals(srv)) {
                w[9] = "T";
                w[13] = String.valueOf(Integer.parseInt(w[13]) & ~1);
                return String.join(" ", List.of(w).subList(0, 14));
            }
        }
        throw new AssertionError("no server " + srv);
    }

    private static String cli(Daemon d, String cmd) {
        return AdminClient.run(d.dir().resolve("admin.sock"), cmd + "\n");
    }

    // ------------------------------------------------------------------ scenarios

    /**
     * Connection errors (layer4): an HTTP server whose checks go to a live port while its traffic port refuses, taken
     * DOWN by mark-down after 2 failed attempts of one request (the request's retry is the second), then its backup
     * serves; a TCP server with sudden-death at each error: the first leaves one failure before DOWN, the second takes
     * it DOWN.
     */
    private List<String> layer4(boolean haproxy, Origin live, int dead) {
        List<String> got = new ArrayList<>();
        int fe = Ports.free();
        // one checked server per process: the first checks of several are spread over the smallest inter
        String http = HEADER + """
                frontend fe
                    mode http
                    option httplog
                    bind 127.0.0.1:%1$d
                    default_backend be
                backend be
                    mode http
                    option log-health-checks
                    server s1 127.0.0.1:%2$d check port %3$d inter 1h observe layer4 error-limit 1 on-error mark-down
                    server b1 127.0.0.1:%3$d backup
                """.formatted(fe, dead, live.port());
        try (Daemon d = Daemon.start(haproxy, http, fe)) {
            awaitLine(d, "Health check for server be/s1 succeeded");
            got.add(status(fe, "/a"));
            awaitLine(d, "GET /a");
            got.add(status(fe, "/b"));
            awaitLine(d, "GET /b");
            got.add(checkColumns(d, "be,s1"));
            got.add(serverState(d, "be", "s1"));
            got.addAll(record(d));
        }
        int ft = Ports.free();
        int probe = Ports.free();
        // the daemon is awaited on another port: a connection that closes at once would be a stream of bt's
        String tcp = HEADER + """
                frontend probe
                    mode tcp
                    bind 127.0.0.1:%4$d
                    tcp-request connection reject
                frontend ft
                    mode tcp
                    option tcplog
                    bind 127.0.0.1:%1$d
                    default_backend bt
                backend bt
                    mode tcp
                    retries 2
                    option log-health-checks
                    server t1 127.0.0.1:%2$d check port %3$d inter 1h observe layer4 error-limit 1 on-error sudden-death
                """.formatted(ft, dead, live.port(), probe);
        try (Daemon d = Daemon.start(haproxy, tcp, probe)) {
            awaitLine(d, "Health check for server bt/t1 succeeded");
            got.add(tcpClient(ft).get(10, TimeUnit.SECONDS));
            awaitLine(d, "Server bt/t1 is DOWN");
            awaitLine(d, " ft bt/t1 ");
            got.add(checkColumns(d, "bt,t1"));
            got.add(serverState(d, "bt", "t1"));
            got.addAll(record(d));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return got;
    }

    @Test
    void connectErrorsTakeServersDownAsHaproxy() {
        Origin live = origin("live");
        List<String> r = layer4(false, live, Ports.free());
        String l4 = "Detected 1 consecutive errors, last one was: L4 unsuccessful connection";
        assertThat(r).containsExactly("503", "200",
                "be,s1 status=DOWN chkfail=2 chkdown=1 hanafail=2 check_status=HANA check_code= check_duration=18446744073709551615"
                        + " check_desc=Health analyze last_chk=" + l4 + " check_health=0 eresp=0 econ=1 wretr=1",
                "3 be 1 s1 127.0.0.1 0 0 1 1 T 4 2 0 6",
                "Health check for server be/s1 succeeded, reason: Layer4 check passed, check duration: Nms, status: 3/3 UP.",
                "Health check for server be/s1 failed, reason: Health analyze, info: \"" + l4 + "\", status: 0/2 DOWN.",
                "Server be/s1 is DOWN. 0 active and 1 backup servers left. Running on backup. 1 sessions active, 0 requeued, 0 remaining in"
                        + " queue.",
                // mark-down again: the counter goes to rise and fails, a failed check that is reported
                "Health check for server be/s1 failed, reason: Health analyze, info: \"" + l4 + "\", status: 0/2 DOWN.",
                "http fe be/s1 503 SC-- GET /a",
                "http fe be/b1 200 ---- GET /b",
                "[WARNING]  (PID) : Health check for server be/s1 succeeded, reason: Layer4 check passed, check duration: Nms, status: 3/3 UP.",
                "[WARNING]  (PID) : Health check for server be/s1 failed, reason: Health analyze, info: \"" + l4 + "\", status: 0/2 DOWN.",
                "[WARNING]  (PID) : Server be/s1 is DOWN. 0 active and 1 backup servers left. Running on backup. 1 sessions active, 0 requeued,"
                        + " 0 remaining in queue.",
                "[WARNING]  (PID) : Health check for server be/s1 failed, reason: Health analyze, info: \"" + l4 + "\", status: 0/2 DOWN.",
                "closed after 0",
                "bt,t1 status=DOWN chkfail=2 chkdown=1 hanafail=3 check_status=HANA check_code= check_duration=18446744073709551615"
                        + " check_desc=Health analyze last_chk=" + l4 + " check_health=0 eresp=0 econ=1 wretr=2",
                "4 bt 1 t1 127.0.0.1 0 0 1 1 T 4 2 0 6",
                "Health check for server bt/t1 succeeded, reason: Layer4 check passed, check duration: Nms, status: 3/3 UP.",
                // sudden-death: one failure left, then DOWN; the third error changes nothing more
                "Health check for server bt/t1 failed, reason: Health analyze, info: \"" + l4 + "\", status: 1/3 UP.",
                "Health check for server bt/t1 failed, reason: Health analyze, info: \"" + l4 + "\", status: 0/2 DOWN.",
                "Server bt/t1 is DOWN. 0 active and 0 backup servers left. 1 sessions active, 0 requeued, 0 remaining in queue.",
                "backend bt has no server available!",
                "tcp ft bt/t1 SC",
                "[WARNING]  (PID) : Health check for server bt/t1 succeeded, reason: Layer4 check passed, check duration: Nms, status: 3/3 UP.",
                "[WARNING]  (PID) : Health check for server bt/t1 failed, reason: Health analyze, info: \"" + l4 + "\", status: 1/3 UP.",
                "[WARNING]  (PID) : Health check for server bt/t1 failed, reason: Health analyze, info: \"" + l4 + "\", status: 0/2 DOWN.",
                "[WARNING]  (PID) : Server bt/t1 is DOWN. 0 active and 0 backup servers left. 1 sessions active, 0 requeued, 0 remaining in queue.",
                "[ALERT]    (PID) : backend 'bt' has no server available!");
    }

    @Test
    void connectErrorsTakeServersDownInHaproxy() {
        Program.HAPROXY.require();
        Origin live = origin("live");
        int dead = Ports.free();
        List<String> sluice = layer4(false, live, dead);
        List<String> haproxy = layer4(true, live, dead);
        assertThat(haproxy).as("HAProxy 2.6").isEqualTo(sluice);
    }

    /**
     * Responses (layer7, the default fail-check): a 500 is an error, a 501 and a 404 are not and clear the count; 2 in
     * a row fail a check (HANA), the next ones start again.
     */
    private List<String> layer7(boolean haproxy, Origin o) {
        int fe = Ports.free();
        String cfg = HEADER + """
                frontend fe
                    mode http
                    option httplog
                    bind 127.0.0.1:%1$d
                    default_backend be
                backend be
                    mode http
                    option log-health-checks
                    server s1 127.0.0.1:%2$d check inter 1h observe layer7 error-limit 2
                """.formatted(fe, o.port());
        try (Daemon d = Daemon.start(haproxy, cfg, fe)) {
            awaitLine(d, "Health check for server be/s1 succeeded");
            List<String> got = new ArrayList<>();
            for (String p : List.of("/err", "/e501", "/err", "/missing", "/err", "/err", "/err")) {
                got.add(status(fe, p));
            }
            awaitLine(d, "failed, reason: Health analyze");
            d.awaitLines(l -> l.contains("GET /"), 7);
            got.add(checkColumns(d, "be,s1"));
            got.add(serverState(d, "be", "s1"));
            got.addAll(record(d));
            return got;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void wrongResponsesFailChecksAsHaproxy() {
        List<String> r = layer7(false, origin("s1"));
        String sts = "Detected 2 consecutive errors, last one was: Wrong http response";
        assertThat(r).containsExactly("500", "501", "500", "200", "500", "500", "500",
                "be,s1 status=UP 2/3 chkfail=1 chkdown=0 hanafail=1 check_status=HANA check_code= check_duration=18446744073709551615"
                        + " check_desc=Health analyze last_chk=" + sts + " check_health=3 eresp=0 econ=0 wretr=0",
                "3 be 1 s1 127.0.0.1 2 0 1 1 T 4 2 3 6",
                "Health check for server be/s1 succeeded, reason: Layer4 check passed, check duration: Nms, status: 3/3 UP.",
                "Health check for server be/s1 failed, reason: Health analyze, info: \"" + sts + "\", status: 2/3 UP.",
                "http fe be/s1 500 ---- GET /err",
                "http fe be/s1 501 ---- GET /e501",
                "http fe be/s1 500 ---- GET /err",
                "http fe be/s1 200 ---- GET /missing",
                "http fe be/s1 500 ---- GET /err",
                "http fe be/s1 500 ---- GET /err",
                "http fe be/s1 500 ---- GET /err",
                "[WARNING]  (PID) : Health check for server be/s1 succeeded, reason: Layer4 check passed, check duration: Nms, status: 3/3 UP.",
                "[WARNING]  (PID) : Health check for server be/s1 failed, reason: Health analyze, info: \"" + sts + "\", status: 2/3 UP.");
    }

    @Test
    void wrongResponsesFailChecksInHaproxy() {
        Program.HAPROXY.require();
        Origin o = origin("s1");
        List<String> sluice = layer7(false, o);
        List<String> haproxy = layer7(true, o);
        assertThat(haproxy).as("HAProxy 2.6").isEqualTo(sluice);
    }

    /**
     * on-marked-down shutdown-sessions: an HTTP stream waiting for its response and a TCP stream in its data phase end
     * when their servers go into maintenance (502 DH, D-); on-marked-up shutdown-backup-sessions: a stream on the backup
     * server ends when the active server leaves its maintenance (502 UH).
     */
    private List<String> shutdowns(boolean haproxy, Origin o) {
        hold = new CountDownLatch(1);
        int fe = Ports.free();
        int ft = Ports.free();
        int fu = Ports.free();
        TcpOrigin silent = TcpOrigin.start(TcpOrigin.SILENT);
        closing.add(silent);
        String cfg = HEADER + """
                frontend fe
                    mode http
                    option httplog
                    bind 127.0.0.1:%1$d
                    default_backend be
                frontend fu
                    mode http
                    option httplog
                    bind 127.0.0.1:%3$d
                    default_backend bu
                frontend ft
                    mode tcp
                    option tcplog
                    bind 127.0.0.1:%2$d
                    default_backend bt
                backend be
                    mode http
                    server s1 127.0.0.1:%4$d on-marked-down shutdown-sessions
                backend bu
                    mode http
                    server u1 127.0.0.1:%4$d disabled on-marked-up shutdown-backup-sessions
                    server ub 127.0.0.1:%4$d backup
                backend bt
                    mode tcp
                    server t1 127.0.0.1:%5$d on-marked-down shutdown-sessions
                """.formatted(fe, ft, fu, o.port(), silent.port());
        int before = o.connections();
        try (Daemon d = Daemon.start(haproxy, cfg, fe)) {
            List<String> got = new ArrayList<>();
            Future<String> a = held(fe, "/hold");
            Future<String> u = held(fu, "/hold");
            Future<String> t = tcpClient(ft);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((o.connections() - before < 2 || silent.connections() < 1) && System.nanoTime() < deadline) {
                Daemon.sleep(20);
            }
            // each stream counted on its server ("N sessions active" in the lines), however loaded the machine
            for (String row : List.of("be,s1", "bt,t1", "bu,ub")) {
                while (!"1".equals(ServerQueueTest.stat(d, row, "scur")) && System.nanoTime() < deadline) {
                    Daemon.sleep(20);
                }
            }
            Daemon.sleep(100);
            got.add(cli(d, "disable server be/s1"));
            got.add(cli(d, "disable server bt/t1"));
            got.add(cli(d, "enable server bu/u1"));
            got.add(a.get(10, TimeUnit.SECONDS));
            got.add(u.get(10, TimeUnit.SECONDS));
            got.add(t.get(10, TimeUnit.SECONDS));
            d.awaitLines(l -> l.contains("\"GET /hold") || l.contains(" ft bt/"), 3);
            // the streams end on their own loops, in any order; the transition lines' stream count is masked: HAProxy's
            // kill wakes streams that may end on other threads before its line is written (0 or 1 seen, both in HAProxy)
            got.addAll(record(d).stream().map(l -> l.replaceAll("\\d+ sessions active", "N sessions active")).sorted().toList());
            hold.countDown();
            return got;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void stateChangesEndStreamsAsHaproxy() {
        List<String> r = shutdowns(false, origin("o"));
        assertThat(r.subList(0, 3)).containsOnly("\n");
        assertThat(r.subList(3, 6)).containsExactly("502", "502", "closed after 0");
        List<String> logged = r.stream().filter(l -> l.startsWith("http ") || l.startsWith("tcp ")).toList();
        assertThat(logged).containsExactly(
                "http fe be/s1 502 DH-- GET /hold",
                "http fu bu/ub 502 UH-- GET /hold",
                "tcp ft bt/t1 D-");
        assertThat(r).contains("Server be/s1 is going DOWN for maintenance. 0 active and 0 backup servers left. N sessions active, 0 requeued,"
                + " 0 remaining in queue.");
    }

    @Test
    void stateChangesEndStreamsInHaproxy() {
        Program.HAPROXY.require();
        Origin o = origin("o");
        List<String> sluice = shutdowns(false, o);
        List<String> haproxy = shutdowns(true, o);
        assertThat(haproxy).as("HAProxy 2.6").isEqualTo(sluice);
    }

    /**
     * The analysis takes a server DOWN (layer7, mark-down at the first 500) and on-marked-down ends its other stream, which
     * waited for its response: 502 DH, and the close it sees is one more error (a second mark-down). HAProxy applies
     * on-error inside the stream that saw the 500, Sluice just after, on the check's loop: the transition line's session
     * count is masked, and so is that stream's first flag (HAProxy's kill catches it, D---, Sluice's finds it ended).
     */
    private List<String> markDown(boolean haproxy, Origin o) {
        hold = new CountDownLatch(1);
        int fe = Ports.free();
        String cfg = HEADER + """
                frontend fe
                    mode http
                    option httplog
                    bind 127.0.0.1:%1$d
                    default_backend be
                backend be
                    mode http
                    server s1 127.0.0.1:%2$d check inter 1h observe layer7 error-limit 1 on-error mark-down on-marked-down shutdown-sessions
                """.formatted(fe, o.port());
        int before = o.requests().size();
        try (Daemon d = Daemon.start(haproxy, cfg, fe)) {
            List<String> got = new ArrayList<>();
            Future<String> a = held(fe, "/hold");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (o.requests().size() - before < 1 && System.nanoTime() < deadline) {
                Daemon.sleep(20);
            }
            Daemon.sleep(200);
            got.add(status(fe, "/err"));
            got.add(a.get(10, TimeUnit.SECONDS));
            d.awaitLines(l -> l.contains("\"GET /"), 2);
            got.addAll(record(d).stream().map(l -> l.replaceAll("\\d+ sessions active", "N sessions active")
                    .replace("500 D--- GET /err", "500 ---- GET /err")).sorted().toList());
            // the killed stream's close may count before or after the line (HAProxy said 1 and 2 consecutive errors)
            got.add(checkColumns(d, "be,s1").replaceAll("Detected \\d+ consecutive errors", "Detected N consecutive errors"));
            hold.countDown();
            return got;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void markDownEndsTheServersOtherStreamsAsHaproxy() {
        List<String> r = markDown(false, origin("o"));
        String info = "reason: Health analyze, info: \"Detected 1 consecutive errors, last one was: Wrong http response\"";
        assertThat(r).containsExactly("500", "502",
                "Server be/s1 is DOWN, " + info + ". 0 active and 0 backup servers left. N sessions active, 0 requeued, 0 remaining in queue.",
                "[ALERT]    (PID) : backend 'be' has no server available!",
                "[WARNING]  (PID) : Server be/s1 is DOWN, " + info + ". 0 active and 0 backup servers left. N sessions active, 0 requeued,"
                        + " 0 remaining in queue.",
                "backend be has no server available!",
                "http fe be/s1 500 ---- GET /err",
                "http fe be/s1 502 DH-- GET /hold",
                "be,s1 status=DOWN chkfail=2 chkdown=1 hanafail=2 check_status=HANA check_code= check_duration=18446744073709551615"
                        + " check_desc=Health analyze last_chk=Detected N consecutive errors, last one was: Close from server (http)"
                        + " check_health=0 eresp=1 econ=0 wretr=0");
    }

    @Test
    void markDownEndsTheServersOtherStreamsInHaproxy() {
        Program.HAPROXY.require();
        Origin o = origin("o");
        List<String> sluice = markDown(false, o);
        List<String> haproxy = markDown(true, o);
        assertThat(haproxy).as("HAProxy 2.6").isEqualTo(sluice);
    }

    private static final String EVERY_KEYWORD = """
            defaults
                mode http
                timeout connect 1s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:1
                default_backend be
            backend be
                default-server observe layer7 error-limit 5 on-error sudden-death pool-purge-delay 3s
                server s1 127.0.0.1:2 check observe layer4 error-limit 3 on-error mark-down on-marked-down shutdown-sessions on-marked-up shutdown-backup-sessions pool-max-conn 10 pool-low-conn 2 pool-purge-delay 1s
                server s2 127.0.0.1:2 check on-error fastinter pool-max-conn -1 observe none
                server s3 127.0.0.1:2 check on-error fail-check pool-max-conn 0 backup
            """;

    /** {@code -c} accepts every option of the feature. */
    @Test
    void checkModeAcceptsEveryOption() {
        Sluice.Result r = Sluice.check(EVERY_KEYWORD);
        assertThat(r.output()).isEqualTo("Configuration file is valid\n");
        assertThat(r.exitCode()).isZero();
    }

    /** ... as HAProxy 2.6 does. */
    @Test
    void checkModeAcceptsEveryOptionInHaproxy() throws Exception {
        Process h = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", Sluice.writeConfig(EVERY_KEYWORD).toString())
                .redirectErrorStream(true).start();
        String out = new String(h.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(h.waitFor()).as(out).isZero();
        assertThat(out).contains("Configuration file is valid");
    }
}

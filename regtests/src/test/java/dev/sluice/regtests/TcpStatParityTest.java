package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code show stat} of {@code mode tcp} proxies, Sluice's against HAProxy 2.6's after the same connections: clean echoes,
 * a refused server with a retry, a server reset, a client timeout and a {@code shutdown session}. The rows of every
 * frontend, backend and server agree on the columns where TCP differs from HTTP (plan 2.F: {@code mode}, the request
 * and response-class columns, empty or 0 as HAProxy leaves them, intercepted and cache columns) and on the counters a
 * layer-4 stream moves ({@code stot}, {@code bin}/{@code bout}, {@code econ}, {@code wretr}, {@code cli_abrt},
 * {@code srv_abrt}, {@code lbtot}, connection totals). Also: {@code show sess} lists a TCP stream without a request, and
 * a killed one is logged with HAProxy's flags.
 */
class TcpStatParityTest {
    static final List<String> COLUMNS = List.of("mode", "stot", "bin", "bout", "dreq", "dresp", "ereq", "econ", "eresp", "wretr", "wredis",
            "lbtot", "cli_abrt", "srv_abrt", "req_rate", "req_rate_max", "req_tot", "hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx",
            "hrsp_other", "intercepted", "cache_lookups", "cache_hits", "conn_tot", "comp_in", "comp_out", "comp_byp", "comp_rsp", "connect",
            "reuse", "h1_open_connections", "h1_total_connections", "h2_open_connections", "h2_total_connections");

    static String config(int[] p, int echo, int dead, int resets, int silent) {
        return """
                global
                    log stdout format raw local0
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode tcp
                    log global
                    option tcplog
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen l
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                listen dead
                    bind 127.0.0.1:%d
                    retries 1
                    server s1 127.0.0.1:%d
                listen rst
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                listen cto
                    bind 127.0.0.1:%d
                    timeout client 300ms
                    server s1 127.0.0.1:%d
                """.formatted(p[0], echo, p[1], dead, p[2], resets, p[3], silent);
    }

    static void talk(int port, byte[] data, boolean fin) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            if (data != null) {
                s.getOutputStream().write(data);
            }
            if (fin) {
                s.shutdownOutput();
            }
            InputStream in = s.getInputStream();
            try {
                byte[] buf = new byte[65536];
                while (in.read(buf) >= 0) {
                    // the answer, if any
                }
            } catch (SocketException e) {
                // reset
            }
        }
    }

    record Result(Map<String, Map<String, String>> rows, String sessLine, String killedLine) {
    }

    static Result run(boolean haproxy, int echo, int dead, int resets, int silent) throws Exception {
        int[] p = new int[4];
        for (int i = 0; i < p.length; i++) {
            p[i] = Ports.free();
        }
        try (Daemon d = Daemon.start(haproxy, config(p, echo, dead, resets, silent), p[0])) {
            Path sock = d.dir().resolve("admin.sock");
            // the readiness probe's session is over before the traffic: give it a moment to be counted
            Daemon.sleep(200);
            Map<String, Map<String, String>> before = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
            talk(p[0], "ping".getBytes(StandardCharsets.US_ASCII), true);
            byte[] big = new byte[100_000];
            TcpOrigin.fill(big, 0, big.length);
            talk(p[0], big, true);
            talk(p[1], "x".getBytes(StandardCharsets.US_ASCII), false);
            talk(p[2], null, false);
            talk(p[3], "q".getBytes(StandardCharsets.US_ASCII), false);
            // a stream to kill: listed without a request, then shut down
            String sessLine;
            int killedPort;
            try (Socket s = new Socket("127.0.0.1", p[0])) {
                s.setSoTimeout(10_000);
                killedPort = s.getLocalPort();
                s.getOutputStream().write("abc".getBytes(StandardCharsets.US_ASCII));
                assertThat(s.getInputStream().readNBytes(3)).isEqualTo("abc".getBytes(StandardCharsets.US_ASCII));
                String sess = AdminClient.run(sock, "show sess\n");
                sessLine = sess.lines().filter(l -> l.contains("src=127.0.0.1:" + killedPort + " ")).findFirst().orElse(null);
                assertThat(sessLine).as("%s show sess:\n%s", d.name(), sess).isNotNull();
                Matcher m = Pattern.compile("^(0x[0-9a-f]+):").matcher(sessLine);
                assertThat(m.find()).isTrue();
                AdminClient.run(sock, "shutdown session " + m.group(1) + "\n");
                try {
                    assertThat(s.getInputStream().read()).isEqualTo(-1);
                } catch (SocketException e) {
                    // reset
                }
            }
            String mark = "127.0.0.1:" + killedPort + " [";
            List<String> killed = d.awaitLines(l -> l.startsWith(mark), 1);
            // every stream ended and was counted: the frontends have no current session
            Daemon.sleep(300);
            Map<String, Map<String, String>> after = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
            Map<String, Map<String, String>> delta = new LinkedHashMap<>();
            for (Map.Entry<String, Map<String, String>> e : after.entrySet()) {
                Map<String, String> row = new LinkedHashMap<>();
                for (String c : COLUMNS) {
                    if (!e.getValue().containsKey(c)) {
                        continue;
                    }
                    String a = e.getValue().get(c);
                    String b = before.containsKey(e.getKey()) ? before.get(e.getKey()).get(c) : null;
                    row.put(c, delta(a, b));
                }
                delta.put(e.getKey(), row);
            }
            return new Result(delta, sessLine, killed.isEmpty() ? null : killed.get(0));
        }
    }

    /** How a column moved: a number's difference, a text (or an empty column) as it is. */
    static String delta(String after, String before) {
        if (after == null || after.isEmpty() || before == null || before.isEmpty()) {
            return after;
        }
        try {
            return Long.toString(Long.parseLong(after) - Long.parseLong(before));
        } catch (NumberFormatException e) {
            return after;
        }
    }

    @Test
    void showStatOfTcpProxiesIsHaproxys() throws Exception {
        Program.HAPROXY.require();
        try (TcpOrigin echo = TcpOrigin.start(TcpOrigin.ECHO); TcpOrigin resets = TcpOrigin.start(TcpOrigin.resetAfter(64 * 1024));
                TcpOrigin silent = TcpOrigin.start(TcpOrigin.SILENT)) {
            int dead = Ports.free();
            Result theirs = run(true, echo.port(), dead, resets.port(), silent.port());
            Result ours = run(false, echo.port(), dead, resets.port(), silent.port());
            List<String> differences = new ArrayList<>();
            for (String row : theirs.rows().keySet()) {
                assertThat(ours.rows()).as("rows").containsKey(row);
                Map<String, String> h = theirs.rows().get(row);
                Map<String, String> s = ours.rows().get(row);
                for (String c : h.keySet()) {
                    // the module columns of backends and servers are a departure of every mode (StatRows leaves them empty)
                    boolean module = c.startsWith("h1_") || c.startsWith("h2_");
                    if (s.containsKey(c) && !(module && !row.endsWith("/FRONTEND")) && !Objects.equals(s.get(c), h.get(c))) {
                        differences.add(row + " " + c + ": haproxy " + h.get(c) + ", sluice " + s.get(c));
                    }
                }
            }
            assertThat(differences).as("haproxy %s%nsluice %s", theirs.rows(), ours.rows()).isEmpty();
            assertThat(theirs.rows().get("l/FRONTEND").get("mode")).isEqualTo("tcp");
            // show sess: the stream's frontend, backend and server, and no request
            for (String line : List.of(theirs.sessLine(), ours.sessLine())) {
                assertThat(line).contains(" fe=l be=l srv=s1 ").doesNotContain("req=");
            }
            // the killed stream's flags
            assertThat(TcpRelayTest.flags(ours.killedLine())).as(ours.killedLine()).isEqualTo(TcpRelayTest.flags(theirs.killedLine()));
        }
    }
}

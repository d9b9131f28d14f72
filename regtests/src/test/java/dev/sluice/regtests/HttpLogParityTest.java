package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The same requests through HAProxy (2.6 here) and Sluice with the same configuration give the same log lines, for
 * what an earlier parity test found different: the status after {@code set-status} (http-response and
 * http-after-response) and the response rules' answers (%Tr -1 then); the request line as it came, before
 * {@code set-path} and {@code set-method}; HTTP/2 requests, whose URI HAProxy's h2 mux makes absolute from :scheme
 * and :authority ({@code %HU}, {@code %HP}, {@code %HPO}, {@code %HQ}, {@code %r}, {@code OPTIONS *}); the
 * &lt;BADREQ&gt; lines of invalid requests (every part of the request line says &lt;BADREQ&gt;, no request time, a
 * request number of its own); a client that leaves in the middle of its request body (CD, or CQ from a queue with
 * its %Tw); and a 101 to a WebSocket
 * upgrade without Sec-WebSocket-Accept (502, PH); captured Connection fields (what is left of them). Timers are
 * compared as -1 or not, the request and line counters
 * ({@code %rt}, {@code %lc}) from the first line. Skipped when haproxy (or curl) is not installed.
 */
class HttpLogParityTest {

    static boolean answer(Origin.Request r, OutputStream out) throws IOException {
        if (r.target().equals("/ws-noaccept")) {
            out.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return false;
        }
        if (r.target().equals("/hop")) {
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive, X-Resp\r\nX-Resp: 1\r\n\r\nok")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return true;
        }
        if (r.target().equals("/q/slow")) {
            sleep(1500);
        }
        Origin.respond(out, 200, "OK", Origin.headers("X-H", "abcdef"), "hello".getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String config(int port, int h2port, int syslog, int origin) {
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                    log 127.0.0.1:%d local0
                frontend fe
                    bind 127.0.0.1:%d
                    bind 127.0.0.1:%d proto h2
                    log-format "%%ST %%tsc %%b/%%s T=%%TR/%%Tw/%%Tc/%%Tr/%%Tq/%%Ti rt=%%rt lc=%%lc U=%%U HM=%%HM HU=%%HU HP=%%HP HPO=%%HPO HQ=%%HQ HV=%%HV B=%%bi:%%bp M=%%[fc_http_major]/%%[bc_http_major] S=%%[srv_name] St=%%[status] L=%%[last_rule_line] %%HQ %%{+Q}r %%hr %%hs"
                    http-request set-var(txn.p) path
                    http-request set-path /rewritten if { path /rw }
                    http-request set-method POST if { path /rwm }
                    http-request return status 204 if { path /ret }
                    http-response set-status 203 if { var(txn.p) -m str /setstatus }
                    http-response set-status 404 reason "Gone Away" if { var(txn.p) -m str /setstatus2 }
                    http-response deny if { var(txn.p) -m str /respdeny }
                    http-response return status 299 if { var(txn.p) -m str /respreturn }
                    http-after-response set-status 202 if { var(txn.p) -m str /after }
                    use_backend bq if { path_beg /q/ }
                    default_backend be
                    capture request header Connection len 40
                    capture response header Connection len 40
                backend be
                    server s1 127.0.0.1:%d
                backend bq
                    timeout queue 5s
                    server s1 127.0.0.1:%d maxconn 1
                """.formatted(syslog, port, h2port, origin, origin);
    }

    static final String WS = "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n";

    /** HTTP/1 requests, each on its own connection. */
    static final List<String> H1 = List.of(
            "GET /a/b?x=1&y HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /setstatus HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /setstatus2 HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /after HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /respdeny HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /respreturn HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /rw?q=1 HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /rwm HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /ret HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET http://abs.example/abs?q HTTP/1.1\r\nHost: abs.example\r\n\r\n",
            // HAProxy's encoding of the request line: '"' as #22, whether quoted or not
            "GET /e\"s]\\c HTTP/1.1\r\nHost: a\r\n\r\n",
            // captured Connection fields: without their close and keep-alive tokens
            "GET /hop HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, X-Foo, TE\r\nX-Foo: 1\r\n\r\n",
            // invalid requests: <BADREQ> lines
            "GARBAGE\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n",
            // a body the client leaves in the middle of, its server connected: CD
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc",
            // a 101 to a WebSocket upgrade without Sec-WebSocket-Accept: 502
            "GET /ws-noaccept HTTP/1.1\r\nHost: a\r\n" + WS + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");

    /** HTTP/2 requests through curl: extra arguments, then the path. */
    static final List<List<String>> H2 = List.of(
            List.of("/a/b?x=1&y"),
            List.of("-H", "Host: other.example:81", "/a"),
            List.of("/setstatus"),
            List.of("/respreturn"),
            List.of("/rw?q"),
            List.of("-X", "OPTIONS", "--request-target", "*", "/"));

    /** Timers as -1 or N, %bp as N; %rt and %lc counted from the first line. */
    static List<String> normalize(List<String> lines) {
        Pattern counter = Pattern.compile("(rt|lc)=(\\d+)");
        long[] first = {-1, -1};
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            Matcher t = Pattern.compile("T=([-0-9/]+)").matcher(l);
            if (t.find()) {
                String timers = t.group(1).replaceAll("(?<![-0-9])\\d+", "N");
                l = l.substring(0, t.start(1)) + timers + l.substring(t.end(1));
            }
            // %bp: the proxy's ephemeral source port towards the server
            l = l.replaceAll("B=([^ :]+):\\d+", "B=$1:N");
            Matcher m = counter.matcher(l);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                int i = m.group(1).equals("rt") ? 0 : 1;
                long v = Long.parseLong(m.group(2));
                if (first[i] < 0) {
                    first[i] = v;
                }
                m.appendReplacement(sb, m.group(1) + "=+" + (v - first[i]));
            }
            m.appendTail(sb);
            out.add(sb.toString());
        }
        return out;
    }

    static List<String> play(int port, int h2port, DatagramSocket syslog, String curl) throws Exception {
        List<String> out = new ArrayList<>();
        for (String r : H1) {
            ByteCountParityTest.h1(port, r);
            out.add(r.lines().findFirst().orElseThrow() + " -> " + ByteCountParityTest.next(syslog));
        }
        // a client leaving mid-body while its request waits in the queue (the only slot held by a slow request): CQ,
        // %Tw until it left
        Thread holder = Thread.ofVirtual().start(() -> {
            try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), port)) {
                s.getOutputStream().write("GET /q/slow HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                s.setSoTimeout(5_000);
                s.getInputStream().read(new byte[8192]);
            } catch (IOException e) {
                // the test's lines tell
            }
        });
        Thread.sleep(300);
        ByteCountParityTest.h1(port, "POST /q/queued HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc");
        holder.join();
        out.add("queued, leaving mid-body -> " + ByteCountParityTest.next(syslog));
        out.add("holding the slot -> " + ByteCountParityTest.next(syslog));
        for (List<String> a : H2) {
            ByteCountParityTest.curl(curl, port, h2port, a);
            out.add("h2 " + a + " -> " + ByteCountParityTest.next(syslog).replace("127.0.0.1:" + h2port, "127.0.0.1:H2PORT"));
        }
        return normalize(out);
    }

    private static void awaitListening(int port) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
    }

    @Test
    void logLinesAreHaproxys() throws Exception {
        String haproxyPath = Program.HAPROXY.require();
        String curl = Program.CURL.require();
        try (Origin o = Origin.start("o", HttpLogParityTest::answer);
                DatagramSocket hlog = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                DatagramSocket slog = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            Path dir = Files.createTempDirectory("log-parity");
            int hport = Ports.free();
            int hport2 = Ports.free();
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(cfg, config(hport, hport2, hlog.getLocalPort(), o.port()), StandardCharsets.UTF_8);
            Process haproxy = new ProcessBuilder(haproxyPath, "-f", cfg.toString(), "-db").redirectErrorStream(true)
                    .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
            int sport = Ports.free();
            int sport2 = Ports.free();
            try (Sluice sluice = Sluice.start(config(sport, sport2, slog.getLocalPort(), o.port()), sport, sport2)) {
                awaitListening(hport);
                ByteCountParityTest.drain(hlog);
                ByteCountParityTest.drain(slog);
                List<String> theirs = play(hport, hport2, hlog, curl);
                List<String> ours = play(sport, sport2, slog, curl);
                theirs.forEach(l -> System.out.println("haproxy: " + l));
                assertThat(ours).containsExactlyElementsOf(theirs);
                // what HAProxy 2.6.12 said, the lines this test was written for
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /setstatus HTTP/1.1 -> 203 ----"));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /hop HTTP/1.1 -> ").endsWith(" {X-Foo,TE} {X-Resp}"));
                // %bi:%bp, where the proxy connected from: none for a request refused before any connection
                assertThat(theirs).anySatisfy(l -> assertThat(l).contains(" B=127.0.0.1:N "));
                assertThat(theirs).anySatisfy(l -> assertThat(l).contains(" B=-:- "));
                // fc_http_major/bc_http_major: the client's encoding on the wire (2 on the h2 bind), the server's (HTTP/1)
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /setstatus HTTP/1.1 -> ").contains(" M=1/1 "));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("h2 ").contains(" M=2/1 "));
                // srv_name at the end of the stream (HAProxy refuses only the response's headers there)
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /setstatus HTTP/1.1 -> ").contains(" S=s1 "));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /respdeny HTTP/1.1 -> 502 PH-- be/s1 T=N/N/N/-1/"));
                // status in a log line: accepted, and no sample (the response has left the buffer); the line of the rule that
                // ended the rules (both files hold the same text)
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /after HTTP/1.1 -> 202").contains(" St=- L=- "));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /respdeny HTTP/1.1 -> 502").contains(" St=- L=17 "));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /ret HTTP/1.1 -> 204").contains(" St=- L=14 "));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /rw?q=1 HTTP/1.1 -> 200 ---- be/s1")
                        .endsWith("\"GET /rw?q=1 HTTP/1.1\" {} {}"));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GARBAGE -> 400 PR-- fe/<NOSRV> T=-1/-1/-1/-1/-1/N")
                        .contains("HM=<BADREQ> HU=<BADREQ> HP=<BADREQ> HPO=<BADREQ> HQ=<BADREQ> HV=<BADREQ>"));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("POST / HTTP/1.1 -> -1 CD-- be/s1"));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("GET /ws-noaccept HTTP/1.1 -> 502 PH-- be/s1"));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("queued, leaving mid-body -> -1 CQ-- bq/<NOSRV> T=N/N/-1/-1/N/"));
                assertThat(theirs).anySatisfy(l -> assertThat(l).startsWith("h2 [/a/b?x=1&y] -> 200 ----")
                        .endsWith("\"GET http://127.0.0.1:H2PORT/a/b?x=1&y HTTP/2.0\" {} {}"));
            } finally {
                haproxy.destroy();
                if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                    haproxy.destroyForcibly();
                }
            }
        }
    }
}

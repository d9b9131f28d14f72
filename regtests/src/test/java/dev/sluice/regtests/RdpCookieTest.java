package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * RDP cookies in {@code mode tcp}, Sluice against HAProxy 2.6 on one configuration and the same connections: the
 * {@code req.rdp_cookie}, {@code req.rdp_cookie_cnt} and {@code req.rdp_cookie(mstshash)} samples (kept in variables by
 * content rules waiting for {@code RDP_COOKIE}, then logged), {@code balance rdp-cookie} (the user names of
 * {@code mstshash} cookies hashed to servers), {@code persist rdp-cookie} (an {@code msts} cookie naming a server by its
 * address and port as Windows' broker writes them), a server that is down with and without {@code option persist}, a
 * cookie line split over two segments, and a client that sends something else. Each server says its name first.
 */
class RdpCookieTest {

    static String config(int[] p, int[] s, int dead) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode tcp
                    log global
                    log-format "%%ci:%%cp %%b/%%s %%ts [%%[var(sess.c)]] [%%[var(sess.n)]] [%%[var(sess.h)]]"
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen rdp
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 1s
                    tcp-request content set-var(sess.c) req.rdp_cookie if RDP_COOKIE
                    tcp-request content set-var(sess.n) req.rdp_cookie_cnt
                    tcp-request content set-var(sess.h) req.rdp_cookie(mstshash)
                    tcp-request content accept if RDP_COOKIE
                    persist rdp-cookie
                    balance rdp-cookie
                    server s1 127.0.0.1:%d
                    server s2 127.0.0.1:%d
                    server s3 127.0.0.1:%d
                    server s4 127.0.0.1:%d
                listen down
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 1s
                    tcp-request content accept if RDP_COOKIE
                    persist rdp-cookie
                    server dead 127.0.0.1:%d check inter 200ms fall 1 rise 1
                    server s1 127.0.0.1:%d
                listen keep
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 1s
                    tcp-request content accept if RDP_COOKIE
                    persist rdp-cookie
                    option persist
                    retries 1
                    server dead 127.0.0.1:%d check inter 200ms fall 1 rise 1
                    server s1 127.0.0.1:%d
                """.formatted(p[0], s[0], s[1], s[2], s[3], p[1], dead, s[0], p[2], dead, s[0]);
    }

    /** An X.224 connection request in its TPKT, carrying {@code cookie} ("name=value") as mstsc sends it. */
    static byte[] request(String cookie) {
        byte[] line = ("Cookie: " + cookie + "\r\n").getBytes(StandardCharsets.US_ASCII);
        int len = 4 + 7 + line.length;
        byte[] b = new byte[len];
        b[0] = 3;
        b[2] = (byte) (len >> 8);
        b[3] = (byte) len;
        b[4] = (byte) (6 + line.length);
        b[5] = (byte) 0xE0;
        System.arraycopy(line, 0, b, 11, line.length);
        return b;
    }

    /** The msts cookie naming 127.0.0.1:{@code port}: the address and port numbers in the byte orders Windows writes. */
    static String msts(int port) {
        long addr = 127L | 1L << 24;
        int swapped = (port & 0xFF) << 8 | port >> 8 & 0xFF;
        return "msts=" + addr + "." + swapped + ".0000";
    }

    record Case(String name, int listen, byte[] first, byte[] second) {
    }

    static List<Case> cases(int[] s, int dead) {
        List<Case> c = new ArrayList<>();
        for (String user : List.of("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")) {
            c.add(new Case("hash-" + user, 0, request("mstshash=" + user), null));
        }
        c.add(new Case("persist-s3", 0, request(msts(s[2])), null));
        c.add(new Case("persist-s2", 0, request(msts(s[1])), null));
        c.add(new Case("persist-unknown", 0, request(msts(1)), null));
        c.add(new Case("persist-bad", 0, request("msts=12x.34.0000"), null));
        c.add(new Case("other-name", 0, request("user=alice"), null));
        byte[] whole = request("mstshash=split");
        c.add(new Case("split", 0, java.util.Arrays.copyOf(whole, 20), java.util.Arrays.copyOfRange(whole, 20, whole.length)));
        c.add(new Case("not-rdp", 0, "GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII), null));
        c.add(new Case("down", 1, request(msts(dead)), null));
        c.add(new Case("down-persist", 2, request(msts(dead)), null));
        return c;
    }

    record Result(Map<String, String> seen, Map<String, String> lines) {
    }

    static Result run(boolean haproxy, int[] s, int dead) throws IOException {
        int[] p = {Ports.free(), Ports.free(), Ports.free()};
        Map<String, String> seen = new LinkedHashMap<>();
        Map<String, Integer> ports = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, config(p, s, dead), p[0])) {
            // the dead servers are seen down by their check
            Daemon.sleep(800);
            for (Case c : cases(s, dead)) {
                try (Socket sk = new Socket("127.0.0.1", p[c.listen()])) {
                    sk.setSoTimeout(3000);
                    ports.put(c.name(), sk.getLocalPort());
                    OutputStream out = sk.getOutputStream();
                    out.write(c.first());
                    out.flush();
                    if (c.second() != null) {
                        Daemon.sleep(150);
                        out.write(c.second());
                        out.flush();
                    }
                    byte[] name = sk.getInputStream().readNBytes(2);
                    // the client ends the stream (its FIN goes to the server, which closes)
                    sk.shutdownOutput();
                    sk.getInputStream().readAllBytes();
                    seen.put(c.name(), name.length == 0 ? "<closed>" : new String(name, StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    seen.put(c.name(), e.getClass().getSimpleName());
                }
            }
            Map<String, String> lines = new LinkedHashMap<>();
            for (Map.Entry<String, Integer> e : ports.entrySet()) {
                String mark = "127.0.0.1:" + e.getValue() + " ";
                List<String> found = d.awaitLines(l -> l.startsWith(mark), 1);
                lines.put(e.getKey(), found.isEmpty() ? null : found.getFirst().substring(mark.length()));
            }
            return new Result(seen, lines);
        }
    }

    @Test
    void rdpCookiesAreReadRoutedAndPersistedAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        int dead = Ports.free();
        try (TcpOrigin s1 = TcpOrigin.start(TcpOrigin.banner("s1")); TcpOrigin s2 = TcpOrigin.start(TcpOrigin.banner("s2"));
                TcpOrigin s3 = TcpOrigin.start(TcpOrigin.banner("s3")); TcpOrigin s4 = TcpOrigin.start(TcpOrigin.banner("s4"))) {
            int[] s = {s1.port(), s2.port(), s3.port(), s4.port()};
            Result theirs = run(true, s, dead);
            Result ours = run(false, s, dead);
            List<String> differences = new ArrayList<>();
            for (String c : theirs.seen().keySet()) {
                String h = theirs.seen().get(c) + " | " + theirs.lines().get(c);
                String o = ours.seen().get(c) + " | " + ours.lines().get(c);
                if (!h.equals(o)) {
                    differences.add(c + "\n  haproxy: " + h + "\n  sluice:  " + o);
                }
            }
            assertThat(differences).isEmpty();
            // what HAProxy does, so the comparison cannot pass on two empty runs
            assertThat(theirs.seen().get("persist-s3")).isEqualTo("s3");
            assertThat(theirs.seen().get("persist-s2")).isEqualTo("s2");
            assertThat(theirs.lines().get("hash-alice")).endsWith("[alice] [1] [alice]");
            assertThat(theirs.seen().values().stream().filter(v -> v.startsWith("s")).distinct().count()).isGreaterThan(2);
            assertThat(theirs.lines().get("down-persist")).contains("keep/dead SC");
            assertThat(theirs.seen().get("down")).isEqualTo("s1");
        }
    }
}

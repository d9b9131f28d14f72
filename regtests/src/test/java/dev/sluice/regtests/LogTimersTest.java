package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * The stream timers before the request, Sluice against HAProxy 2.6: %Th (the connection's handshakes, for its first
 * stream only), %Ti (idle: from the handshakes' end, or the previous request's end, to the request's first byte), and
 * what builds on them: %TR, %Tq (Th + Ti + TR), %Ta, %Tt (Th + Ti + Ta), %Tu (Tt - Ti) and %t against %tr. A client
 * waits 300 ms before its first request and 200 ms before its second one on the same connection, over plain TCP and
 * TLS; the millisecond values may differ by the machine's scheduling, not by their meaning.
 */
class LogTimersTest {

    static String config(int plain, int tls, String pem, int origin) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    log-format "%%ci:%%cp %%HP Th=%%Th Ti=%%Ti TR=%%TR Tq=%%Tq Ta=%%Ta Tt=%%Tt Tu=%%Tu t=%%t tr=%%tr"
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend f
                    bind 127.0.0.1:%d
                    bind 127.0.0.1:%d ssl crt %s
                    default_backend b
                backend b
                    server s1 127.0.0.1:%d
                """.formatted(plain, tls, pem, origin);
    }

    /** Two requests on one connection, after 300 ms and 200 ms of silence; returns the client's port. */
    static int talk(Socket s) throws IOException {
        s.setSoTimeout(5000);
        OutputStream out = s.getOutputStream();
        InputStream in = s.getInputStream();
        for (int i = 0; i < 2; i++) {
            Daemon.sleep(i == 0 ? 300 : 200);
            out.write(("GET /r" + i + " HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // the origin's answer: a head and a short body with a Content-Length
            byte[] buf = new byte[4096];
            StringBuilder got = new StringBuilder();
            while (!got.toString().contains("\r\n\r\n") || !complete(got.toString())) {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
        }
        return s.getLocalPort();
    }

    private static boolean complete(String r) {
        int head = r.indexOf("\r\n\r\n");
        String h = r.substring(0, head).toLowerCase();
        int cl = h.indexOf("content-length:");
        if (cl < 0) {
            return true;
        }
        int end = h.indexOf("\r\n", cl);
        int len = Integer.parseInt(h.substring(cl + 15, end < 0 ? h.length() : end).strip());
        return r.length() - head - 4 >= len;
    }

    /** The log lines of the two connections' requests, in order: plain /r0, /r1, TLS /r0, /r1. */
    static List<String> run(boolean haproxy, TestPki pki, TestPki.Issued leaf, int origin) throws Exception {
        int plain = Ports.free();
        int tls = Ports.free();
        try (Daemon d = Daemon.start(haproxy, config(plain, tls, leaf.pem().toString(), origin), plain)) {
            // a first exchange each way warms a cold daemon's paths (its first TLS handshake would weigh on Th)
            try (Socket s = new Socket("127.0.0.1", plain)) {
                talk(s);
            }
            try (SSLSocket s = (SSLSocket) pki.clientContext().getSocketFactory().createSocket("127.0.0.1", tls)) {
                s.startHandshake();
                talk(s);
            }
            int p1;
            int p2;
            try (Socket s = new Socket("127.0.0.1", plain)) {
                p1 = talk(s);
            }
            try (SSLSocket s = (SSLSocket) pki.clientContext().getSocketFactory().createSocket("127.0.0.1", tls)) {
                s.startHandshake();
                p2 = talk(s);
            }
            List<String> out = new ArrayList<>();
            for (int p : new int[] {p1, p2}) {
                for (String r : List.of("/r0", "/r1")) {
                    String mark = "127.0.0.1:" + p + " " + r + " ";
                    out.add(d.awaitLines(l -> l.startsWith(mark), 1).getFirst().substring(mark.length()));
                }
            }
            return out;
        }
    }

    /** A line's timers by name (t and tr as milliseconds of their day, to compare their difference). */
    static java.util.Map<String, Long> timers(String line) {
        java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
        for (String w : line.split(" ")) {
            int eq = w.indexOf('=');
            String k = w.substring(0, eq);
            String v = w.substring(eq + 1);
            if (k.equals("t") || k.equals("tr")) {
                // [06/Dec/2026:20:40:01.123]
                String[] hms = v.replace("[", "").replace("]", "").substring(v.indexOf(':') + 1 - (v.startsWith("[") ? 1 : 0)).split("[:.]");
                m.put(k, ((Long.parseLong(hms[0]) * 60 + Long.parseLong(hms[1])) * 60 + Long.parseLong(hms[2])) * 1000 + Long.parseLong(hms[3]));
            } else {
                m.put(k, Long.parseLong(v));
            }
        }
        return m;
    }

    @Test
    void handshakeAndIdleTimesAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        TestPki pki = new TestPki("timers-ca");
        TestPki.Issued leaf = pki.leaf("localhost");
        try (Origin o = Origin.start("o")) {
            List<String> theirs = run(true, pki, leaf, o.port());
            List<String> ours = run(false, pki, leaf, o.port());
            for (int i = 0; i < theirs.size(); i++) {
                var h = timers(theirs.get(i));
                var s = timers(ours.get(i));
                String what = "request " + i + "\n  haproxy: " + theirs.get(i) + "\n  sluice:  " + ours.get(i);
                // the waits are the client's: 300 ms before a connection's first request, 200 ms before its second
                long idle = i % 2 == 0 ? 300 : 200;
                for (var m : List.of(h, s)) {
                    assertThat(m.get("Ti")).as(what).isBetween(idle - 80, idle + 150);
                    assertThat(m.get("Tq")).as(what).isEqualTo(m.get("Th") + m.get("Ti") + m.get("TR"));
                    assertThat(m.get("Tt")).as(what).isEqualTo(m.get("Th") + m.get("Ti") + m.get("Ta"));
                    assertThat(m.get("Tu")).as(what).isEqualTo(m.get("Tt") - m.get("Ti"));
                    assertThat(m.get("tr") - m.get("t")).as(what).isBetween(m.get("Th") + m.get("Ti") - 2, m.get("Th") + m.get("Ti") + 2);
                }
                // a stream after the first has no handshake, the first of a plain connection almost none
                if (i % 2 == 1 || i < 2) {
                    assertThat(h.get("Th")).as(what).isLessThanOrEqualTo(2);
                    assertThat(s.get("Th")).as(what).isLessThanOrEqualTo(i % 2 == 1 ? 0 : 20);
                } else {
                    // the TLS handshake: a few milliseconds, on both
                    assertThat(s.get("Th")).as(what).isBetween(0L, h.get("Th") + 150);
                }
                assertThat(s.get("TR")).as(what).isBetween(0L, h.get("TR") + 50);
            }
        }
    }
}

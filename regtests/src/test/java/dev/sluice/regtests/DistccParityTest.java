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
 * {@code distcc_param}, {@code distcc_body} and the direction-neutral {@code payload}, {@code payload_lv} in
 * {@code tcp-request content} rules, Sluice against HAProxy 2.6 on the same connections: values kept in variables by rules
 * that wait for the token, then logged; a token split over two segments; a parameter that is not hexadecimal.
 */
class DistccParityTest {

    static String config(int p, int s) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode tcp
                    log global
                    log-format "%%ci:%%cp [%%[var(sess.a)]] [%%[var(sess.v)]] [%%[var(sess.v2)]] [%%[var(sess.d)]] [%%[var(sess.p)]] [%%[var(sess.lv)]]"
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen distcc
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 1s
                    tcp-request content set-var(sess.a) distcc_param(ARGC)
                    tcp-request content set-var(sess.v) distcc_body(ARGV)
                    tcp-request content set-var(sess.v2) distcc_body(ARGV,2)
                    tcp-request content set-var(sess.d) distcc_param(DOTI)
                    tcp-request content set-var(sess.p) payload(0,4)
                    tcp-request content set-var(sess.lv) payload_lv(10,2)
                    tcp-request content accept if { distcc_param(DOTI) -m found } || WAIT_END
                    server s1 127.0.0.1:%d
                """.formatted(p, s);
    }

    private static final String STREAM = "DIST00000001ARGC00000003ARGV00000003gccARGV00000002-cARGV00000005x.cppDOTI00000004int;";

    record Case(String name, byte[] first, byte[] second) {
    }

    static List<Case> cases() {
        byte[] all = STREAM.getBytes(StandardCharsets.US_ASCII);
        List<Case> c = new ArrayList<>();
        c.add(new Case("whole", all, null));
        c.add(new Case("split", java.util.Arrays.copyOf(all, 30), java.util.Arrays.copyOfRange(all, 30, all.length)));
        c.add(new Case("bad-hex", "DIST0000000zDOTI00000004int;".getBytes(StandardCharsets.US_ASCII), null));
        return c;
    }

    static Map<String, String> run(boolean haproxy, int s) throws IOException {
        int p = Ports.free();
        Map<String, Integer> ports = new LinkedHashMap<>();
        Map<String, String> out = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, config(p, s), p)) {
            for (Case c : cases()) {
                try (Socket sk = new Socket("127.0.0.1", p)) {
                    sk.setSoTimeout(3000);
                    ports.put(c.name(), sk.getLocalPort());
                    OutputStream o = sk.getOutputStream();
                    o.write(c.first());
                    o.flush();
                    if (c.second() != null) {
                        Daemon.sleep(150);
                        o.write(c.second());
                        o.flush();
                    }
                    byte[] name = sk.getInputStream().readNBytes(2);
                    sk.shutdownOutput();
                    sk.getInputStream().readAllBytes();
                    out.put(c.name() + " seen", new String(name, StandardCharsets.US_ASCII));
                }
            }
            for (Map.Entry<String, Integer> e : ports.entrySet()) {
                String mark = "127.0.0.1:" + e.getValue() + " ";
                List<String> found = d.awaitLines(l -> l.startsWith(mark), 1);
                out.put(e.getKey(), found.isEmpty() ? null : found.getFirst().substring(mark.length()));
            }
        }
        return out;
    }

    @Test
    void distccAndPayloadAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        try (TcpOrigin s1 = TcpOrigin.start(TcpOrigin.banner("s1"))) {
            Map<String, String> theirs = run(true, s1.port());
            Map<String, String> ours = run(false, s1.port());
            assertThat(ours).isEqualTo(theirs);
            assertThat(theirs.get("whole")).isEqualTo("[3] [gcc] [-c] [4] [DIST] [-]");
            assertThat(theirs.get("split seen")).isEqualTo("s1");
        }
    }
}

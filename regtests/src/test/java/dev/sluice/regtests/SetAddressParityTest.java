package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code set-src}, {@code set-dst-port} in {@code tcp-request connection} and {@code http-request} rules, Sluice against
 * HAProxy 2.6 on one configuration: what the log line's client and frontend addresses and the {@code src} and
 * {@code dst_port} fetches say afterwards (a masked source, a header's IPv4 or IPv6 address, the port kept).
 */
class SetAddressParityTest {
    static String config(int port, Origin o) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    log-format "%%ci %%fi:%%fp %%[src] %%[dst_port]"
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend f
                    bind 127.0.0.1:%d
                    tcp-request connection set-src src,ipmask(16)
                    http-request set-src hdr(x-real-ip) if { req.hdr(x-real-ip) -m found }
                    http-request set-dst-port int(81)
                    default_backend b
                backend b
                    server s 127.0.0.1:%d
                """.formatted(port, o.port());
    }

    static List<String> run(boolean haproxy, Origin o) throws Exception {
        int port = Ports.free();
        try (Daemon d = Daemon.start(haproxy, config(port, o), port)) {
            String url = "http://127.0.0.1:" + port + "/";
            Http2Test.run(List.of("curl", "-sS", "-o", "/dev/null", url));
            Http2Test.run(List.of("curl", "-sS", "-o", "/dev/null", "-H", "X-Real-IP: 10.9.8.7", url));
            Http2Test.run(List.of("curl", "-sS", "-o", "/dev/null", "-H", "X-Real-IP: ::1", url));
            List<String> lines = d.awaitLines(l -> l.endsWith(" 81"), 3);
            List<String> out = new ArrayList<>();
            for (String l : lines) {
                out.add(l);
            }
            return out;
        }
    }

    @Test
    void addressesSetByRulesAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        Program.CURL.require();
        try (Origin o = Origin.start("o")) {
            List<String> theirs = run(true, o);
            List<String> ours = run(false, o);
            assertThat(theirs).containsExactly("127.0.0.0 127.0.0.1:81 127.0.0.0 81", "10.9.8.7 127.0.0.1:81 10.9.8.7 81", "::1 127.0.0.1:81 ::1 81");
            assertThat(ours).isEqualTo(theirs);
        }
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code res.comp} and {@code res.comp_algo} against HAProxy 2.6 (each daemon in turn on the same configuration): what
 * compresses the response (the algorithm the request's Accept-Encoding chose), already in the response rules (HAProxy's
 * compression decides before them, and sets its headers after: they do not see its Content-Encoding) and in the log line; false and no algorithm for a request that asked for none and
 * for a type the configuration does not compress (an empty sample in a header value, "-" in the log).
 */
class CompressionFetchParityTest {

    private static String config(int port, int origin) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:%d
                    log-format "comp %%HP %%[res.comp] %%[res.comp_algo]"
                    compression algo deflate gzip
                    compression type text/plain
                    http-response set-header x-in-rules "%%[res.comp] %%[res.comp_algo] %%[res.hdr(content-encoding)]"
                    http-response set-header content-type image/png if { capture.req.uri /retype }
                    default_backend be
                backend be
                    server o 127.0.0.1:%d
                frontend o
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/html string "<p>%s</p>" if { path /html }
                    http-request return status 200 content-type text/plain string "%s"
                """.formatted(port, origin, origin, "x".repeat(200), "y".repeat(200));
    }

    private static List<String> run(boolean haproxy) {
        int port = Ports.free();
        int origin = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port, origin), port)) {
            String[][] requests = {{"/gzip", "gzip"}, {"/deflate", "deflate, gzip;q=0.5"}, {"/none", null}, {"/html", "gzip"}, {"/retype", "gzip"}};
            for (String[] r : requests) {
                try (RawClient c = new RawClient(port)) {
                    RawClient.Response res = c.send("GET " + r[0] + " HTTP/1.1\r\nHost: x\r\n" + (r[1] == null ? "" : "Accept-Encoding: " + r[1] + "\r\n")
                            + "Connection: close\r\n\r\n").read();
                    out.add(r[0] + " rules: " + res.header("x-in-rules") + " encoding: " + res.header("content-encoding")
                            + (r[0].equals("/retype") ? " type: " + res.header("content-type") : ""));
                }
                List<String> l = d.awaitLines(x -> x.startsWith("comp " + r[0] + " "), 1);
                assertThat(l).as("%s: log of %s in\n%s", d.name(), r[0], d.output()).isNotEmpty();
                out.add(l.getFirst());
            }
        }
        return out;
    }

    @Test
    void compressionFetchesAreHaproxys() {
        List<String> theirs = run(true);
        assertThat(theirs).containsExactly(
                "/gzip rules: 1 gzip encoding: gzip", "comp /gzip 1 gzip",
                "/deflate rules: 1 deflate encoding: deflate", "comp /deflate 1 deflate",
                "/none rules: 0 encoding: null", "comp /none 0 -",
                "/html rules: 0 encoding: null", "comp /html 0 -",
                // decided on the response as it came: a type the rules set after changes nothing
                "/retype rules: 1 gzip encoding: gzip type: image/png", "comp /retype 1 gzip");
        assertThat(run(false)).isEqualTo(theirs);
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code option http-restrict-req-hdr-names}: request fields named outside [A-Za-z0-9-] reach the server (preserve),
 * are removed (delete) or get the request refused with a 403 (reject), the frontend's option after its rules, the
 * backend's after its own; the same answers, field lists and log flags as HAProxy 2.6.
 */
class HeaderNamesTest {

    private static List<String> run(boolean haproxy) throws Exception {
        // the origin answers with the names of the fields it received, in order
        try (Origin o = Origin.start("o", (r, out) -> {
            String names = r.head().fields().stream().map(f -> f[0].toLowerCase(java.util.Locale.ROOT))
                    .filter(n -> n.startsWith("x")).collect(Collectors.joining(","));
            Origin.respond(out, 200, "OK", Origin.headers(), names.getBytes(StandardCharsets.US_ASCII));
            return true;
        })) {
            int port = Ports.free();
            int port2 = Ports.free();
            String cfg = """
                    global
                        log stdout format raw local0
                        stats socket @DIR@/admin.sock level admin
                    defaults
                        mode http
                        log global
                        option httplog
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        option http-restrict-req-hdr-names delete
                        http-request set-header x-by_rule 1 if { path_beg /rule }
                        use_backend keep if { path_beg /keep }
                        default_backend plain
                    frontend fe2
                        bind 127.0.0.1:%d
                        use_backend keep if { path_beg /keep }
                        default_backend strict
                    backend plain
                        server s 127.0.0.1:%d
                    backend keep
                        option http-restrict-req-hdr-names preserve
                        http-request set-header x_back 1
                        server s 127.0.0.1:%d
                    backend strict
                        option http-restrict-req-hdr-names reject
                        server s 127.0.0.1:%d
                    """.formatted(port, port2, o.port(), o.port(), o.port());
            String fields = "x-ok: 1\r\nx_under: 2\r\nx.dot: 3\r\nx-ok2: 4\r\n";
            List<String> out = new ArrayList<>();
            try (Daemon d = Daemon.start(haproxy, cfg, port2)) {
                for (String at : List.of(port + " /plain", port + " /rule", port + " /keep", port2 + " /keep", port2 + " /strict", port2 + " /clean")) {
                    String[] w = at.split(" ");
                    String f = w[1].equals("/clean") ? "x-ok: 1\r\n" : fields;
                    try (RawClient c = new RawClient(Integer.parseInt(w[0]), 5_000)) {
                        RawClient.Response r = c.send("GET " + w[1] + " HTTP/1.1\r\nhost: t\r\n" + f + "\r\n").read();
                        out.add((w[0].equals(Integer.toString(port)) ? "fe " : "fe2 ") + w[1] + " " + r.status() + " "
                                + (r.status() == 200 ? r.bodyText() : ""));
                    }
                }
                String line = d.awaitLines(l -> l.contains("GET /strict"), 1).getFirst();
                // status and termination state of the refused request
                out.add(line.replaceAll(".* (\\d{3}) \\d+ - - (\\S{4}) .*", "$1 $2"));
                out.add("denied_req " + ServerQueueTest.stat(d, "fe2,FRONTEND", "dreq") + " " + ServerQueueTest.stat(d, "strict,BACKEND", "dreq"));
            }
            return out;
        }
    }

    @Test
    void namesOutsideTheCharsetAreDeletedOrRefusedAsInHaproxy() throws Exception {
        List<String> sluice = run(false);
        assertThat(sluice).containsExactly(
                "fe /plain 200 x-ok,x-ok2",
                // the frontend's option runs after its own rules: the field a rule added goes too
                "fe /rule 200 x-ok,x-ok2",
                // the backend's preserve does not bring back what the frontend deleted; its own rule's field stays
                "fe /keep 200 x-ok,x-ok2,x_back",
                "fe2 /keep 200 x-ok,x_under,x.dot,x-ok2,x_back",
                "fe2 /strict 403 ",
                "fe2 /clean 200 x-ok",
                "403 PR--",
                "denied_req 1 1");
        Program.HAPROXY.require();
        assertThat(run(true)).as("HAProxy 2.6").isEqualTo(sluice);
    }
}

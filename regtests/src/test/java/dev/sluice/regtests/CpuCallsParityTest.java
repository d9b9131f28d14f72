package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code cpu_calls}, {@code cpu_ns_avg|tot} and {@code lat_ns_avg|tot} against HAProxy 2.6 on the same requests: the
 * number of times the stream's processing ran (the request; a server connection that completed later; a body waited
 * for; the response), and the times, 0 without task profiling. An internal answer, a request on a new server
 * connection then one on the reused connection, a body sent late, a body waited for.
 */
class CpuCallsParityTest {
    private static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:@P0@
                http-request set-var(txn.c0) cpu_calls
                http-request return status 200 content-type text/plain lf-string "calls=%[cpu_calls] ns=%[cpu_ns_tot] \
            avg=%[cpu_ns_avg] lat=%[lat_ns_tot] %[lat_ns_avg]" if { path /local }
                http-request wait-for-body time 2s if { path /wait }
                http-request set-var(txn.c1) cpu_calls
                http-response set-header x-calls "%[var(txn.c0)] %[var(txn.c1)] %[cpu_calls] %[cpu_ns_tot] %[cpu_ns_avg] \
            %[lat_ns_tot] %[lat_ns_avg]"
                default_backend be
            backend be
                server s1 127.0.0.1:@O@
            """;

    private static String calls(RawClient.Response r) {
        String h = r.head().fields().stream().filter(f -> f[0].equalsIgnoreCase("x-calls")).map(f -> f[1]).findFirst().orElse("");
        return r.status() + " " + h + " " + (h.isEmpty() ? r.bodyText().strip() : "");
    }

    private static List<String> run(boolean haproxy, Origin o) throws Exception {
        int port = Ports.free();
        String config = CONFIG.replace("@P0@", Integer.toString(port)).replace("@O@", Integer.toString(o.port()));
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config, port)) {
            try (RawClient c = new RawClient(port)) {
                out.add("local " + calls(c.send("GET /local HTTP/1.1\r\nHost: t\r\n\r\n").read()));
                // a new server connection, then the same one again
                out.add("new " + calls(c.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n").read()));
                out.add("reused " + calls(c.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n").read()));
                // the body comes later: forwarded as it comes, the stream is not run again for it
                c.send("POST /late HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\na");
                Daemon.sleep(200);
                out.add("late-body " + calls(c.send("bc").read()));
                c.send("POST /late3 HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\na");
                Daemon.sleep(150);
                c.send("b");
                Daemon.sleep(150);
                out.add("late-body-3 " + calls(c.send("c").read()));
                // a body waited for: the rules run again when it is there
                c.send("POST /wait HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\n");
                Daemon.sleep(200);
                out.add("waited-body " + calls(c.send("abc").read()));
            }
        }
        return out;
    }

    @Test
    void processCallsAndTimesAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        try (Origin o = Origin.start("o")) {
            List<String> sluice = run(false, o);
            List<String> haproxy = run(true, o);
            assertThat(sluice).isEqualTo(haproxy);
            // not two empty samples alike
            assertThat(sluice.get(0)).isEqualTo("local 200  calls=1 ns=0 avg=0 lat=0 0");
            assertThat(sluice.get(1)).isEqualTo("new 200 1 1 3 0 0 0 0 ");
        }
    }
}

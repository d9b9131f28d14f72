package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code server-template}, Sluice against HAProxy 2.6: the servers a count and a range make (names, ids, weights, states
 * in {@code show stat}, beside a plain server line), and the round robin over them (each origin says its name; two
 * slots of the template share each origin's address).
 */
class ServerTemplateTest {

    static String config(int port, int o1, int o2) {
        return """
                global
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen web
                    bind 127.0.0.1:%d
                    server-template a 2 127.0.0.1:%d weight 3
                    server-template b 5-6 127.0.0.1:%d disabled
                    server c 127.0.0.1:%d
                """.formatted(port, o1, o2, o2);
    }

    static List<String> run(boolean haproxy, int o1, int o2) throws Exception {
        int port = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port, o1, o2), port)) {
            for (int i = 0; i < 6; i++) {
                try (RawClient c = new RawClient(port, 10_000)) {
                    out.add("answered by " + c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n").read().header("x-origin"));
                }
            }
            Map<String, Map<String, String>> stat = AdminSocketTest.parseStat(AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n"));
            for (Map.Entry<String, Map<String, String>> e : stat.entrySet()) {
                if (e.getKey().startsWith("web/")) {
                    Map<String, String> r = e.getValue();
                    out.add(e.getKey() + " sid=" + r.get("sid") + " weight=" + r.get("weight") + " status=" + r.get("status") + " lbtot="
                            + r.get("lbtot"));
                }
            }
        }
        return out;
    }

    @Test
    void templatesMakeHaproxysServers() throws Exception {
        Program.HAPROXY.require();
        try (Origin o1 = Origin.start("o1"); Origin o2 = Origin.start("o2")) {
            List<String> theirs = run(true, o1.port(), o2.port());
            List<String> ours = run(false, o1.port(), o2.port());
            assertThat(ours).isEqualTo(theirs);
            assertThat(theirs).contains("web/a1 sid=1 weight=3 status=no check lbtot=3", "web/b6 sid=4 weight=1 status=MAINT lbtot=0");
        }
    }
}

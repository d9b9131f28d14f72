package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code retries} and {@code option redispatch} on servers that refuse connections, through the real
 * daemon: how many attempts, on which server, how long the turn-arounds take, what the log and the
 * counters say. The same configurations run in HAProxy 2.6 when it is installed, and the log lines (status,
 * flags, server, retries with the redispatch "+", and whether the request waited) must be the same.
 */
class RetryTest {
    private final List<Origin> origins = new ArrayList<>();

    @AfterEach
    void stop() {
        origins.forEach(Origin::close);
    }

    private Origin origin(String name) {
        Origin o = Origin.start(name);
        origins.add(o);
        return o;
    }

    /** One listen section per case on consecutive ports; {@code @DEAD@} is a port nothing listens on, {@code @OK@} an origin. */
    private static String config(int[] ports, List<String> cases, int dead, Origin ok) {
        StringBuilder sb = new StringBuilder(ServerQueueTest.HEADER + """
                    timeout connect 200ms
                    timeout client 5s
                    timeout server 5s
                """);
        for (int i = 0; i < cases.size(); i++) {
            sb.append("listen c").append(i).append("\n    bind 127.0.0.1:").append(ports[i]).append('\n');
            sb.append(cases.get(i).replace("@DEAD@", Integer.toString(dead)).replace("@OK@", Integer.toString(ok.port())).strip().indent(4));
        }
        return sb.toString();
    }

    /** For each case: status, flags, server, retries (%rc), queue positions, and whether the wait (Tw) and the total (Ta) passed 150 ms. */
    private List<String> run(boolean haproxy, List<String> cases, Origin ok) {
        int[] ports = new int[cases.size()];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Ports.free();
        }
        int dead = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(ports, cases, dead, ok), ports[ports.length - 1])) {
            for (int i = 0; i < ports.length; i++) {
                try (RawClient c = new RawClient(ports[i], 10_000)) {
                    c.send("GET /a HTTP/1.1\r\nhost: test\r\n\r\n").read();
                }
            }
            for (int i = 0; i < ports.length; i++) {
                String name = "c" + i;
                String line = d.awaitLines(l -> l.contains("] " + name + " " + name + "/") && l.contains("\"GET /a "), 1).getFirst();
                String[] w = line.split(" ");
                String[] timers = w[4].split("/");
                // of the connection counts only %rc: the others depend on when the previous clients' connections closed
                String rc = w[10].substring(w[10].lastIndexOf('/') + 1);
                out.add(name + " " + w[3] + " " + w[5] + " " + w[9] + " rc " + rc + " " + w[11]
                        + " Tw>150:" + (Long.parseLong(timers[1]) > 150) + " Ta>150:" + (Long.parseLong(timers[4]) > 150)
                        + " wretr/wredis " + ServerQueueTest.stat(d, name + ",BACKEND", "wretr") + "/"
                        + ServerQueueTest.stat(d, name + ",BACKEND", "wredis"));
            }
        }
        return out;
    }

    private void compare(List<String> cases, List<String> expected) {
        Origin ok = origin("ok");
        List<String> sluice = run(false, cases, ok);
        assertThat(sluice).isEqualTo(expected);
        if (Daemon.haproxyInstalled()) {
            assertThat(run(true, cases, ok)).as("HAProxy 2.6 on the same cases").isEqualTo(sluice);
        }
    }

    @Test
    void retriesAndRedispatchAsHaproxy() {
        compare(List.of(
                // no redispatch: every retry on the refusing server, each after MIN(1s, timeout connect)
                "retries 2\nserver s1 127.0.0.1:@DEAD@",
                // round robin over two: the first retry moves at once
                "retries 3\noption redispatch\nserver s1 127.0.0.1:@DEAD@\nserver s2 127.0.0.1:@OK@",
                // leastconn too (HAProxy 2.6 redispatches at once for every non-hash algorithm)
                "retries 3\noption redispatch\nbalance leastconn\nserver s1 127.0.0.1:@DEAD@\nserver s2 127.0.0.1:@OK@",
                // a hash keeps its server until the last retry, which goes through the map again (to the same server)
                "retries 2\noption redispatch\nbalance uri\nserver s1 127.0.0.1:@DEAD@\nserver s2 127.0.0.1:@OK@",
                // one server: the last retry is a redispatch to it again, after the same turn-arounds
                "retries 2\noption redispatch\nserver s1 127.0.0.1:@DEAD@",
                // retries 0: one attempt
                "retries 0\nserver s1 127.0.0.1:@DEAD@"),
                List.of(
                        "c0 c0/s1 503 SC-- rc 2 0/0 Tw>150:false Ta>150:true wretr/wredis 2/0",
                        "c1 c1/s2 200 ---- rc +1 0/0 Tw>150:false Ta>150:false wretr/wredis 0/1",
                        "c2 c2/s2 200 ---- rc +1 0/0 Tw>150:false Ta>150:false wretr/wredis 0/1",
                        "c3 c3/s1 503 SC-- rc 2 0/0 Tw>150:true Ta>150:true wretr/wredis 2/0",
                        "c4 c4/s1 503 SC-- rc 2 0/0 Tw>150:true Ta>150:true wretr/wredis 2/0",
                        "c5 c5/s1 503 SC-- rc 0 0/0 Tw>150:false Ta>150:false wretr/wredis 0/0"));
    }
}

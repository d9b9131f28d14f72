package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code slowstart}: a server leaving maintenance starts at 1/16 of its weight (throttle 7 %) and grows each
 * second; the round robin follows. The same in HAProxy 2.6 (the haproxy=true case, which requires it).
 */
class SlowStartTest {
    private final List<Origin> origins = new ArrayList<>();

    @AfterEach
    void stop() {
        origins.forEach(Origin::close);
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void aServerLeavingMaintenanceStartsAtOneSixteenth(boolean haproxy) {
        Origin a = Origin.start("s1");
        Origin b = Origin.start("s2");
        origins.add(a);
        origins.add(b);
        assertThat(run(haproxy, a, b)).containsExactly("throttle 7", "s1 few of 34", "later throttle ");
    }

    private static List<String> run(boolean haproxy, Origin a, Origin b) {
        int port = Ports.free();
        String cfg = ServerQueueTest.HEADER + """
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                listen fe
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d slowstart 2s
                    server s2 127.0.0.1:%d
                """.formatted(port, a.port(), b.port());
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, port)) {
            java.nio.file.Path sock = d.dir().resolve("admin.sock");
            AdminClient.run(sock, "disable server fe/s1\n");
            AdminClient.run(sock, "enable server fe/s1\n");
            out.add("throttle " + ServerQueueTest.stat(d, "fe,s1", "throttle"));
            try (RawClient c = new RawClient(port, 10_000)) {
                for (int i = 0; i < 34; i++) {
                    assertThat(c.send("GET / HTTP/1.1\r\nhost: t\r\n\r\n").read().status()).isEqualTo(200);
                }
            }
            // 1 in 17 (2 of 34) at 1/16 of the weight; a second passing in between raises it a little
            int s1 = Integer.parseInt(ServerQueueTest.stat(d, "fe,s1", "lbtot"));
            int s2 = Integer.parseInt(ServerQueueTest.stat(d, "fe,s2", "lbtot"));
            out.add("s1 " + (s1 >= 1 && s1 <= 5 ? "few" : s1) + " of " + (s1 + s2));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!ServerQueueTest.stat(d, "fe,s1", "throttle").isEmpty() && System.nanoTime() < deadline) {
                Daemon.sleep(100);
            }
            out.add("later throttle " + ServerQueueTest.stat(d, "fe,s1", "throttle"));
        }
        return out;
    }
}

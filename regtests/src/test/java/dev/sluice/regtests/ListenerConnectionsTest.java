package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code dst_conn} (the connections the listener holds now, the one evaluated included) and {@code so_id} in
 * {@code tcp-request connection} rules and in a reply, against HAProxy 2.6: the same steps (connections held open,
 * one refused by the rule, one closed) give the same answers.
 */
class ListenerConnectionsTest {

    private static String config(int port) {
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:%d id 7
                    tcp-request connection reject if { dst_conn gt 2 }
                    tcp-request connection reject if !{ so_id 7 }
                    http-request return status 200 content-type text/plain lf-string "dc=%%[dst_conn] so=%%[so_id]"
                """.formatted(port);
    }

    private static String ask(RawClient c) {
        return c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().bodyText();
    }

    /** Two connections held, a third refused, the first closed, a fourth served: what each saw. */
    private static List<String> play(int port) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        RawClient a = new RawClient(port);
        seen.add(ask(a));
        try (RawClient b = new RawClient(port)) {
            seen.add(ask(b));
            // refused with a reset: seen at the connect or at the first read, as the timing goes
            boolean refused;
            try (RawClient c = new RawClient(port, 2000)) {
                refused = c.closedByPeerBeforeTimeout();
            } catch (java.io.UncheckedIOException e) {
                refused = true;
            }
            seen.add("third refused: " + refused);
            a.close();
            // the close reaches the proxy before the next accept
            Thread.sleep(200);
            try (RawClient d = new RawClient(port)) {
                seen.add(ask(d));
            }
            seen.add(ask(b));
        }
        return seen;
    }

    @Test
    void dstConnCountsTheListenersConnectionsAsHaproxy() throws Exception {
        String haproxyPath = Program.HAPROXY.require();
        Path dir = Files.createTempDirectory("dst-conn");
        int hport = Ports.free();
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, config(hport));
        Process haproxy = new ProcessBuilder(haproxyPath, "-f", cfg.toString(), "-db").redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        int sport = Ports.free();
        try (Sluice sluice = Sluice.start(config(sport), sport)) {
            CrossProtocolTest.awaitPort(hport);
            List<String> theirs = play(hport);
            List<String> ours = play(sport);
            assertThat(ours).as(sluice.output()).containsExactlyElementsOf(theirs);
            assertThat(theirs).containsExactly("dc=1 so=7", "dc=2 so=7", "third refused: true", "dc=2 so=7", "dc=1 so=7");
        } finally {
            haproxy.destroy();
            if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                haproxy.destroyForcibly();
            }
        }
    }
}

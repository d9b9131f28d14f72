package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code http-send-name-header}, Sluice against HAProxy 2.6: the server each request goes to finds its own name in the
 * field, the one the client sent under that name is gone, and a request redispatched after a refused connection names
 * the server it finally reached. The origins answer with the fields they received, in order.
 */
class SendNameHeaderTest {

    static String config(int port, int retry, int s1, int s2, int dead) {
        return """
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                    http-send-name-header X-Srv-Name
                listen rr
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                    server s2 127.0.0.1:%d
                listen redispatch
                    bind 127.0.0.1:%d
                    retries 1
                    option redispatch
                    server dead 127.0.0.1:%d
                    server s2 127.0.0.1:%d
                """.formatted(port, s1, s2, retry, dead, s2);
    }

    /** What the origins received of the field, and where it stood among the fields, per request. */
    static List<String> run(boolean haproxy, int s1, int s2) throws Exception {
        int port = Ports.free();
        int retry = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port, retry, s1, s2, Ports.free()), port)) {
            for (int p : new int[] {port, port, retry}) {
                try (RawClient c = new RawClient(p, 10_000)) {
                    String body = c.send("GET / HTTP/1.1\r\nHost: t\r\nX-Srv-Name: forged\r\nX-After: 1\r\n\r\n").read().bodyText();
                    List<String> lines = body.lines().map(String::toLowerCase).toList();
                    List<String> named = lines.stream().filter(l -> l.startsWith("x-srv-name:")).toList();
                    int at = lines.indexOf(named.isEmpty() ? "" : named.getFirst());
                    int after = lines.indexOf(lines.stream().filter(l -> l.startsWith("x-after:")).findFirst().orElse(""));
                    out.add(named + " after-x-after=" + (at > after));
                }
            }
        }
        return out;
    }

    @Test
    void serversGetTheirNameAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            List<String> theirs = run(true, s1.port(), s2.port());
            List<String> ours = run(false, s1.port(), s2.port());
            assertThat(ours).isEqualTo(theirs);
            assertThat(theirs).containsExactly("[x-srv-name: s1] after-x-after=true", "[x-srv-name: s2] after-x-after=true",
                    "[x-srv-name: s2] after-x-after=true");
        }
    }
}

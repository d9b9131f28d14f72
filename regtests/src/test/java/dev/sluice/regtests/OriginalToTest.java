package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code option originalto}, Sluice against HAProxy 2.6: the address the client connected to in X-Original-To (or the
 * header named), after X-Forwarded-For, none for a destination in the except network, the backend's header name before
 * the frontend's. The origin answers with the fields it received, in order.
 */
class OriginalToTest {

    static String config(int[] p, int origin) {
        return """
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend plain
                    bind 127.0.0.1:%d
                    option forwardfor
                    option originalto
                    default_backend b
                frontend except
                    bind 127.0.0.1:%d
                    option originalto except 127.0.0.0/8
                    default_backend b
                frontend named
                    bind 127.0.0.1:%d
                    option originalto header X-Frontend-Dst
                    default_backend named
                backend b
                    server s1 127.0.0.1:%d
                backend named
                    option originalto header X-Backend-Dst
                    server s1 127.0.0.1:%d
                """.formatted(p[0], p[1], p[2], origin, origin);
    }

    static List<String> run(boolean haproxy, int origin) throws Exception {
        int[] p = {Ports.free(), Ports.free(), Ports.free()};
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(p, origin), p[0])) {
            for (int port : p) {
                try (RawClient c = new RawClient(port, 10_000)) {
                    String body = c.send("GET / HTTP/1.1\r\nHost: t\r\nX-Original-To: 10.9.9.9\r\n\r\n").read().bodyText();
                    out.add(body.lines().map(String::toLowerCase)
                            .filter(l -> l.startsWith("x-original-to:") || l.contains("-dst:") || l.startsWith("x-forwarded-for:")).toList()
                            .toString());
                }
            }
        }
        return out;
    }

    @Test
    void theDestinationIsAddedAsHaproxyAddsIt() throws Exception {
        Program.HAPROXY.require();
        try (Origin o = EchoOrigin.start("o")) {
            List<String> theirs = run(true, o.port());
            List<String> ours = run(false, o.port());
            assertThat(ours).isEqualTo(theirs);
            assertThat(theirs.get(0)).isEqualTo("[x-original-to: 10.9.9.9, x-forwarded-for: 127.0.0.1, x-original-to: 127.0.0.1]");
            assertThat(theirs.get(1)).isEqualTo("[x-original-to: 10.9.9.9]");
            assertThat(theirs.get(2)).contains("x-backend-dst: 127.0.0.1");
        }
    }
}

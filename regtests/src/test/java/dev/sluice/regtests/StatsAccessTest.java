package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code stats http-request allow|deny|auth [realm]} on the stats page, in order: the answers (status and the realm asked
 * for) compared with HAProxy 2.6's. (HAProxy refuses them with {@code stats auth} or {@code stats realm}: so does Sluice.)
 */
class StatsAccessTest {

    private static String config(int port) {
        return """
                userlist stats-auth
                    user admin insecure-password s3cret
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    stats enable
                    stats uri /stats
                    stats http-request deny if { hdr(x-deny) -m found }
                    stats http-request allow if { hdr(x-allow) -m found }
                    stats http-request auth realm Admin unless { http_auth(stats-auth) }
                """.formatted(port);
    }

    private static String basic(String user, String pass) {
        return "authorization: Basic " + Base64.getEncoder().encodeToString((user + ":" + pass).getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> run(boolean haproxy) {
        int port = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port), port)) {
            for (String[] ask : List.of(new String[] {}, new String[] {"x-deny: 1"}, new String[] {"x-allow: 1"},
                    new String[] {"x-deny: 1", "x-allow: 1"}, new String[] {basic("admin", "s3cret")},
                    new String[] {basic("admin", "wrong")})) {
                try (RawClient c = new RawClient(port, 5_000)) {
                    RawClient.Response r = c.send(ServerQueueTest.get("/stats", ask)).read();
                    out.add(String.join(" ", ask) + " => " + r.status() + " " + r.header("www-authenticate"));
                }
            }
        }
        return out;
    }

    @Test
    void rulesDecideInOrder() {
        List<String> sluice = run(false);
        assertThat(sluice).startsWith(" => 401 Basic realm=\"Admin\"", "x-deny: 1 => 403 null", "x-allow: 1 => 200 null", "x-deny: 1 x-allow: 1 => 403 null");
    }

    /** Every answer of {@link #rulesDecideInOrder}'s requests is HAProxy 2.6's. */
    @Test
    void rulesDecideAsInHaproxy() {
        Program.HAPROXY.require();
        assertThat(run(false)).as("Sluice against HAProxy 2.6").isEqualTo(run(true));
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code mailers} and {@code email-alert} through the real daemon: a server going DOWN at its first check, a check's
 * line of {@code option log-health-checks} at level info and a server put in drain from the admin socket are mailed to
 * an SMTP sink, and the SMTP sessions (the Date header and check durations masked) are those HAProxy 2.6 has for the
 * same configuration. The default level (alert) keeps the check lines and the drain of the first backend unmailed.
 */
class EmailAlertTest {

    private static final String CONFIG = """
            global
                stats socket @DIR@/admin.sock level admin
            defaults
                mode http
                timeout connect 1s
                timeout client 5s
                timeout server 5s
            mailers mx
                mailer m1 127.0.0.1:%d
                timeout mail 5s
            frontend fe
                bind 127.0.0.1:%d
                default_backend be1
            backend be1
                email-alert mailers mx
                email-alert from haproxy@example.com
                email-alert to ops@example.com
                server s1 127.0.0.1:%d check inter 500 rise 1 fall 1
            backend be2
                option log-health-checks
                email-alert mailers mx
                email-alert from lb@example.com
                email-alert to oncall@example.com
                email-alert level info
                email-alert myhostname lb.example.com
                server s2 127.0.0.1:%d check inter 2s rise 1 fall 1
            """;

    /** The sessions each daemon's alerts made, masked and sorted. */
    private static List<String> run(boolean haproxy) throws Exception {
        int port = Ports.free();
        try (SmtpSink sink = SmtpSink.start();
                ServerSocket up = new ServerSocket(Ports.free(), 16, InetAddress.getLoopbackAddress());
                Daemon d = Daemon.start(haproxy, CONFIG.formatted(sink.port(), port, Ports.free(), up.getLocalPort()), port)) {
            // be1/s1 refused: DOWN (alert); be2/s2 listening: its check's line (info)
            List<List<String>> first = sink.await(2, 15);
            assertThat(first).as("%s:\n%s", d.name(), d.output()).hasSize(2);
            AdminClient.run(d.dir().resolve("admin.sock"), "set server be2/s2 state drain\n");
            AdminClient.run(d.dir().resolve("admin.sock"), "set server be1/s1 state drain\n");
            List<List<String>> all = sink.await(3, 15);
            // nothing more comes (be1's drain is below its level)
            Daemon.sleep(700);
            all = sink.sessions();
            List<String> out = new ArrayList<>();
            for (List<String> s : all) {
                out.add(String.join("\n", s).replaceAll("(?m)^Date: .*$", "Date: <date>").replaceAll("check duration: \\d+ms", "check duration: Nms")
                        .replace("HELO " + host() + "\n", "HELO <host>\n"));
            }
            out.sort(null);
            return out;
        }
    }

    /** The host's name, the HELO name without 'email-alert myhostname'. */
    private static String host() throws java.io.IOException {
        return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).trim();
    }

    @Test
    void transitionsAreMailedToTheSink() throws Exception {
        List<String> sluice = run(false);
        assertThat(sluice).hasSize(3);
        String down = "Server be1/s1 is DOWN, reason: Layer4 connection problem, info: \"Connection refused\", check duration: Nms. 0 active and 0"
                + " backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue";
        assertThat(sluice).contains(String.join("\n", "HELO <host>", "MAIL FROM:<haproxy@example.com>", "RCPT TO:<ops@example.com>", "DATA",
                "From: haproxy@example.com", "To: ops@example.com", "Date: <date>", "Subject: [HAProxy Alert] " + down, "", down, "", ".", "QUIT"));
        assertThat(String.join("\n", sluice)).contains("Subject: [HAProxy Alert] Health check for server be2/s2 succeeded, reason: Layer4 check passed")
                .contains("Subject: [HAProxy Alert] Server be2/s2 enters drain state");
    }

    @Test
    void theSessionsAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        assertThat(run(false)).isEqualTo(run(true));
    }
}

package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.EmailAlert;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Backends;
import dev.sluice.proxy.backend.ServerEvents;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.transport.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Email alerts as HAProxy 2.6's src/mailers.c writes them: the SMTP exchange as tcp-check rules, the message after DATA,
 * the date, the level filter, and one exchange played against an SMTP sink on a real socket.
 */
class EmailAlertsTest {
    private static final EmailAlert ALERT = new EmailAlert("mx", List.of(new EmailAlert.Mailer("m1", "127.0.0.1", 25)), 10_000,
            "haproxy@example.com", "ops@example.com", 5, null);

    private final Transport transport = Transport.select();
    private EventLoopGroup group;
    private ServerSocket sink;
    private final List<String> received = Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch sessionEnded = new CountDownLatch(1);

    @BeforeEach
    void start() throws IOException {
        group = transport.newGroup(1, r -> new Thread(r, "email-alerts-test"));
        sink = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::serve, "smtp-sink");
        t.setDaemon(true);
        t.start();
    }

    @AfterEach
    void stop() throws IOException {
        sink.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** An SMTP server that records every line it reads and answers as a mail server would. */
    private void serve() {
        while (!sink.isClosed()) {
            try (Socket s = sink.accept()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                OutputStream out = s.getOutputStream();
                out.write("220 sink ESMTP\r\n".getBytes(StandardCharsets.ISO_8859_1));
                boolean data = false;
                String line;
                while ((line = in.readLine()) != null) {
                    received.add(line);
                    String reply = null;
                    if (data) {
                        if (line.equals(".")) {
                            data = false;
                            reply = "250 queued";
                        }
                    } else if (line.equals("DATA")) {
                        data = true;
                        reply = "354 go ahead";
                    } else if (line.equals("QUIT")) {
                        out.write("221 bye\r\n".getBytes(StandardCharsets.ISO_8859_1));
                        break;
                    } else {
                        reply = "250 ok";
                    }
                    if (reply != null) {
                        out.write((reply + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    }
                }
            } catch (IOException e) {
                // the sink closed, or the client reset the connection after QUIT
            }
            sessionEnded.countDown();
        }
    }

    @Test
    void theExchangeIsHaproxysRuleSet() {
        TcpCheckPlan plan = TcpCheckPlan.compile(EmailAlerts.rules(ALERT, "lb1", "Server be/s1 is DOWN", "DATE"));
        List<String> steps = new ArrayList<>();
        for (int i = 0; i < plan.size(); i++) {
            steps.add(switch (plan.step(i)) {
                case TcpCheckPlan.Connect c -> "connect";
                case TcpCheckPlan.Send s -> "send " + new String(s.data(), StandardCharsets.ISO_8859_1).replace("\r\n", "|");
                case TcpCheckPlan.Expect e -> "expect " + e.text();
                case TcpCheckPlan.SetVar v -> "set-var";
            });
        }
        assertThat(steps).containsExactly("connect", "expect 220 ", "send HELO lb1|", "expect 250 ", "send MAIL FROM:<haproxy@example.com>|",
                "expect 250 ", "send RCPT TO:<ops@example.com>|", "expect 250 ", "send DATA|", "expect 354 ",
                "send From: haproxy@example.com|To: ops@example.com|Date: DATE|Subject: [HAProxy Alert] Server be/s1 is DOWN||Server be/s1 is DOWN||.|",
                "expect 250 ", "send QUIT|", "expect 221 ");
    }

    @Test
    void theDateIsStrftimes() {
        ZonedDateTime t = ZonedDateTime.of(2026, 12, 7, 4, 5, 6, 0, ZoneId.of("UTC"));
        assertThat(EmailAlerts.DATE.format(t)).isEqualTo("Mon, 07 Dec 2026 04:05:06 +0000 (UTC)");
        ZonedDateTime paris = ZonedDateTime.of(2026, 7, 1, 14, 0, 0, 0, ZoneId.of("Europe/Paris"));
        assertThat(EmailAlerts.DATE.format(paris)).isEqualTo("Wed, 01 Jul 2026 14:00:00 +0200 (CEST)");
    }

    private EmailAlerts alerts(String level) {
        Backend be = Backends.of("email-alert mailers mx\nemail-alert from haproxy@example.com\nemail-alert to ops@example.com\n"
                + "email-alert level " + level + "\nserver s1\nmailers mx\nmailer m1 127.0.0.1:" + sink.getLocalPort() + "\ntimeout mail 5s");
        return EmailAlerts.of(be.config(), group.next(), transport, 16384, new ProcScope(), "host1");
    }

    @Test
    void anAlertAtTheLevelIsMailedToTheSink() throws Exception {
        EmailAlerts a = alerts("notice");
        a.send(ServerEvents.NOTICE, "Server be/s1 is UP");
        assertThat(sessionEnded.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(received).hasSize(13);
        assertThat(received.subList(0, 4)).containsExactly("HELO host1", "MAIL FROM:<haproxy@example.com>", "RCPT TO:<ops@example.com>", "DATA");
        assertThat(received.get(4)).isEqualTo("From: haproxy@example.com");
        assertThat(received.get(5)).isEqualTo("To: ops@example.com");
        assertThat(received.get(6)).matches("Date: \\w{3}, \\d{2} \\w{3} \\d{4} \\d{2}:\\d{2}:\\d{2} [+-]\\d{4} \\(.+\\)");
        assertThat(received.subList(7, 13)).containsExactly("Subject: [HAProxy Alert] Server be/s1 is UP", "", "Server be/s1 is UP", "", ".", "QUIT");
        MailerQueue q = a.queues().getFirst();
        long[] counts = group.next().submit(q::counts).get(5, TimeUnit.SECONDS);
        // the exchange ends on the 221 (the reply may still be on its way when the sink counts the session down)
        for (int i = 0; i < 50 && counts[0] == 0; i++) {
            Thread.sleep(20);
            counts = group.next().submit(q::counts).get(5, TimeUnit.SECONDS);
        }
        assertThat(counts).containsExactly(1, 0);
    }

    @Test
    void aLessUrgentLevelIsNotMailed() throws Exception {
        EmailAlerts a = alerts("alert");
        a.send(ServerEvents.NOTICE, "Server be/s1 is UP");
        a.send(ServerEvents.INFO, "Health check for server be/s1 succeeded");
        assertThat(sessionEnded.await(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(received).isEmpty();
    }
}

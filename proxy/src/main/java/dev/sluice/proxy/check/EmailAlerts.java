package dev.sluice.proxy.check;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.EmailAlert;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.TcpCheck;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.transport.Transport;
import io.netty.channel.EventLoop;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A proxy's email alerts ({@code email-alert}, HAProxy 2.6's src/mailers.c): a state change reported at
 * {@code email-alert level} or more urgent becomes one SMTP exchange per mailer of its {@code mailers} section, written
 * as a tcp-check rule set ({@link #rules}: expect 220, HELO, expect 250, MAIL FROM, expect 250, RCPT TO, expect 250,
 * DATA, expect 354, the message, expect 250, QUIT, expect 221) and played by a {@link TcpCheckRun} for each
 * {@link MailerQueue}, one exchange at a time per mailer, as HAProxy queues them. A failed exchange is dropped silently,
 * as HAProxy drops it. {@link #send} may be called from any thread.
 */
public final class EmailAlerts {
    /** HAProxy's strftime format "%a, %d %b %Y %T %z (%Z)", in the local time zone. */
    static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss Z (z)", Locale.ENGLISH);
    /** Where the built rules say they come from (they are not configuration lines). */
    private static final SourceRef BUILT = new SourceRef("email-alert", 0);

    private final EmailAlert config;
    private final String helo;
    private final List<MailerQueue> queues;

    private EmailAlerts(EmailAlert config, String helo, List<MailerQueue> queues) {
        this.config = config;
        this.helo = helo;
        this.queues = List.copyOf(queues);
    }

    /**
     * The email alerts of {@code proxy}, or null when it has none. Resolves the mailers' names (at start-up or on a
     * reload, never on an event loop); {@code hostname} is the HELO name unless {@code email-alert myhostname} is set.
     */
    public static EmailAlerts of(Proxy proxy, EventLoop loop, Transport transport, int bufsize, ProcScope process, String hostname) {
        EmailAlert a = proxy.emailAlert();
        if (a == null) {
            return null;
        }
        Timeouts t = proxy.timeouts();
        long check = t.check() == Timeouts.UNSET ? 0 : t.check();
        long connect = t.connect() == Timeouts.UNSET ? 0 : t.connect();
        List<MailerQueue> queues = new ArrayList<>();
        for (EmailAlert.Mailer m : a.mailers()) {
            queues.add(new MailerQueue(proxy.name(), m, a.timeoutMs(), check, connect, loop, transport, bufsize, process));
        }
        return new EmailAlerts(a, a.myhostname() != null ? a.myhostname() : hostname, queues);
    }

    /**
     * HAProxy's send_email_alert: {@code message} (a transition's line, without its final period) is mailed when
     * {@code level} is at or above the configured one (a lower number). Any thread.
     */
    public void send(int level, String message) {
        if (level > config.level()) {
            return;
        }
        TcpCheckPlan plan = TcpCheckPlan.compile(rules(config, helo, message, DATE.format(ZonedDateTime.now())));
        for (MailerQueue q : queues) {
            q.add(plan);
        }
    }

    /** The mailers' queues, in HAProxy's order. */
    List<MailerQueue> queues() {
        return queues;
    }

    /** The SMTP exchange of one alert as tcp-check rules, as HAProxy's enqueue_one_email_alert writes them. */
    static TcpCheck rules(EmailAlert a, String helo, String message, String date) {
        List<TcpCheck.Rule> r = new ArrayList<>();
        r.add(new TcpCheck.Connect(BUILT, 0, null, 0, null, null, 0, false, false, false, false, null, null, false));
        expect(r, "220 ");
        send(r, "HELO " + helo + "\r\n");
        expect(r, "250 ");
        send(r, "MAIL FROM:<" + a.from() + ">\r\n");
        expect(r, "250 ");
        send(r, "RCPT TO:<" + a.to() + ">\r\n");
        expect(r, "250 ");
        send(r, "DATA\r\n");
        expect(r, "354 ");
        send(r, message(a, message, date));
        expect(r, "250 ");
        send(r, "QUIT\r\n");
        expect(r, "221 ");
        return new TcpCheck(TcpCheck.Kind.TCP, r, List.of());
    }

    /** What follows DATA: the headers, the message as the body, the final dot. */
    static String message(EmailAlert a, String message, String date) {
        return "From: " + a.from() + "\r\n"
                + "To: " + a.to() + "\r\n"
                + "Date: " + date + "\r\n"
                + "Subject: [HAProxy Alert] " + message + "\r\n"
                + "\r\n"
                + message + "\r\n"
                + "\r\n"
                + ".\r\n";
    }

    private static void expect(List<TcpCheck.Rule> r, String text) {
        r.add(new TcpCheck.Expect(BUILT, r.size(), null, TcpCheck.ExpectKind.STRING, false, text, -1, null, null, null, null, null, null));
    }

    private static void send(List<TcpCheck.Rule> r, String text) {
        r.add(new TcpCheck.Send(BUILT, r.size(), null, TcpCheck.SendKind.STRING, text));
    }
}

package dev.sluice.config.model;

import java.util.List;

/**
 * A proxy's {@code email-alert} settings with the {@code mailers} section they name already looked up: where each alert
 * goes ({@code mailers}, in HAProxy's order), {@code timeoutMs} ({@code timeout mail}, default 10s) for each exchange,
 * the envelope and header addresses, the highest syslog {@code level} sent (default alert, 1) and the name given in
 * HELO ({@code myhostname}; null: the host's name). Immutable.
 */
public record EmailAlert(String section, List<Mailer> mailers, long timeoutMs, String from, String to, int level, String myhostname) {

    /** HAProxy's DEF_MAILALERTTIME. */
    public static final long DEFAULT_TIMEOUT_MS = 10_000;

    public EmailAlert {
        mailers = List.copyOf(mailers);
    }

    /** One {@code mailer <name> <host>:<port>} line: an SMTP server. */
    public record Mailer(String name, String host, int port) {
    }
}

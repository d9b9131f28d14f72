package dev.sluice.config;

import dev.sluice.config.model.EmailAlert;
import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.ProxyKind;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * The {@code mailers} section ({@code mailer <name> <address>:<port>}, {@code timeout mail <time>}) and a proxy's
 * {@code email-alert mailers|from|to|level|myhostname}, in HAProxy 2.6's words (src/cfgparse.c cfg_parse_mailers,
 * src/cfgparse-listen.c). The section's lines are read here, not through the registry (its {@code timeout} is not a
 * proxy's); the registry holds their reference entries. After everything is read, each proxy's {@code email-alert}
 * gets its mailers section ({@link #resolve}).
 */
final class MailersKeywords {
    private MailersKeywords() {
    }

    /** A {@code mailers} section while it is parsed. */
    static final class Builder {
        final SourceRef where;
        final String name;
        final List<EmailAlert.Mailer> mailers = new ArrayList<>();
        long timeoutMs = EmailAlert.DEFAULT_TIMEOUT_MS;
        /** Proxies whose email alerts use the section. */
        int users;

        Builder(SourceRef where, String name) {
            this.where = where;
            this.name = name;
        }
    }

    /** A proxy's {@code email-alert} lines as written (a defaults section passes them on). */
    static final class Alert {
        String mailers;
        String from;
        String to;
        String myhostname;
        /** HAProxy's default level: alert. */
        int level = 1;
        /** Any {@code email-alert} line was read (HAProxy's email_alert.set). */
        boolean set;

        Alert copy() {
            Alert a = new Alert();
            a.mailers = mailers;
            a.from = from;
            a.to = to;
            a.myhostname = myhostname;
            a.level = level;
            a.set = set;
            return a;
        }
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("email-alert", Section.PROXIES, "email-alert mailers <name> | from <address> | to <address> | level <level>"
                + " | myhostname <host>",
                "Mail the servers' state changes (DOWN, UP, drain; the 'option log-health-checks' lines at level info) at 'level'"
                        + " (a syslog level, default alert: only a server going DOWN from UP) or more urgent, from 'from' to 'to',"
                        + " through each mailer of the 'mailers' section, as HAProxy 2.6's SMTP exchange: HELO <myhostname> (default:"
                        + " the host's name), MAIL FROM, RCPT TO, DATA (From, To, Date, Subject '[HAProxy Alert] <message>', the"
                        + " message), QUIT. 'mailers', 'from' and 'to' are needed, else the lines are ignored with a warning.",
                MailersKeywords::emailAlert));
        r.register(new Keyword("mailer", EnumSet.of(Section.MAILERS), "mailer <name> <address>:<port>",
                "An SMTP server of a 'mailers <name>' section, which email alerts are sent to (each alert to every mailer, one"
                        + " exchange at a time per mailer). The section's other line: 'timeout mail <time>', the longest an exchange"
                        + " may take (default 10s).",
                c -> {
                }));
    }

    /** {@code email-alert <what> <value>}, HAProxy's checks in their order. */
    private static void emailAlert(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            c.lineError("missing argument after 'email-alert'.");
            return;
        }
        Alert al = c.proxy().emailAlert;
        String what = a.get(0);
        String value = a.size() > 1 ? a.get(1) : "";
        switch (what) {
            case "from" -> al.from = value;
            case "mailers" -> al.mailers = value;
            case "myhostname" -> al.myhostname = value;
            case "to" -> al.to = value;
            case "level" -> {
                int level = List.of(LogTarget.LEVELS).indexOf(value);
                if (level < 0) {
                    // HAProxy's message names the argument and the level the other way round
                    c.lineError("unknown log level '" + what + "' after '" + value + "'");
                    return;
                }
                al.level = level;
            }
            default -> {
                c.lineError("email-alert: unknown argument '" + what + "'.");
                return;
            }
        }
        al.set = true;
    }

    static Builder header(SourceRef at, List<String> words, Map<String, Builder> sections, Diagnostics diags) {
        if (words.size() < 2 || words.get(1).isEmpty()) {
            diags.error(at, "missing name for mailers section.");
            return null;
        }
        String name = words.get(1);
        String bad = invalidChar(name);
        if (bad != null) {
            diags.error(at, "character '" + bad + "' is not permitted in 'mailers' name '" + name + "'.");
            return null;
        }
        Builder old = sections.get(name);
        if (old != null) {
            diags.error(at, "mailers section '" + name + "' has the same name as another mailers section declared at " + old.where.file() + ":"
                    + old.where.line() + ".");
        }
        Builder b = new Builder(at, name);
        sections.put(name, b);
        return b;
    }

    static void line(Builder b, SourceRef at, List<String> w, Diagnostics diags) {
        String kw = w.get(0);
        switch (kw) {
            case "mailer" -> mailer(b, at, w, diags);
            case "timeout" -> {
                String what = w.size() > 1 ? w.get(1) : "";
                if (what.isEmpty()) {
                    diags.error(at, "'timeout' expects 'mail' and <time> as arguments.");
                } else if (!what.equals("mail")) {
                    diags.error(at, "'timeout' expects 'mail' and <time> as arguments got '" + what + "'.");
                } else if (w.size() < 3 || w.get(2).isEmpty()) {
                    diags.error(at, "'timeout mail' expects <time> as argument.");
                } else {
                    String arg = w.get(2);
                    try {
                        long ms = Units.parseTimeErr(arg, 1);
                        b.timeoutMs = ms;
                    } catch (Units.BadTime e) {
                        if (e.overflow()) {
                            diags.error(at, "timer overflow in argument <" + arg + "> to <timeout mail>, maximum value is 2147483647 ms (~24.8 days).");
                        } else {
                            diags.error(at, "unexpected character '" + e.at() + "' in argument to <timeout mail>.");
                        }
                    }
                }
            }
            default -> diags.error(at, "unknown keyword '" + kw + "' in 'mailers' section");
        }
    }

    private static void mailer(Builder b, SourceRef at, List<String> w, Diagnostics diags) {
        if (w.size() < 3 || w.get(2).isEmpty()) {
            diags.error(at, "'mailer' expects <name> and <addr>[:<port>] as arguments.");
            return;
        }
        String name = w.get(1);
        String bad = invalidChar(name);
        if (bad != null) {
            diags.error(at, "character '" + bad + "' is not permitted in server name '" + name + "'.");
            return;
        }
        String addr = w.get(2);
        String raw = addr;
        for (String pfx : new String[] {"tcp@", "tcp4@", "tcp6@", "ipv4@", "ipv6@"}) {
            if (addr.startsWith(pfx)) {
                addr = addr.substring(pfx.length());
            }
        }
        String where = "'mailer " + name + "' : ";
        int colon = addr.startsWith("[") ? addr.indexOf("]:") + 1 : addr.lastIndexOf(':');
        if (colon <= 0 || colon == addr.length() - 1) {
            diags.error(at, where + "missing port specification in '" + raw + "'");
            return;
        }
        String host = addr.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String port = addr.substring(colon + 1);
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            int digits = 0;
            while (digits < port.length() && Character.isDigit(port.charAt(digits))) {
                digits++;
            }
            diags.error(at, where + (digits < port.length() ? "invalid character '" + port.charAt(digits) + "' in port number '" + port + "' in '" + raw + "'"
                    : "invalid port '" + port + "'"));
            return;
        }
        if (p < 1 || p > 65535) {
            diags.error(at, where + "invalid port '" + port + "'");
            return;
        }
        if (host.isEmpty() || host.equals("*")) {
            host = "0.0.0.0";
        }
        if (Addresses.literal(host) == null) {
            try {
                InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                diags.error(at, where + "invalid address: '" + host + "' in '" + raw + "'");
                return;
            }
        }
        b.mailers.add(new EmailAlert.Mailer(name, host, p));
    }

    /** HAProxy's invalid_char: letters, digits, '.', '_', '-' and ':' only. */
    private static String invalidChar(String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (!Character.isLetterOrDigit(ch) && ch != '-' && ch != '_' && ch != '.' && ch != ':') {
                return String.valueOf(ch);
            }
        }
        return null;
    }

    /**
     * After everything is read, for one proxy (HAProxy's check_config_validity): {@code email-alert} lines without all of
     * mailers, from and to are ignored with a warning; the mailers section named must exist. The settings the runtime
     * gets, or null.
     */
    static EmailAlert resolve(ProxyBuilder p, Map<String, Builder> sections, Diagnostics diags) {
        Alert a = p.emailAlert;
        if (!a.set) {
            return null;
        }
        if (a.mailers == null || a.from == null || a.to == null) {
            diags.warning(p.where, "'email-alert' will be ignored for " + (p.kind() == ProxyKind.LISTEN ? "proxy" : p.kind().keyword()) + " '" + p.name + "' (the presence any of"
                    + " 'email-alert from', 'email-alert level' 'email-alert mailers', 'email-alert myhostname', or 'email-alert to'"
                    + " requires each of 'email-alert from', 'email-alert mailers' and 'email-alert to' to be present).");
            return null;
        }
        Builder m = sections.get(a.mailers);
        if (m == null) {
            diags.error(p.where, "Proxy '" + p.name + "': unable to find mailers '" + a.mailers + "'.");
            return null;
        }
        m.users++;
        // HAProxy links a section's mailers backwards
        List<EmailAlert.Mailer> order = new ArrayList<>(m.mailers);
        Collections.reverse(order);
        return new EmailAlert(m.name, order, m.timeoutMs, a.from, a.to, a.level, a.myhostname);
    }

    /** After every proxy was resolved: a section no proxy uses is dropped with HAProxy's warning. */
    static void finish(Map<String, Builder> sections, Diagnostics diags) {
        for (Builder b : sections.values()) {
            if (b.users == 0) {
                diags.warning(b.where, "Removing incomplete section 'mailers " + b.name + "'.");
            }
        }
    }
}

package dev.sluice.proxy.log;

import dev.sluice.config.model.LogFormat;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link LogEvent} with a compiled {@link LogFormat}, as HAProxy's {@code sess_build_logline}
 * does: variables print {@code -} when empty where HAProxy does, separators collapse, {@code +Q} quotes.
 * Stateless apart from the format; shared by all event loops.
 */
public final class LogLine {
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    private static final String PID = Long.toString(ProcessHandle.current().pid());

    private final List<LogFormat.Node> nodes;
    private final ZoneId zone;

    public LogLine(LogFormat format, ZoneId zone) {
        this.nodes = format.nodes();
        this.zone = zone;
    }

    public String render(LogEvent e) {
        StringBuilder sb = new StringBuilder(192);
        boolean lastSpace = true;
        for (LogFormat.Node n : nodes) {
            if (n instanceof LogFormat.Separator) {
                if (!lastSpace) {
                    sb.append(' ');
                    lastSpace = true;
                }
            } else if (n instanceof LogFormat.Literal l) {
                sb.append(l.text());
                lastSpace = l.text().endsWith(" ");
            } else if (n instanceof LogFormat.Variable v) {
                int before = sb.length();
                variable(sb, v, e);
                if (sb.length() > before) {
                    lastSpace = false;
                }
            }
        }
        int end = sb.length();
        while (end > 0 && sb.charAt(end - 1) == ' ') {
            end--;
        }
        sb.setLength(end);
        return sb.toString();
    }

    private void variable(StringBuilder sb, LogFormat.Variable v, LogEvent e) {
        switch (v.name()) {
            case "ci" -> ip(sb, e.client);
            case "cp" -> port(sb, e.client);
            case "fi" -> ip(sb, e.frontendAddress);
            case "fp" -> port(sb, e.frontendAddress);
            case "si", "bi" -> ip(sb, e.serverAddress);
            case "sp", "bp" -> port(sb, e.serverAddress);
            case "t" -> date(sb, e.acceptDate, true);
            case "tr" -> date(sb, e.requestDate, true);
            case "trg" -> gmtDate(sb, e.requestDate, ZoneId.of("UTC"));
            case "trl" -> gmtDate(sb, e.requestDate, zone);
            case "T" -> gmtDate(sb, e.acceptDate, ZoneId.of("UTC"));
            case "Ta" -> sb.append(e.tActive);
            case "Tc" -> sb.append(e.tConnect);
            case "Td" -> sb.append(e.tActive < 0 || e.tResponse < 0 ? -1 : Math.max(0, e.tActive - e.tRequest - Math.max(0, e.tQueue)
                    - Math.max(0, e.tConnect) - e.tResponse));
            case "Th" -> sb.append(0);
            case "Ti" -> sb.append(e.tIdle);
            case "Tq" -> sb.append(e.tRequest < 0 ? -1 : e.tRequest + e.tIdle);
            case "TR" -> sb.append(e.tRequest);
            case "Tr" -> sb.append(e.tResponse);
            case "Tt" -> sb.append(e.tTotal >= 0 ? e.tTotal : e.tActive);
            case "Tu" -> sb.append(e.tActive);
            case "Tw" -> sb.append(e.tQueue);
            case "ST" -> sb.append(e.status < 0 ? 0 : e.status);
            case "B" -> sb.append(e.bytesOut);
            case "U" -> sb.append(e.bytesIn);
            case "CC", "CS" -> sb.append('-');
            case "H" -> sb.append(HOST);
            case "HM" -> text(sb, e.method, v);
            case "HU" -> text(sb, e.uri, v);
            case "HP" -> text(sb, e.uri == null ? null : stripQuery(e.uri), v);
            case "HPO" -> text(sb, e.uri == null ? null : stripQuery(e.uri), v);
            case "HQ" -> text(sb, e.uri == null || e.uri.indexOf('?') < 0 ? "" : e.uri.substring(e.uri.indexOf('?')), v);
            case "HV" -> text(sb, e.version, v);
            case "ID" -> sb.append('-');
            case "b" -> sb.append(e.backend != null ? e.backend : e.frontend);
            case "f" -> sb.append(e.frontend);
            case "ft" -> sb.append(e.frontend).append(e.frontendTls ? "~" : "");
            case "s" -> sb.append(e.server != null ? e.server : "<NOSRV>");
            case "ac" -> sb.append(e.actconn);
            case "fc" -> sb.append(e.feconn);
            case "bc" -> sb.append(e.beconn);
            case "sc" -> sb.append(e.srvconn);
            case "rc" -> sb.append(e.redispatched ? "+" : "").append(e.retries);
            case "sq" -> sb.append(e.serverQueue);
            case "bq" -> sb.append(e.backendQueue);
            case "lc" -> sb.append(0);
            case "ts" -> sb.append(e.cause).append(e.state);
            case "tsc" -> sb.append(e.cause).append(e.state).append("--");
            case "r" -> text(sb, e.requestLine, v);
            case "hr", "hs" -> {
                // no captures configured: nothing, like HAProxy
            }
            case "hrl", "hsl" -> sb.append('-');
            case "pid" -> sb.append(PID);
            case "ms" -> {
                long ms = e.acceptDate % 1000;
                sb.append(ms < 10 ? "00" : ms < 100 ? "0" : "").append(ms);
            }
            case "o" -> {
                // flag only
            }
            case "rt", "lt" -> sb.append(0);
            case "sslc" -> text(sb, e.sslCipher, v);
            case "sslv" -> text(sb, e.sslVersion, v);
            default -> sb.append('-');
        }
    }

    private static final String HOST = hostname();

    private static String hostname() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    private static String stripQuery(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }

    private static void text(StringBuilder sb, String s, LogFormat.Variable v) {
        if (v.quote()) {
            sb.append('"');
        }
        if (s == null || s.isEmpty()) {
            if (!v.quote()) {
                sb.append('-');
            }
        } else if (v.escape() || v.quote()) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 0x20 || c >= 0x7f || c == '"' && v.escape()) {
                    sb.append('#').append(String.format(Locale.ROOT, "%02X", (int) c));
                } else {
                    sb.append(c);
                }
            }
        } else {
            sb.append(s);
        }
        if (v.quote()) {
            sb.append('"');
        }
    }

    private static void ip(StringBuilder sb, InetSocketAddress a) {
        if (a == null || a.getAddress() == null) {
            sb.append('-');
        } else {
            sb.append(dev.sluice.proxy.rules.Network.format(a.getAddress()));
        }
    }

    private static void port(StringBuilder sb, InetSocketAddress a) {
        if (a == null) {
            sb.append('-');
        } else {
            sb.append(a.getPort());
        }
    }

    /** {@code 02/Dec/2026:14:50:11.329} in local time. */
    private void date(StringBuilder sb, long epochMs, boolean millis) {
        date(sb, epochMs, zone, millis);
    }

    /** HAProxy's log date with milliseconds: {@code 02/Dec/2026:14:50:11.329}. */
    static void date(StringBuilder sb, long epochMs, ZoneId zone) {
        date(sb, epochMs, zone, true);
    }

    private static void date(StringBuilder sb, long epochMs, ZoneId zone, boolean millis) {
        ZonedDateTime t = Instant.ofEpochMilli(epochMs).atZone(zone);
        two(sb, t.getDayOfMonth());
        sb.append('/').append(MONTHS[t.getMonthValue() - 1]).append('/').append(t.getYear()).append(':');
        two(sb, t.getHour());
        sb.append(':');
        two(sb, t.getMinute());
        sb.append(':');
        two(sb, t.getSecond());
        if (millis) {
            long ms = epochMs % 1000;
            sb.append('.').append(ms < 10 ? "00" : ms < 100 ? "0" : "").append(ms);
        }
    }

    /** {@code 02/Dec/2026:14:50:11 +0000}. */
    private void gmtDate(StringBuilder sb, long epochMs, ZoneId z) {
        ZonedDateTime t = Instant.ofEpochMilli(epochMs).atZone(z);
        two(sb, t.getDayOfMonth());
        sb.append('/').append(MONTHS[t.getMonthValue() - 1]).append('/').append(t.getYear()).append(':');
        two(sb, t.getHour());
        sb.append(':');
        two(sb, t.getMinute());
        sb.append(':');
        two(sb, t.getSecond());
        int off = t.getOffset().getTotalSeconds() / 60;
        sb.append(' ').append(off < 0 ? '-' : '+');
        off = Math.abs(off);
        two(sb, off / 60);
        two(sb, off % 60);
    }

    private static void two(StringBuilder sb, int v) {
        if (v < 10) {
            sb.append('0');
        }
        sb.append(v);
    }
}

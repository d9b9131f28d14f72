package dev.sluice.proxy.log;

import dev.sluice.config.model.LogFormat;
import dev.sluice.proxy.rules.Network;
import dev.sluice.proxy.rules.RuleCompiler;
import dev.sluice.proxy.rules.SampleExpr;
import dev.sluice.proxy.rules.Samples;
import java.io.IOException;
import java.net.InetAddress;
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
    /** The compiled {@code %[...]} expressions, by node index (null elsewhere). */
    private final SampleExpr[] samples;
    private final ZoneId zone;

    /**
     * Compiles {@code format}; its sample expressions throw {@link IllegalArgumentException} (an unknown
     * fetch or converter), which {@link #check} reports at configuration check time.
     */
    public LogLine(LogFormat format, ZoneId zone) {
        this.nodes = format.nodes();
        this.zone = zone;
        this.samples = new SampleExpr[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i) instanceof LogFormat.Sample smp) {
                // as HAProxy: the request and response are gone when the line is made (use capture.req.hdr())
                RuleCompiler.checkPhase(smp.expr(), RuleCompiler.Phase.LOG);
                samples[i] = RuleCompiler.sample(smp.expr(), RuleCompiler.Phase.LOG);
            }
        }
    }

    /** Whether the format shows the frontend's line counter ({@code %lc}). */
    boolean countsLines() {
        for (LogFormat.Node n : nodes) {
            if (n instanceof LogFormat.Variable v && v.name().equals("lc")) {
                return true;
            }
        }
        return false;
    }

    /** The problem with a format's sample expressions, or null. */
    public static String check(LogFormat format) {
        try {
            new LogLine(format, ZoneId.systemDefault());
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    public String render(LogEvent e) {
        StringBuilder sb = new StringBuilder(192);
        boolean lastSpace = true;
        for (int i = 0; i < nodes.size(); i++) {
            LogFormat.Node n = nodes.get(i);
            if (n instanceof LogFormat.Sample smp) {
                sample(sb, smp, samples[i], e);
                lastSpace = false;
            } else if (n instanceof LogFormat.Separator) {
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
                if (sb.length() > before || printsEmpty(v.name())) {
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

    /** A sample expression, evaluated on the exchange now: {@code -} when it has no value ({@code ""} quoted). */
    private static void sample(StringBuilder sb, LogFormat.Sample smp, SampleExpr expr, LogEvent e) {
        CharSequence v = null;
        if (e.txn != null) {
            try {
                v = Samples.str(expr.get(e.txn));
            } catch (RuntimeException ex) {
                // a fetch that cannot run on this exchange (no response yet, ...) has no value
                v = null;
            }
        }
        text(sb, v == null ? null : v.toString(), smp.quote(), false);
    }

    /** {@code %hr}/{@code %hs}: {@code {v1|v2}}, each value with '#XX' for bytes HAProxy encodes. */
    private static void headerCaptures(StringBuilder sb, String[] slots, LogFormat.Variable v) {
        if (slots == null) {
            return;
        }
        if (v.quote()) {
            sb.append('"');
        }
        sb.append('{');
        for (int i = 0; i < slots.length; i++) {
            if (i > 0) {
                sb.append('|');
            }
            if (slots[i] != null) {
                encode(sb, slots[i], true);
            }
        }
        sb.append('}');
        if (v.quote()) {
            sb.append('"');
        }
    }

    /** {@code %hrl}/{@code %hsl}: the values separated by spaces, {@code -} for an empty slot. */
    private static void headerCaptureList(StringBuilder sb, String[] slots, LogFormat.Variable v) {
        if (slots == null) {
            return;
        }
        for (int i = 0; i < slots.length; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            if (v.quote()) {
                sb.append('"');
            }
            if (slots[i] != null) {
                encode(sb, slots[i], true);
            } else if (!v.quote()) {
                sb.append('-');
            }
            if (v.quote()) {
                sb.append('"');
            }
        }
    }

    /** HAProxy's header encoding map: control bytes, 8-bit bytes and '"#' (and '{|}' for headers) as '#XX'. */
    private static void encode(StringBuilder sb, String s, boolean header) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '#' || header && (c == '{' || c == '|' || c == '}')) {
                sb.append('#').append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
            } else {
                sb.append(c);
            }
        }
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /**
     * {@code %HPO}: the path of an absolute URI without its scheme and authority (HAProxy's http_parse_path): nothing
     * for {@code *} and an authority.
     */
    private static String pathOnly(String uri) {
        if (uri.startsWith("/")) {
            return uri;
        }
        int scheme = uri.indexOf("://");
        if (scheme < 0) {
            return "";
        }
        int slash = uri.indexOf('/', scheme + 3);
        return slash < 0 ? "" : uri.substring(slash);
    }

    /** The parts of the request line, which HAProxy logs without a '-' when empty (see {@link #requestPart}). */
    private static boolean printsEmpty(String name) {
        return switch (name) {
            case "r", "HM", "HU", "HP", "HPO", "HQ", "HV" -> true;
            default -> false;
        };
    }

    /** What HAProxy logs for the parts of the request line when there is none (a request that never became a stream). */
    private static final String BADREQ = "<BADREQ>";

    private void variable(StringBuilder sb, LogFormat.Variable v, LogEvent e) {
        if (v.hex() && hexVariable(sb, v.name(), e)) {
            return;
        }
        switch (v.name()) {
            case "ci" -> ip(sb, e.client);
            case "cp" -> port(sb, e.client);
            case "fi" -> ip(sb, e.frontendAddress);
            case "fp" -> port(sb, e.frontendAddress);
            case "si" -> {
                if (e.serverUnix) {
                    sb.append("unix");
                } else {
                    ip(sb, e.serverAddress);
                }
            }
            case "sp" -> port(sb, e.serverAddress);
            // where the proxy connected from, as HAProxy's backend_source_ip/port
            case "bi" -> ip(sb, e.backendSource);
            case "bp" -> port(sb, e.backendSource);
            case "t" -> date(sb, e.acceptDate, true);
            case "tr" -> date(sb, e.requestDate, true);
            case "trg" -> gmtDate(sb, e.requestDate, ZoneId.of("UTC"));
            case "trl" -> gmtDate(sb, e.requestDate, zone);
            case "T" -> gmtDate(sb, e.acceptDate, ZoneId.of("UTC"));
            case "Tl" -> gmtDate(sb, e.acceptDate, zone);
            case "Ta" -> asap(sb, e).append(e.tActive);
            case "Tc" -> sb.append(e.tConnect);
            case "Td" -> sb.append(e.tActive < 0 || e.tResponse < 0 ? -1 : Math.max(0, e.tActive - e.tRequest - Math.max(0, e.tQueue)
                    - Math.max(0, e.tConnect) - e.tResponse));
            case "Th" -> sb.append(e.tHandshake);
            case "Ti" -> sb.append(e.tIdle);
            case "Tq" -> sb.append(e.tRequest < 0 ? -1 : e.tRequest + e.tIdle + e.tHandshake);
            case "TR" -> sb.append(e.tRequest);
            case "Tr" -> sb.append(e.tResponse);
            case "Tt" -> asap(sb, e).append(e.tTotal >= 0 ? e.tTotal : e.tActive);
            case "Tu" -> asap(sb, e).append(e.tActive + e.tHandshake);
            case "Tw" -> sb.append(e.tQueue);
            case "ST" -> sb.append(e.status);
            case "B" -> asap(sb, e).append(e.bytesOut);
            case "U" -> sb.append(e.bytesIn);
            case "CC" -> text(sb, e.captures == null ? null : e.captures.requestCookie(), v);
            case "CS" -> text(sb, e.captures == null ? null : e.captures.responseCookie(), v);
            case "H" -> sb.append(HOST);
            case "HM" -> requestPart(sb, e.uri == null ? BADREQ : e.method, v);
            case "HU" -> requestPart(sb, e.uri == null ? BADREQ : e.uri, v);
            case "HP" -> requestPart(sb, e.uri == null ? BADREQ : stripQuery(e.uri), v);
            case "HPO" -> requestPart(sb, e.uri == null ? BADREQ : pathOnly(stripQuery(e.uri)), v);
            case "HQ" -> requestPart(sb, e.uri == null ? BADREQ : e.uri.indexOf('?') < 0 ? "" : e.uri.substring(e.uri.indexOf('?')), v);
            case "HV" -> requestPart(sb, e.uri == null ? BADREQ : e.version, v);
            case "ID" -> text(sb, e.captures == null ? null : e.captures.uniqueId(), v);
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
            case "lc" -> sb.append(e.logCounter);
            case "ts" -> sb.append(e.cause).append(e.state);
            case "tsc" -> sb.append(e.cause).append(e.state).append(e.cookieFlags);
            case "r" -> requestPart(sb, e.requestLine == null ? BADREQ : e.requestLine, v);
            case "hr", "hs" -> headerCaptures(sb, e.captures == null ? null : e.captures.slots(v.name().equals("hs")), v);
            case "hrl", "hsl" -> headerCaptureList(sb, e.captures == null ? null : e.captures.slots(v.name().equals("hsl")), v);
            case "pid" -> sb.append(PID);
            case "ms" -> {
                long ms = e.acceptDate % 1000;
                sb.append(ms < 10 ? "00" : ms < 100 ? "0" : "").append(ms);
            }
            case "o" -> {
                // flag only
            }
            case "rt" -> sb.append(e.requestCounter);
            case "Ts" -> sb.append(e.acceptDate / 1000);
            case "lt" -> sb.append(0);
            case "sslc" -> text(sb, e.sslCipher, v);
            case "sslv" -> text(sb, e.sslVersion, v);
            default -> sb.append('-');
        }
    }

    /** {@code +X}: addresses as 8 hex digits, ports and counters as at least 4, the date as 8; false for other variables. */
    private static boolean hexVariable(StringBuilder sb, String name, LogEvent e) {
        switch (name) {
            case "ci", "fi" -> {
                InetSocketAddress a = name.equals("ci") ? e.client : e.frontendAddress;
                if (a == null || a.getAddress() == null) {
                    return false;
                }
                for (byte b : a.getAddress().getAddress()) {
                    hex(sb, b & 0xff, 2);
                }
            }
            case "cp" -> hex(sb, e.client == null ? 0 : e.client.getPort(), 4);
            case "fp" -> hex(sb, e.frontendAddress == null ? 0 : e.frontendAddress.getPort(), 4);
            case "Ts" -> hex(sb, e.acceptDate / 1000, 8);
            case "rt" -> hex(sb, e.requestCounter, 4);
            case "lc" -> hex(sb, e.logCounter, 4);
            case "pid" -> hex(sb, ProcessHandle.current().pid(), 4);
            default -> {
                return false;
            }
        }
        return true;
    }

    private static void hex(StringBuilder sb, long v, int digits) {
        String h = Long.toHexString(v).toUpperCase(Locale.ROOT);
        for (int i = h.length(); i < digits; i++) {
            sb.append('0');
        }
        sb.append(h);
    }

    private static final String HOST = hostname();

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static String stripQuery(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }

    /** {@code option logasap}: byte counts and total times are logged before the end, with a '+'. */
    private static StringBuilder asap(StringBuilder sb, LogEvent e) {
        return e.logAsap ? sb.append('+') : sb;
    }

    /**
     * A part of the request line ({@code %r}, {@code %HM}, {@code %HU}, ...) as HAProxy encodes it whatever the
     * options: control and 8-bit bytes, '"' and '#' as '#XX' (its url_encode_map), and with {@code +E} a '\\' before
     * '\\' and ']'; nothing (no '-') when empty.
     */
    private static void requestPart(StringBuilder sb, String s, LogFormat.Variable v) {
        if (v.quote()) {
            sb.append('"');
        }
        for (int i = 0; s != null && i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '#') {
                sb.append('#').append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
            } else {
                if (v.escape() && (c == '\\' || c == ']')) {
                    sb.append('\\');
                }
                sb.append(c);
            }
        }
        if (v.quote()) {
            sb.append('"');
        }
    }

    private static void text(StringBuilder sb, String s, LogFormat.Variable v) {
        text(sb, s, v.quote(), v.escape());
    }

    private static void text(StringBuilder sb, String s, boolean quote, boolean escape) {
        if (quote) {
            sb.append('"');
        }
        if (s == null || s.isEmpty()) {
            if (!quote) {
                sb.append('-');
            }
        } else if (escape || quote) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 0x20 || c >= 0x7f || c == '"' && escape) {
                    sb.append('#').append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
                } else {
                    sb.append(c);
                }
            }
        } else {
            sb.append(s);
        }
        if (quote) {
            sb.append('"');
        }
    }

    private static void ip(StringBuilder sb, InetSocketAddress a) {
        if (a != null && a.getAddress() == null && a.isUnresolved()) {
            // a client on a UNIX socket: "unix", as HAProxy
            sb.append(a.getHostString());
        } else if (a == null || a.getAddress() == null) {
            sb.append('-');
        } else {
            sb.append(Network.format(a.getAddress()));
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

package dev.sluice.config;

import dev.sluice.config.model.HealthChecks.Expect;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code http-check expect}: the status, regex, string and header rules of an HTTP check's response, with HAProxy
 * 2.6's messages; the rule joins the proxy's {@link CheckKeywords.Builder}.
 */
final class HttpCheckExpects {
    private HttpCheckExpects() {
    }

    private static final String BAD_KEYWORD = "'only supports min-recv, [!]string', '[!]rstring', '[!]string-lf', '[!]status', '[!]rstatus',"
            + " [!]hdr, [!]fhdr or comment but got '%s' as argument..";

    /** What one {@code http-check expect} line says, as HAProxy's parser collects it. */
    private static final class Parsed {
        boolean inverse;
        String comment;
        String ok;
        String error;
        String tout;
        String onSuccess;
        String onError;
        String statusCode;
        long minRecv = -1;
        Expect.Kind kind;
        String pattern;
        Expect.Match nameMatch;
        String name;
        boolean nameLf;
        Expect.Match valueMatch;
        String value;
        boolean valueLf;
    }

    /** Parses the line as HAProxy 2.6's {@code parse_tcpcheck_expect} does (same order of checks, same messages). */
    static void expect(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            c.error("expects at least a matching pattern as arguments.");
            return;
        }
        Parsed p = new Parsed();
        if (!words(c, a, p)) {
            return;
        }
        if (p.onSuccess != null && !logFormat(c, p.onSuccess, p.onSuccess) || p.onError != null && !logFormat(c, p.onError, p.onError)) {
            return;
        }
        int[] codes = null;
        if (p.kind == null) {
            c.error("pattern not found.");
            return;
        }
        switch (p.kind) {
            case STATUS -> {
                codes = codes(c, p.pattern);
                if (codes == null) {
                    return;
                }
            }
            case RSTATUS, RSTRING -> {
                if (!validRegex(c, p.pattern)) {
                    return;
                }
            }
            case STRING_LF -> {
                if (!logFormat(c, p.pattern, p.pattern)) {
                    return;
                }
            }
            case HDR, FHDR -> {
                if (p.nameMatch == Expect.Match.REG && !validRegex(c, p.name) || p.nameLf && !logFormat(c, p.name, p.name)) {
                    return;
                }
                // HAProxy names the name pattern in a value-lf error
                if (p.value != null && (p.valueMatch == Expect.Match.REG && !validRegex(c, p.value) || p.valueLf && !logFormat(c, p.value, p.name))) {
                    return;
                }
            }
            default -> {
            }
        }
        Expect e = new Expect(p.kind, p.inverse, codes, p.pattern, p.nameMatch, p.name, p.valueMatch, p.value, p.comment, p.ok, p.error, p.tout,
                (int) p.minRecv, p.nameLf, p.valueLf, p.onSuccess, p.onError, p.statusCode, c.at());
        CheckKeywords.Builder b = c.proxy().checks;
        b.ownRules();
        if (b.lastAction != null && !b.lastAction.equals("send") && !b.lastAction.equals("expect")) {
            // HAProxy: an expect follows a send (or another expect)
            c.error("unable to add http-check expect rule at step " + (b.steps + 1) + " (missing send rule)..");
            return;
        }
        String pending = b.next("expect");
        b.lastAction = "expect";
        if (p.comment == null && pending != null) {
            e = e.withComment(pending);
        }
        if (e.samples()) {
            // log-format strings and samples are evaluated in the check's session: the rule list has it
            b.multi = true;
        }
        b.expects.add(e);
        b.rules.add(e);
    }

    /** The words of the line into {@code p}; false after reporting an error. */
    private static boolean words(KeywordContext c, List<String> a, Parsed p) {
        int i = 0;
        while (i < a.size() && !a.get(i).isEmpty()) {
            String w = a.get(i);
            boolean inPattern = false;
            if (w.startsWith("!")) {
                inPattern = true;
                int k = 0;
                while (k < w.length() && w.charAt(k) == '!') {
                    p.inverse = !p.inverse;
                    k++;
                }
                w = w.substring(k);
                if (w.isEmpty()) {
                    i++;
                    w = i < a.size() ? a.get(i) : "";
                }
            }
            String next = i + 1 < a.size() ? a.get(i + 1) : "";
            switch (w) {
                case "min-recv", "comment", "on-success", "on-error", "ok-status", "error-status", "tout-status", "status-code" -> {
                    if (inPattern) {
                        c.error("[!] not supported with '" + w + "'.");
                        return false;
                    }
                    if (next.isEmpty()) {
                        c.error("'" + w + "' expects " + (w.equals("min-recv") ? "a integer" : w.equals("status-code") ? "an expression" : "a string")
                                + " as argument.");
                        return false;
                    }
                    if (!option(c, w, next, p)) {
                        return false;
                    }
                    i += 2;
                }
                case "string", "rstring", "string-lf", "status", "rstatus" -> {
                    if (p.kind != null) {
                        c.error("only on pattern expected.");
                        return false;
                    }
                    p.kind = switch (w) {
                        case "string" -> Expect.Kind.STRING;
                        case "rstring" -> Expect.Kind.RSTRING;
                        case "string-lf" -> Expect.Kind.STRING_LF;
                        case "status" -> Expect.Kind.STATUS;
                        default -> Expect.Kind.RSTATUS;
                    };
                    if (next.isEmpty()) {
                        c.error("'" + w + "' expects a <pattern> as argument.");
                        return false;
                    }
                    p.pattern = next;
                    i += 2;
                }
                case "hdr", "fhdr" -> {
                    if (p.kind != null) {
                        c.error("only on pattern expected.");
                        return false;
                    }
                    p.kind = w.equals("hdr") ? Expect.Kind.HDR : Expect.Kind.FHDR;
                    i = header(c, w, a, i, p);
                    if (i < 0) {
                        return false;
                    }
                }
                default -> {
                    c.error(BAD_KEYWORD.formatted(w));
                    return false;
                }
            }
        }
        return true;
    }

    /** A keyword with its argument ({@code next}, not empty); false after reporting an error. */
    private static boolean option(KeywordContext c, String w, String next, Parsed p) {
        switch (w) {
            case "min-recv" -> {
                p.minRecv = atol(next);
                if (p.minRecv < -1 || p.minRecv > Integer.MAX_VALUE) {
                    c.error("'min-recv' expects -1 or an integer from 0 to INT_MAX.");
                    return false;
                }
            }
            case "comment" -> p.comment = next;
            case "on-success" -> p.onSuccess = next;
            case "on-error" -> p.onError = next;
            // compiled by the runtime, which knows the fetches
            case "status-code" -> p.statusCode = next;
            default -> {
                List<String> allowed = switch (w) {
                    case "ok-status" -> List.of("L7OK", "L7OKC", "L6OK", "L4OK");
                    case "error-status" -> List.of("L7RSP", "L7STS", "L7OKC", "L6RSP", "L4CON");
                    default -> List.of("L7TOUT", "L6TOUT", "L4TOUT");
                };
                String st = next.toUpperCase(Locale.ROOT);
                if (!allowed.contains(st)) {
                    String names = switch (w) {
                        case "ok-status" -> "'L4OK', 'L6OK', 'L7OK' or 'L7OKC'";
                        case "error-status" -> "'L4CON', 'L6RSP', 'L7RSP' or 'L7STS'";
                        default -> "'L4TOUT', 'L6TOUT' or 'L7TOUT'";
                    };
                    c.error("'" + w + "' only supports " + names + " status (got '" + next + "')..");
                    return false;
                }
                switch (w) {
                    case "ok-status" -> p.ok = st;
                    case "error-status" -> p.error = st;
                    default -> p.tout = st;
                }
            }
        }
        return true;
    }

    /** C's atol: optional blanks and sign, then the leading digits (0 when none). */
    private static long atol(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean neg = false;
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i)) && v < Long.MAX_VALUE / 100) {
            v = v * 10 + (s.charAt(i) - '0');
            i++;
        }
        return neg ? -v : v;
    }

    /**
     * {@code hdr|fhdr name[-lf] [-m <meth>] <pattern> [value[-lf] [-m <meth>] <pattern>]} from {@code a[i]} (the
     * keyword); the index after it, or -1 after reporting an error.
     */
    private static int header(KeywordContext c, String what, List<String> a, int i, Parsed p) {
        String n1 = arg(a, i + 1);
        if (n1.isEmpty() || arg(a, i + 2).isEmpty() || !n1.equals("name") && !n1.equals("name-lf")) {
            c.error("'" + what + "' expects at the name keyword as first argument followed by a pattern.");
            return -1;
        }
        p.nameLf = n1.equals("name-lf");
        i += 2;
        p.nameMatch = Expect.Match.STR;
        if (arg(a, i).equals("-m")) {
            p.nameMatch = method(c, what, a, i, p.nameLf);
            if (p.nameMatch == null) {
                return -1;
            }
            i += 2;
        }
        p.name = arg(a, i);
        String v = arg(a, i + 1);
        if (!v.equals("value") && !v.equals("value-lf")) {
            return i + 1;
        }
        p.valueLf = v.equals("value-lf");
        p.valueMatch = Expect.Match.STR;
        if (arg(a, i + 2).equals("-m")) {
            i += 2;
            p.valueMatch = method(c, what, a, i, p.valueLf);
            if (p.valueMatch == null) {
                return -1;
            }
        }
        if (arg(a, i + 2).isEmpty()) {
            c.error("'" + what + "' expect a pattern with the value keyword.");
            return -1;
        }
        p.value = arg(a, i + 2);
        return i + 3;
    }

    /** The matching method after {@code -m} at {@code a[i]}; null after reporting an error. */
    private static Expect.Match method(KeywordContext c, String what, List<String> a, int i, boolean lf) {
        String m = arg(a, i + 1);
        if (m.isEmpty()) {
            c.error("'" + what + "' : '-m' expects at a matching pattern ('str', 'beg', 'end', 'sub' or 'reg').");
            return null;
        }
        Expect.Match r = switch (m) {
            case "str" -> Expect.Match.STR;
            case "beg" -> Expect.Match.BEG;
            case "end" -> Expect.Match.END;
            case "sub" -> Expect.Match.SUB;
            case "reg" -> Expect.Match.REG;
            default -> null;
        };
        if (r == null) {
            c.error("'" + what + "' : '-m' only supports 'str', 'beg', 'end', 'sub' or 'reg' (got '" + m + "').");
        } else if (r == Expect.Match.REG && lf) {
            c.error("'" + what + "': log-format string is not supported with a regex matching method.");
            return null;
        }
        return r;
    }

    private static String arg(List<String> a, int i) {
        return i < a.size() ? a.get(i) : "";
    }

    /** Whether {@code text} is a well-formed log-format string; its sample expressions are compiled by the runtime. */
    private static boolean logFormat(KeywordContext c, String text, String shown) {
        try {
            LogFormats.parse(text, true);
            return true;
        } catch (IllegalArgumentException x) {
            c.error("'" + shown + "' invalid log-format string (" + x.getMessage() + ").");
            return false;
        }
    }

    /** {@code 200,201,300-310}: pairs of inclusive bounds, read as HAProxy reads them (digits up to another character). */
    private static int[] codes(KeywordContext c, String p) {
        List<Integer> out = new ArrayList<>();
        int[] pos = {0};
        while (true) {
            long c1 = readUint(p, pos);
            long c2 = c1;
            if (pos[0] < p.length() && p.charAt(pos[0]) == '-') {
                pos[0]++;
                c2 = readUint(p, pos);
            }
            if (c1 > c2) {
                c.error("invalid range of status codes '" + p + "'.");
                return null;
            }
            out.add((int) c1);
            out.add((int) c2);
            if (pos[0] >= p.length()) {
                break;
            }
            if (p.charAt(pos[0]) != ',') {
                c.error("invalid character '" + p.charAt(pos[0]) + "' in the list of status codes.");
                return null;
            }
            pos[0]++;
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** HAProxy's read_uint: the digits from {@code pos[0]}, which moves past them. */
    private static long readUint(String p, int[] pos) {
        long v = 0;
        while (pos[0] < p.length() && p.charAt(pos[0]) >= '0' && p.charAt(pos[0]) <= '9') {
            v = Math.min(0xffffffffL, v * 10 + (p.charAt(pos[0]) - '0'));
            pos[0]++;
        }
        return v;
    }

    static boolean validRegex(KeywordContext c, String re) {
        try {
            Pattern.compile(re);
            return true;
        } catch (PatternSyntaxException e) {
            c.error("regex '" + re + "' is invalid (" + pcreError(e, re) + ").");
            return false;
        }
    }

    /**
     * PCRE2's words and offset for the commonest mistakes (HAProxy 2.6 compiles with PCRE2), the JDK's otherwise:
     * {@code error=<message>, erroffset=<n>}.
     */
    static String pcreError(PatternSyntaxException e, String re) {
        String d = e.getDescription();
        int at = e.getIndex();
        String m;
        if (d.startsWith("Unclosed group")) {
            m = "missing closing parenthesis";
            at = re.length();
        } else if (d.startsWith("Unclosed character class")) {
            m = "missing terminating ] for character class";
            at = re.length();
        } else if (d.startsWith("Dangling meta character")) {
            m = "quantifier does not follow a repeatable item";
        } else if (d.startsWith("Unmatched closing ')'")) {
            m = "unmatched closing parenthesis";
            // the JDK points before the parenthesis, PCRE2 at it
            at = at + 1;
        } else if (d.startsWith("Illegal repetition range")) {
            m = "numbers out of order in {} quantifier";
            at = re.indexOf('}', Math.max(0, at));
        } else if (d.startsWith("Unescaped trailing backslash")) {
            m = "\\ at end of pattern";
            at = re.length();
        } else {
            m = d;
        }
        return "error=" + m + ", erroffset=" + at;
    }
}

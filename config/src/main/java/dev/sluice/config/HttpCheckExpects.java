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

    private static final List<String> STATUSES_OK = List.of("L7OK", "L7OKC", "L6OK", "L4OK");
    private static final List<String> STATUSES_ERROR = List.of("L7OKC", "L7RSP", "L7STS", "L6RSP", "L4CON");
    private static final List<String> STATUSES_TIMEOUT = List.of("L7TOUT", "L6TOUT", "L4TOUT");

    static void expect(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("expects at least a matching pattern as arguments.");
            return;
        }
        boolean inverse = false;
        String comment = null;
        String ok = null;
        String error = null;
        String tout = null;
        int minRecv = -1;
        Expect.Kind kind = null;
        String pattern = null;
        int[] codes = null;
        String[] hdr = null;
        int i = 0;
        while (i < a.size()) {
            String w = a.get(i);
            switch (w) {
                case "!" -> {
                    inverse = true;
                    i++;
                    continue;
                }
                case "min-recv" -> {
                    if (i + 1 >= a.size()) {
                        c.error("'min-recv' expects an integer as argument.");
                        return;
                    }
                    try {
                        minRecv = Integer.parseInt(a.get(i + 1));
                    } catch (NumberFormatException e) {
                        c.error("'min-recv' expects an integer as argument.");
                        return;
                    }
                    i += 2;
                    continue;
                }
                case "comment", "ok-status", "error-status", "tout-status" -> {
                    if (i + 1 >= a.size()) {
                        c.error("'" + w + "' expects a string as argument.");
                        return;
                    }
                    String v = a.get(i + 1);
                    List<String> allowed = switch (w) {
                        case "ok-status" -> STATUSES_OK;
                        case "error-status" -> STATUSES_ERROR;
                        case "tout-status" -> STATUSES_TIMEOUT;
                        default -> null;
                    };
                    if (allowed != null && !allowed.contains(v)) {
                        c.error("'" + w + "' only supports " + String.join(", ", allowed.stream().map(x -> "'" + x + "'").toList())
                                + " status (got '" + v + "').");
                        return;
                    }
                    switch (w) {
                        case "comment" -> comment = v;
                        case "ok-status" -> ok = v;
                        case "error-status" -> error = v;
                        default -> tout = v;
                    }
                    i += 2;
                    continue;
                }
                case "on-success", "on-error", "status-code" -> {
                    c.error("'" + w + "' (log-format) is not supported by Sluice yet in health checks.");
                    return;
                }
                default -> {
                }
            }
            if (w.startsWith("!") && w.length() > 1) {
                inverse = true;
                w = w.substring(1);
            }
            Expect.Kind k = switch (w) {
                case "status" -> Expect.Kind.STATUS;
                case "rstatus" -> Expect.Kind.RSTATUS;
                case "string" -> Expect.Kind.STRING;
                case "string-lf" -> Expect.Kind.STRING_LF;
                case "rstring" -> Expect.Kind.RSTRING;
                case "hdr" -> Expect.Kind.HDR;
                case "fhdr" -> Expect.Kind.FHDR;
                default -> null;
            };
            if (k == null) {
                c.error("'only supports min-recv, [!]string', '[!]rstring', '[!]string-lf', '[!]status', '[!]rstatus', [!]hdr, [!]fhdr or"
                        + " comment but got '" + w + "' as argument..");
                return;
            }
            if (kind != null) {
                c.error("only one pattern expected, got '" + w + "' after '" + kind.name().toLowerCase(Locale.ROOT) + "'.");
                return;
            }
            kind = k;
            if (k == Expect.Kind.HDR || k == Expect.Kind.FHDR) {
                hdr = new String[4];
                i = header(c, k, a, i + 1, hdr);
                if (i < 0) {
                    return;
                }
                continue;
            }
            if (i + 1 >= a.size()) {
                c.error("'" + w + "' expects <pattern> as argument.");
                return;
            }
            pattern = a.get(i + 1);
            switch (k) {
                case STATUS -> {
                    codes = codes(c, pattern);
                    if (codes == null) {
                        return;
                    }
                }
                case RSTATUS, RSTRING -> {
                    if (!validRegex(c, pattern)) {
                        return;
                    }
                }
                case STRING_LF -> {
                    try {
                        LogFormats.parse(pattern, true);
                    } catch (IllegalArgumentException x) {
                        c.error("'" + pattern + "' invalid log-format string (" + x.getMessage() + ").");
                        return;
                    }
                }
                default -> {
                }
            }
            i += 2;
        }
        if (kind == null) {
            c.error("expects at least a matching pattern as arguments.");
            return;
        }
        Expect e = hdr == null
                ? new Expect(kind, inverse, codes, pattern, null, null, null, null, comment, ok, error, tout, minRecv)
                : new Expect(kind, inverse, null, null, Expect.Match.valueOf(hdr[0]), hdr[1], hdr[3] == null ? null : Expect.Match.valueOf(hdr[2]),
                        hdr[3], comment, ok, error, tout, minRecv);
        CheckKeywords.Builder b = c.proxy().checks;
        b.ownRules();
        if (b.lastAction != null && !b.lastAction.equals("send") && !b.lastAction.equals("expect")) {
            // HAProxy: an expect follows a send (or another expect)
            c.error("unable to add http-check expect rule at step " + (b.steps + 1) + " (missing send rule)..");
            return;
        }
        String pending = b.next("expect");
        b.lastAction = "expect";
        if (comment == null && pending != null) {
            e = new Expect(e.kind(), e.inverse(), e.codes(), e.pattern(), e.nameMatch(), e.name(), e.valueMatch(), e.value(), pending, e.okStatus(),
                    e.errorStatus(), e.timeoutStatus(), e.minRecv());
        }
        if (e.kind() == Expect.Kind.STRING_LF) {
            // its pattern is rendered from the check's variables: the rule list has them
            b.multi = true;
        }
        b.expects.add(e);
        b.rules.add(e);
    }

    /** {@code 200,201,300-310}: pairs of inclusive bounds. */
    private static int[] codes(KeywordContext c, String p) {
        List<Integer> out = new ArrayList<>();
        for (String part : p.split(",", -1)) {
            for (int k = 0; k < part.length(); k++) {
                char ch = part.charAt(k);
                if (!(ch >= '0' && ch <= '9') && ch != '-') {
                    c.error("invalid character '" + ch + "' in the list of status codes.");
                    return null;
                }
            }
            String[] range = part.split("-", -1);
            try {
                int lo = Integer.parseInt(range[0]);
                int hi = range.length == 2 ? Integer.parseInt(range[1]) : lo;
                if (range.length > 2 || lo > hi) {
                    throw new NumberFormatException();
                }
                out.add(lo);
                out.add(hi);
            } catch (NumberFormatException e) {
                c.error("invalid range of status codes '" + part + "'.");
                return null;
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    static boolean validRegex(KeywordContext c, String re) {
        try {
            Pattern.compile(re);
            return true;
        } catch (PatternSyntaxException e) {
            c.error("regex '" + re + "' is invalid (error=" + e.getDescription() + ", erroffset=" + e.getIndex() + ").");
            return false;
        }
    }

    /**
     * Parses {@code name [-m <meth>] <name> [value [-m <meth>] <value>]} from {@code a[i]} into {@code out} (name match,
     * name, value match, value); returns the index after it, or -1 after reporting an error.
     */
    private static int header(KeywordContext c, Expect.Kind kind, List<String> a, int i, String[] out) {
        String what = kind.name().toLowerCase(Locale.ROOT);
        while (i < a.size() && (a.get(i).equals("name") || a.get(i).equals("value") || a.get(i).equals("name-lf")
                || a.get(i).equals("value-lf"))) {
            String w = a.get(i);
            if (w.endsWith("-lf")) {
                c.error("'" + w + "' (log-format) is not supported by Sluice yet in health checks.");
                return -1;
            }
            int j = i + 1;
            Expect.Match m = Expect.Match.STR;
            if (j < a.size() && a.get(j).equals("-m")) {
                if (j + 1 >= a.size()) {
                    c.error("'-m' expects a matching method (str, beg, end, sub or reg).");
                    return -1;
                }
                m = switch (a.get(j + 1)) {
                    case "str" -> Expect.Match.STR;
                    case "beg" -> Expect.Match.BEG;
                    case "end" -> Expect.Match.END;
                    case "sub" -> Expect.Match.SUB;
                    case "reg" -> Expect.Match.REG;
                    default -> null;
                };
                if (m == null) {
                    c.error("'-m' : only 'str', 'beg', 'end', 'sub' and 'reg' are supported (got '" + a.get(j + 1) + "').");
                    return -1;
                }
                j += 2;
            }
            if (j >= a.size()) {
                c.error("'" + w + "' expects a pattern as argument.");
                return -1;
            }
            String pat = a.get(j);
            if (m == Expect.Match.REG && !validRegex(c, pat)) {
                return -1;
            }
            int k = w.equals("value") ? 2 : 0;
            out[k] = m.name();
            out[k + 1] = pat;
            i = j + 1;
        }
        if (out[1] == null) {
            c.error("'" + what + "' expects a header name ('name <pattern>').");
            return -1;
        }
        return i;
    }
}

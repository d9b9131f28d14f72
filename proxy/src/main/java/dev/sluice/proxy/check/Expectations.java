package dev.sluice.proxy.check;

import dev.sluice.config.model.HealthChecks;
import dev.sluice.config.model.HealthChecks.Expect;
import dev.sluice.proxy.rules.Samples;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The {@code http-check expect} rules of a backend, compiled once (regexes, the implicit 2xx/3xx rule) and evaluated
 * on a check's response as HAProxy 2.6 does: each rule in order, the first that fails gives the status and the
 * description ({@code Layer7 wrong status} with the reason phrase, {@code HTTP content check did not match}, ...,
 * or the rule's {@code on-error}), a {@code comment} is appended to it; {@code on-success} and {@code status-code} set
 * the message and code of a check that passes. Immutable; shared by the checks of the backend.
 */
public final class Expectations {

    /** A check's conclusion: the status, the HTTP code (0 when none) and the description ("" when none). */
    public record Outcome(CheckStatus status, int code, String desc) {
    }

    /** What a check received: the status line, the fields (names lower-cased) and the body up to the buffer size. */
    public record Response(int status, String reason, List<String[]> fields, byte[] body) {
    }

    /** A rule compiled: its regexes, and its log-format strings and status-code expression (null when unused). */
    private record Rule(Expect e, Pattern regex, Pattern nameRegex, Pattern valueRegex, CheckSamples.Format format, CheckSamples.Format nameFormat,
            CheckSamples.Format valueFormat, CheckSamples.Format onSuccess, CheckSamples.Format onError, CheckSamples.Value statusCode) {
    }

    /** A rule whose log-format string or expression does not compile: the rule and HAProxy's message (without the keyword). */
    static final class RuleProblem extends IllegalArgumentException {
        private final transient Expect rule;

        RuleProblem(Expect rule, String message) {
            super(message);
            this.rule = rule;
        }

        Expect rule() {
            return rule;
        }
    }

    /** The implicit rule of {@code option httpchk}: a 2xx or 3xx status. */
    private static final Expect IMPLICIT = new Expect(Expect.Kind.STATUS, false, new int[] {200, 399}, "200-399", null, null, null, null,
            null, null, null, null, -1);

    private final Rule[] rules;
    private final boolean readsBody;
    private final boolean disableOn404;

    /** Compiles the rules; throws {@link RuleProblem} for the first that does not compile, with HAProxy's words. */
    public Expectations(List<Expect> expects, boolean disableOn404) {
        List<Expect> list = expects.isEmpty() ? List.of(IMPLICIT) : expects;
        this.rules = new Rule[list.size()];
        boolean body = false;
        for (int i = 0; i < rules.length; i++) {
            Expect e = list.get(i);
            Pattern re = e.kind() == Expect.Kind.RSTATUS || e.kind() == Expect.Kind.RSTRING ? Pattern.compile(e.pattern(), Pattern.DOTALL) : null;
            Pattern name = e.nameMatch() == Expect.Match.REG ? Pattern.compile(e.name(), Pattern.CASE_INSENSITIVE) : null;
            Pattern value = e.valueMatch() == Expect.Match.REG ? Pattern.compile(e.value()) : null;
            // HAProxy's order: on-success, on-error, then the pattern; log-format strings rendered at each check
            CheckSamples.Format success = format(e, e.onSuccess(), e.onSuccess());
            CheckSamples.Format error = format(e, e.onError(), e.onError());
            CheckSamples.Format fmt = e.kind() == Expect.Kind.STRING_LF ? format(e, e.pattern(), e.pattern()) : null;
            CheckSamples.Format nameFmt = e.nameLf() ? format(e, e.name(), e.name()) : null;
            // HAProxy names the name pattern in a value-lf error
            CheckSamples.Format valueFmt = e.valueLf() ? format(e, e.value(), e.name()) : null;
            CheckSamples.Value code = null;
            if (e.statusCode() != null) {
                try {
                    code = CheckSamples.compile(e.statusCode(), true);
                } catch (IllegalArgumentException x) {
                    throw new RuleProblem(e, "error detected while parsing status-code expression : " + x.getMessage() + ".");
                }
            }
            rules[i] = new Rule(e, re, name, value, fmt, nameFmt, valueFmt, success, error, code);
            body |= e.kind() == Expect.Kind.STRING || e.kind() == Expect.Kind.RSTRING || e.kind() == Expect.Kind.STRING_LF;
        }
        this.readsBody = body;
        this.disableOn404 = disableOn404;
    }

    private static CheckSamples.Format format(Expect e, String text, String shown) {
        if (text == null) {
            return null;
        }
        try {
            return CheckSamples.Format.compile(text, true);
        } catch (IllegalArgumentException x) {
            throw new RuleProblem(e, "'" + shown + "' invalid log-format string (" + x.getMessage() + ").");
        }
    }

    public static Expectations of(HealthChecks checks) {
        return new Expectations(checks.http() == null ? List.of() : checks.http().expects(), checks.disableOn404());
    }

    /** The status of a check that got no answer in time: the first rule's {@code tout-status}, else L7TOUT. */
    public CheckStatus timeoutStatus() {
        for (Rule r : rules) {
            if (r.e().timeoutStatus() != null) {
                return CheckStatus.named(r.e().timeoutStatus());
            }
        }
        return CheckStatus.L7TOUT;
    }

    /** Whether a rule looks at the body: the check then reads the whole response (up to the buffer size). */
    public boolean readsBody() {
        return readsBody;
    }

    /**
     * Evaluates the rules on a response. {@code serverRunning}: the server is not DOWN, so a 404 under
     * {@code http-check disable-on-404} passes conditionally.
     */
    public Outcome evaluate(Response r, boolean serverRunning) {
        return evaluate(r, serverRunning, null);
    }

    /**
     * {@link #evaluate(Response, boolean)} with the check's session, which the log-format strings and the
     * {@code status-code} expressions read. As HAProxy: the failing rule's {@code on-error} (when it has no message
     * of its own) and {@code status-code} apply, or when all pass the last rule's {@code on-success} and
     * {@code status-code}.
     */
    Outcome evaluate(Response r, boolean serverRunning, CheckSession session) {
        if (disableOn404 && serverRunning && r.status() == 404) {
            return new Outcome(CheckStatus.L7OKC, 404, "");
        }
        Rule last = null;
        for (Rule rule : rules) {
            Outcome failed = check(rule, r, session);
            if (failed != null) {
                return failed;
            }
            last = rule;
        }
        Expect e = last.e();
        CheckStatus ok = e.okStatus() != null ? CheckStatus.named(e.okStatus()) : CheckStatus.L7OK;
        String msg = last.onSuccess() == null || session == null ? "" : last.onSuccess().render(session);
        return new Outcome(ok, code(last, r.status(), session), desc(msg));
    }

    /** The check's code: the response's status, or what the rule's {@code status-code} gives as an integer. */
    private static int code(Rule rule, int status, CheckSession session) {
        if (rule.statusCode() == null || session == null) {
            return status;
        }
        Object v = rule.statusCode().get(session);
        Long n = v == null ? null : Samples.integer(v);
        return n == null ? status : (int) (long) n;
    }

    /** A description as HAProxy keeps it: a C string (up to a NUL) of at most 127 characters. */
    static String desc(String d) {
        int nul = d.indexOf('\0');
        String s = nul < 0 ? d : d.substring(0, nul);
        return s.length() > 127 ? s.substring(0, 127) : s;
    }

    /** Null when the rule passes, else the failure it reports. */
    private static Outcome check(Rule rule, Response r, CheckSession session) {
        Expect e = rule.e();
        String reason = r.reason() == null ? "" : r.reason();
        boolean match;
        CheckStatus status;
        String desc;
        switch (e.kind()) {
            case STATUS -> {
                match = false;
                int[] c = e.codes();
                for (int i = 0; i + 1 < c.length; i += 2) {
                    if (r.status() >= c[i] && r.status() <= c[i + 1]) {
                        match = true;
                        break;
                    }
                }
                status = CheckStatus.L7STS;
                desc = reason;
            }
            case RSTATUS -> {
                match = rule.regex().matcher(Integer.toString(r.status())).find();
                status = CheckStatus.L7STS;
                desc = reason;
            }
            case HDR, FHDR -> {
                String npat = e.name();
                String vpat = e.value();
                if (rule.nameFormat() != null) {
                    npat = session == null ? "" : rule.nameFormat().render(session);
                    if (npat.isEmpty()) {
                        return message(rule, CheckStatus.L7RSP, r.status(), "log-format string evaluated to an empty string", session);
                    }
                }
                if (rule.valueFormat() != null) {
                    vpat = session == null ? "" : rule.valueFormat().render(session);
                    if (vpat.isEmpty()) {
                        return message(rule, CheckStatus.L7RSP, r.status(), "log-format string evaluated to an empty string", session);
                    }
                }
                match = header(rule, npat, vpat, r.fields(), e.kind() == Expect.Kind.FHDR || e.value() == null);
                status = CheckStatus.L7STS;
                desc = reason;
            }
            default -> {
                if (r.body().length == 0) {
                    return failure(rule, CheckStatus.L7RSP, r.status(), "HTTP content check could not find a response body", session);
                }
                String body = new String(r.body(), StandardCharsets.ISO_8859_1);
                if (rule.format() != null) {
                    String p = session == null ? "" : rule.format().render(session);
                    if (p.isEmpty()) {
                        return message(rule, CheckStatus.L7RSP, r.status(), "log-format string evaluated to an empty string", session);
                    }
                    match = body.contains(p);
                } else {
                    match = e.kind() == Expect.Kind.STRING ? body.contains(e.pattern()) : rule.regex().matcher(body).find();
                }
                status = CheckStatus.L7RSP;
                desc = e.inverse() ? "HTTP check matched unwanted content" : "HTTP content check did not match";
            }
        }
        if (match ^ e.inverse()) {
            return null;
        }
        return failure(rule, status, r.status(), desc, session);
    }

    /** A failed rule: its {@code error-status} or {@code dflt}; the description unless the rule has an {@code on-error}. */
    private static Outcome failure(Rule rule, CheckStatus dflt, int code, String desc, CheckSession session) {
        Expect e = rule.e();
        CheckStatus status = e.errorStatus() != null ? CheckStatus.named(e.errorStatus()) : dflt;
        return message(rule, status, code, rule.onError() == null ? desc : "", session);
    }

    /**
     * HAProxy's message of a failed rule: {@code info} when there is one, else the rendered {@code on-error}; then the
     * comment; the code is the rule's {@code status-code} when it gives one.
     */
    private static Outcome message(Rule rule, CheckStatus status, int code, String info, CheckSession session) {
        Expect e = rule.e();
        String msg = !info.isEmpty() || rule.onError() == null || session == null ? info : rule.onError().render(session);
        if (e.comment() != null) {
            msg = msg + " comment: " + e.comment();
        }
        return new Outcome(status, code(rule, code, session), desc(msg));
    }

    /**
     * Whether a field matches the name pattern {@code npat} and, unless {@code full} is false with a value pattern, the
     * value pattern {@code vpat} (the rule's text, or its log-format string rendered).
     */
    private static boolean header(Rule rule, String npat, String vpat, List<String[]> fields, boolean full) {
        Expect e = rule.e();
        for (String[] f : fields) {
            if (!nameMatches(rule, npat, f[0])) {
                continue;
            }
            if (e.value() == null) {
                return true;
            }
            if (full) {
                if (valueMatches(rule, vpat, f[1])) {
                    return true;
                }
                continue;
            }
            for (String v : f[1].split(",")) {
                if (valueMatches(rule, vpat, v.strip())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean nameMatches(Rule rule, String npat, String name) {
        Expect e = rule.e();
        String n = name.toLowerCase(Locale.ROOT);
        String p = npat.toLowerCase(Locale.ROOT);
        return switch (e.nameMatch()) {
            case STR -> n.equals(p);
            case BEG -> n.startsWith(p);
            case END -> n.endsWith(p);
            case SUB -> n.contains(p);
            case REG -> rule.nameRegex().matcher(name).find();
        };
    }

    private static boolean valueMatches(Rule rule, String vpat, String v) {
        Expect e = rule.e();
        return switch (e.valueMatch()) {
            case STR -> v.equals(vpat);
            case BEG -> v.startsWith(vpat);
            case END -> v.endsWith(vpat);
            case SUB -> v.contains(vpat);
            case REG -> rule.valueRegex().matcher(v).find();
        };
    }
}

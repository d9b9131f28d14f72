package dev.sluice.proxy.check;

import dev.sluice.config.model.HealthChecks;
import dev.sluice.config.model.HealthChecks.Expect;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The {@code http-check expect} rules of a backend, compiled once (regexes, the implicit 2xx/3xx rule) and evaluated
 * on a check's response as HAProxy 2.6 does: each rule in order, the first that fails gives the status and the
 * description ({@code Layer7 wrong status} with the reason phrase, {@code HTTP content check did not match}, ...),
 * a {@code comment} is appended to it. Immutable; shared by the checks of the backend.
 */
public final class Expectations {

    /** A check's conclusion: the status, the HTTP code (0 when none) and the description ("" when none). */
    public record Outcome(CheckStatus status, int code, String desc) {
    }

    /** What a check received: the status line, the fields (names lower-cased) and the body up to the buffer size. */
    public record Response(int status, String reason, List<String[]> fields, byte[] body) {
    }

    private record Rule(Expect e, Pattern regex, Pattern nameRegex, Pattern valueRegex, CheckSamples.Format format) {
    }

    /** The implicit rule of {@code option httpchk}: a 2xx or 3xx status. */
    private static final Expect IMPLICIT = new Expect(Expect.Kind.STATUS, false, new int[] {200, 399}, "200-399", null, null, null, null,
            null, null, null, null, -1);

    private final Rule[] rules;
    private final boolean readsBody;
    private final boolean disableOn404;

    public Expectations(List<Expect> expects, boolean disableOn404) {
        List<Expect> list = expects.isEmpty() ? List.of(IMPLICIT) : expects;
        this.rules = new Rule[list.size()];
        boolean body = false;
        for (int i = 0; i < rules.length; i++) {
            Expect e = list.get(i);
            Pattern re = e.kind() == Expect.Kind.RSTATUS || e.kind() == Expect.Kind.RSTRING ? Pattern.compile(e.pattern(), Pattern.DOTALL) : null;
            Pattern name = e.nameMatch() == Expect.Match.REG ? Pattern.compile(e.name(), Pattern.CASE_INSENSITIVE) : null;
            Pattern value = e.valueMatch() == Expect.Match.REG ? Pattern.compile(e.value()) : null;
            // string-lf: compiled here (throws IllegalArgumentException with HAProxy's words), rendered at each check
            CheckSamples.Format fmt = e.kind() == Expect.Kind.STRING_LF ? CheckSamples.Format.compile(e.pattern()) : null;
            rules[i] = new Rule(e, re, name, value, fmt);
            body |= e.kind() == Expect.Kind.STRING || e.kind() == Expect.Kind.RSTRING || e.kind() == Expect.Kind.STRING_LF;
        }
        this.readsBody = body;
        this.disableOn404 = disableOn404;
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

    /** {@link #evaluate(Response, boolean)} with the check's session, which {@code string-lf} patterns are rendered from. */
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
        CheckStatus ok = last != null && last.e().okStatus() != null ? CheckStatus.named(last.e().okStatus()) : CheckStatus.L7OK;
        return new Outcome(ok, r.status(), "");
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
                match = header(rule, r.fields(), e.kind() == Expect.Kind.FHDR || e.value() == null);
                status = CheckStatus.L7STS;
                desc = reason;
            }
            default -> {
                if (r.body().length == 0) {
                    return failure(e, CheckStatus.L7RSP, r.status(), "HTTP content check could not find a response body");
                }
                String body = new String(r.body(), StandardCharsets.ISO_8859_1);
                if (rule.format() != null) {
                    String p = session == null ? "" : rule.format().render(session);
                    if (p.isEmpty()) {
                        return new Outcome(CheckStatus.L7RSP, r.status(), comment(e, "log-format string evaluated to an empty string"));
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
        return failure(e, status, r.status(), desc);
    }

    private static Outcome failure(Expect e, CheckStatus dflt, int code, String desc) {
        CheckStatus status = e.errorStatus() != null ? CheckStatus.named(e.errorStatus()) : dflt;
        return new Outcome(status, code, comment(e, desc));
    }

    /** The description with the rule's comment after it, as HAProxy writes it. */
    private static String comment(Expect e, String desc) {
        return e.comment() == null ? desc : desc + " comment: " + e.comment();
    }

    /** Whether a field matches the name pattern and, unless {@code full} is false with a value pattern, the value. */
    private static boolean header(Rule rule, List<String[]> fields, boolean full) {
        Expect e = rule.e();
        for (String[] f : fields) {
            if (!nameMatches(rule, f[0])) {
                continue;
            }
            if (e.value() == null) {
                return true;
            }
            if (full) {
                if (valueMatches(rule, f[1])) {
                    return true;
                }
                continue;
            }
            for (String v : f[1].split(",")) {
                if (valueMatches(rule, v.strip())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean nameMatches(Rule rule, String name) {
        Expect e = rule.e();
        String n = name.toLowerCase(Locale.ROOT);
        String p = e.name().toLowerCase(Locale.ROOT);
        return switch (e.nameMatch()) {
            case STR -> n.equals(p);
            case BEG -> n.startsWith(p);
            case END -> n.endsWith(p);
            case SUB -> n.contains(p);
            case REG -> rule.nameRegex().matcher(name).find();
        };
    }

    private static boolean valueMatches(Rule rule, String v) {
        Expect e = rule.e();
        return switch (e.valueMatch()) {
            case STR -> v.equals(e.value());
            case BEG -> v.startsWith(e.value());
            case END -> v.endsWith(e.value());
            case SUB -> v.contains(e.value());
            case REG -> rule.valueRegex().matcher(v).find();
        };
    }
}

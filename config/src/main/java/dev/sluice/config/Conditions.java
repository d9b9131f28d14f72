package dev.sluice.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * HAProxy 2.6's configuration conditions, as {@code .if}/{@code .elif} and {@code haproxy -cc} evaluate them: terms
 * (an integer as {@code strtol} reads it, a predicate, {@code ( expr )}), each negated by any number of {@code !},
 * joined by {@code &&} and {@code ||}. Predicates: {@code defined}, {@code feature}, {@code streq}, {@code strneq},
 * {@code version_atleast}, {@code version_before}, {@code openssl_version_atleast}, {@code openssl_version_before},
 * {@code ssllib_name_startswith}. The whole condition is parsed before it is evaluated, and the errors carry HAProxy's
 * messages. An empty condition is false.
 */
public final class Conditions {

    /** A condition that does not parse or cannot be evaluated; the message is HAProxy's (empty where it prints none). */
    public static final class ConditionException extends Exception {
        public ConditionException(String message) {
            super(message);
        }
    }

    /**
     * What predicates consult: environment variables, the build features ({@code -vv}'s list, without the signs), the
     * HAProxy version followed, and the TLS library's name and OpenSSL-compatible version (x.y.z).
     */
    public record Context(Function<String, String> env, Set<String> features, String version, String sslLibrary, String sslVersion) {
    }

    private static final int MAX_DEPTH = 64;

    private final Context ctx;
    private final String s;
    private int pos;

    private Conditions(Context ctx, String s) {
        this.ctx = ctx;
        this.s = s;
    }

    /** Evaluates {@code text} (already unquoted and expanded, as the configuration's lexer leaves it). */
    public static boolean evaluate(Context ctx, String text) throws ConditionException {
        if (text.isEmpty()) {
            return false;
        }
        Conditions c = new Conditions(ctx, text);
        Boolean v = c.expr(MAX_DEPTH);
        if (v == null) {
            throw new ConditionException("unparsable conditional expression '" + text + "'");
        }
        c.blanks();
        if (c.pos < text.length()) {
            throw new ConditionException("unexpected character '" + text.charAt(c.pos) + "' at the end of conditional expression '"
                    + text + "'");
        }
        return v;
    }

    private void blanks() {
        while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
            pos++;
        }
    }

    private String rest(int from) {
        return s.substring(from);
    }

    /** {@code and ( || expr )?}; null when nothing parses here (the position is then left as it was). */
    private Boolean expr(int depth) throws ConditionException {
        int start = pos;
        if (start >= s.length()) {
            return null;
        }
        if (depth <= 0) {
            throw new ConditionException("unparsable conditional expression '" + rest(start) + "'");
        }
        Boolean left = and(depth - 1);
        if (left == null) {
            // where the sub-expression stopped: before a dangling '&&', as HAProxy reports it
            throw new ConditionException("unparsable conditional expression '" + rest(pos) + "'");
        }
        blanks();
        if (!s.startsWith("||", pos)) {
            return left;
        }
        int afterLeft = pos;
        pos += 2;
        blanks();
        Boolean right = expr(depth - 1);
        if (right == null) {
            pos = afterLeft;
            return null;
        }
        return left || right;
    }

    private Boolean and(int depth) throws ConditionException {
        int start = pos;
        if (start >= s.length()) {
            return null;
        }
        if (depth <= 0) {
            throw new ConditionException("unparsable conditional sub-expression '" + rest(start) + "'");
        }
        Boolean left = term(depth - 1);
        if (left == null) {
            throw new ConditionException("unparsable conditional sub-expression '" + rest(start) + "'");
        }
        blanks();
        if (!s.startsWith("&&", pos)) {
            return left;
        }
        int afterLeft = pos;
        pos += 2;
        blanks();
        Boolean right = and(depth - 1);
        if (right == null) {
            pos = afterLeft;
            return null;
        }
        return left && right;
    }

    private Boolean term(int depth) throws ConditionException {
        int start = pos;
        blanks();
        if (pos >= s.length()) {
            pos = start;
            return null;
        }
        if (depth <= 0) {
            throw new ConditionException("unparsable conditional expression '" + rest(start) + "'");
        }
        boolean neg = false;
        while (pos < s.length() && s.charAt(pos) == '!') {
            neg = !neg;
            pos++;
            blanks();
        }
        Long n = integer();
        if (n != null) {
            return (n != 0) != neg;
        }
        if (pos < s.length() && s.charAt(pos) == '(') {
            pos++;
            blanks();
            Boolean v = expr(depth - 1);
            if (v == null) {
                throw new ConditionException("unparsable conditional expression '" + rest(start) + "'");
            }
            blanks();
            if (pos >= s.length() || s.charAt(pos) != ')') {
                throw new ConditionException("expected ')' after conditional expression '" + rest(start) + "'");
            }
            pos++;
            blanks();
            return v != neg;
        }
        int end = pos;
        while (end < s.length() && s.charAt(end) != ' ' && s.charAt(end) != '(') {
            end++;
        }
        String word = s.substring(pos, end);
        int arity = arity(word);
        if (arity == 0) {
            throw new ConditionException("unparsable conditional expression '" + rest(start) + "'");
        }
        pos = end;
        List<String> args = arguments(word, arity);
        return predicate(word, args) != neg;
    }

    /** An integer as {@code strtol(..., 0)} reads one (sign, 0x, leading 0 for octal); null when there is none. */
    private Long integer() {
        Units.Strtol n = Units.strtol(s, pos);
        if (n.end() == pos) {
            return null;
        }
        pos = n.end();
        return n.value();
    }

    private static int arity(String word) {
        return switch (word) {
            case "defined", "feature", "version_atleast", "version_before", "openssl_version_atleast", "openssl_version_before",
                    "ssllib_name_startswith" -> 1;
            case "streq", "strneq" -> 2;
            default -> 0;
        };
    }

    /** The arguments after a predicate's name, as HAProxy's argument parser splits them (no parenthesis: one empty one). */
    private List<String> arguments(String word, int arity) throws ConditionException {
        List<String> args = new ArrayList<>();
        if (pos >= s.length() || s.charAt(pos) != '(') {
            args.add("");
        } else {
            pos++;
            StringBuilder cur = new StringBuilder();
            while (true) {
                if (pos >= s.length()) {
                    throw new ConditionException("expected ')' in argument " + Math.max(1, args.size()) + " of predicate '" + word
                            + "' used in conditional expression");
                }
                char c = s.charAt(pos);
                if (c == ')') {
                    pos++;
                    args.add(cur.toString());
                    break;
                }
                if (c == ',') {
                    if (args.size() + 1 >= arity) {
                        throw new ConditionException("expected ')' before '" + rest(pos) + "' in argument " + Math.max(1, arity - 1)
                                + " of predicate '" + word + "' used in conditional expression");
                    }
                    args.add(cur.toString());
                    cur.setLength(0);
                } else {
                    cur.append(c);
                }
                pos++;
            }
        }
        if (args.size() < arity) {
            throw new ConditionException("missing arguments (got " + args.size() + "/" + arity + "), type 'string' expected in argument "
                    + args.size() + " of predicate '" + word + "' used in conditional expression");
        }
        return args;
    }

    private boolean predicate(String word, List<String> a) throws ConditionException {
        return switch (word) {
            case "defined" -> ctx.env().apply(a.get(0)) != null;
            case "feature" -> a.get(0).isEmpty() || ctx.features().contains(a.get(0));
            case "streq" -> a.get(0).equals(a.get(1));
            case "strneq" -> !a.get(0).equals(a.get(1));
            case "version_atleast" -> compareVersions(ctx.version(), a.get(0)) >= 0;
            case "version_before" -> compareVersions(ctx.version(), a.get(0)) < 0;
            case "ssllib_name_startswith" -> ctx.sslLibrary() != null && ctx.sslLibrary().startsWith(a.get(0));
            case "openssl_version_atleast", "openssl_version_before" -> {
                if (ctx.sslVersion() == null || !a.get(0).matches("\\d+\\.\\d+\\.\\d+[a-z]?")) {
                    // HAProxy fails without a message on a version its parser does not read (it wants x.y.z)
                    throw new ConditionException("");
                }
                int c = compareVersions(ctx.sslVersion(), a.get(0));
                yield word.endsWith("atleast") ? c >= 0 : c < 0;
            }
            default -> throw new ConditionException("unparsable conditional expression '" + word + "'");
        };
    }

    /** Compares dotted versions numerically ("2.10" is after "2.9"); a missing part counts as 0. */
    static int compareVersions(String a, String b) {
        String[] x = a.split("[.-]");
        String[] y = b.split("[.-]");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            long p = i < x.length ? leadingNumber(x[i]) : 0;
            long q = i < y.length ? leadingNumber(y[i]) : 0;
            if (p != q) {
                return Long.compare(p, q);
            }
        }
        return 0;
    }

    private static long leadingNumber(String s) {
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        return i == 0 ? 0 : Long.parseLong(s.substring(0, i));
    }
}

package dev.sluice.config;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * HAProxy's conditional blocks ({@code .if/.elif/.else/.endif}) and messages ({@code .notice},
 * {@code .warning}, {@code .alert}, {@code .diag}). Conditions are predicates ({@code defined(VAR)},
 * {@code feature(NAME)}, {@code streq(a,b)}, {@code strneq(a,b)}, {@code strstr(a,b)},
 * {@code version_atleast(v)}, {@code version_before(v)}, {@code enabled(x)}), integers, {@code !},
 * {@code &&}, {@code ||} and parentheses. One instance per parsed file.
 */
final class Preprocessor {
    private record Frame(SourceRef at, boolean parentActive, boolean taken, boolean active, boolean sawElse) {
    }

    private final Deque<Frame> stack = new ArrayDeque<>();
    private final Diagnostics diags;
    private final Function<String, String> env;
    private final Set<String> features;
    private final String version;

    Preprocessor(Diagnostics diags, Function<String, String> env, Set<String> features, String version) {
        this.diags = diags;
        this.env = env;
        this.features = features;
        this.version = version;
    }

    /** Whether ordinary lines are currently read (not inside a false branch). */
    boolean active() {
        return stack.isEmpty() || stack.peek().active();
    }

    /** Handles a directive line (its first word starts with a dot). */
    void directive(SourceRef at, List<String> words) {
        String d = words.get(0);
        String expr = String.join(" ", words.subList(1, words.size()));
        switch (d) {
            case ".if" -> {
                boolean parent = active();
                boolean v = parent && eval(at, expr);
                stack.push(new Frame(at, parent, v, v, false));
            }
            case ".elif" -> {
                Frame f = stack.poll();
                if (f == null || f.sawElse()) {
                    diags.error(at, "'.elif' without a matching '.if'" + (f != null ? " (after '.else')" : "") + ".");
                    if (f != null) {
                        stack.push(f);
                    }
                    return;
                }
                boolean v = f.parentActive() && !f.taken() && eval(at, expr);
                stack.push(new Frame(f.at(), f.parentActive(), f.taken() || v, v, false));
            }
            case ".else" -> {
                Frame f = stack.poll();
                if (f == null || f.sawElse()) {
                    diags.error(at, "'.else' without a matching '.if'.");
                    if (f != null) {
                        stack.push(f);
                    }
                    return;
                }
                boolean v = f.parentActive() && !f.taken();
                stack.push(new Frame(f.at(), f.parentActive(), true, v, true));
            }
            case ".endif" -> {
                if (stack.poll() == null) {
                    diags.error(at, "'.endif' without a matching '.if'.");
                }
            }
            case ".notice", ".warning", ".alert", ".diag" -> {
                if (!active()) {
                    return;
                }
                switch (d) {
                    case ".notice" -> diags.notice(at, expr);
                    case ".warning" -> diags.warning(at, expr);
                    case ".alert" -> diags.error(at, expr);
                    default -> {
                        // .diag is only shown with -dD in HAProxy; nothing to do
                    }
                }
            }
            default -> {
                if (active()) {
                    diags.error(at, "unknown directive '" + d + "' (expected .if, .elif, .else, .endif, .notice, .warning, .alert or .diag).");
                }
            }
        }
    }

    /** Reports blocks left open at the end of a file. */
    void finish() {
        while (!stack.isEmpty()) {
            Frame f = stack.pop();
            diags.error(f.at(), "'.if' block is not closed by '.endif' before the end of the file.");
        }
    }

    private boolean eval(SourceRef at, String expr) {
        try {
            Expr e = new Expr(expr);
            boolean v = e.or();
            e.skipSpaces();
            if (e.pos < expr.length()) {
                throw new IllegalArgumentException("unexpected '" + expr.substring(e.pos) + "'");
            }
            return v;
        } catch (IllegalArgumentException ex) {
            diags.error(at, "failed to evaluate condition '" + expr + "': " + ex.getMessage() + ".");
            return false;
        }
    }

    /** Recursive-descent evaluator over the joined words of a condition. */
    private final class Expr {
        private final String s;
        private int pos;

        Expr(String s) {
            this.s = s;
        }

        void skipSpaces() {
            while (pos < s.length() && s.charAt(pos) == ' ') {
                pos++;
            }
        }

        boolean or() {
            boolean v = and();
            while (true) {
                skipSpaces();
                if (s.startsWith("||", pos)) {
                    pos += 2;
                    boolean r = and();
                    v = v || r;
                } else {
                    return v;
                }
            }
        }

        boolean and() {
            boolean v = unary();
            while (true) {
                skipSpaces();
                if (s.startsWith("&&", pos)) {
                    pos += 2;
                    boolean r = unary();
                    v = v && r;
                } else {
                    return v;
                }
            }
        }

        boolean unary() {
            skipSpaces();
            if (pos >= s.length()) {
                throw new IllegalArgumentException("missing term");
            }
            char c = s.charAt(pos);
            if (c == '!') {
                pos++;
                return !unary();
            }
            if (c == '(') {
                pos++;
                boolean v = or();
                skipSpaces();
                if (pos >= s.length() || s.charAt(pos) != ')') {
                    throw new IllegalArgumentException("missing ')'");
                }
                pos++;
                return v;
            }
            int start = pos;
            while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_' || s.charAt(pos) == '-'
                    || s.charAt(pos) == '.')) {
                pos++;
            }
            String word = s.substring(start, pos);
            if (word.isEmpty()) {
                throw new IllegalArgumentException("unexpected character '" + c + "'");
            }
            if (pos < s.length() && s.charAt(pos) == '(') {
                int close = s.indexOf(')', pos);
                if (close < 0) {
                    throw new IllegalArgumentException("missing ')' after '" + word + "('");
                }
                String inner = s.substring(pos + 1, close);
                pos = close + 1;
                return predicate(word, inner.isEmpty() ? new String[0] : inner.split(",", -1));
            }
            try {
                return Long.parseLong(word) != 0;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("unknown term '" + word + "'");
            }
        }

        private boolean predicate(String name, String[] args) {
            return switch (name) {
                case "defined" -> {
                    need(name, args, 1);
                    yield env.apply(args[0].trim()) != null;
                }
                case "feature" -> {
                    need(name, args, 1);
                    yield features.contains(args[0].trim().toUpperCase(Locale.ROOT));
                }
                case "streq" -> {
                    need(name, args, 2);
                    yield args[0].equals(args[1]);
                }
                case "strneq" -> {
                    need(name, args, 2);
                    yield !args[0].equals(args[1]);
                }
                case "strstr" -> {
                    need(name, args, 2);
                    yield args[0].contains(args[1]);
                }
                case "version_atleast" -> {
                    need(name, args, 1);
                    yield compareVersions(version, args[0].trim()) >= 0;
                }
                case "version_before" -> {
                    need(name, args, 1);
                    yield compareVersions(version, args[0].trim()) < 0;
                }
                case "enabled" -> {
                    need(name, args, 1);
                    yield false;
                }
                default -> throw new IllegalArgumentException("unknown predicate '" + name + "'");
            };
        }

        private void need(String name, String[] args, int n) {
            if (args.length != n) {
                throw new IllegalArgumentException("'" + name + "' expects " + n + " argument" + (n > 1 ? "s" : ""));
            }
        }
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

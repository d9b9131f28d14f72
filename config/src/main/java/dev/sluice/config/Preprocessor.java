package dev.sluice.config;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * HAProxy's conditional blocks ({@code .if/.elif/.else/.endif}) and messages ({@code .notice},
 * {@code .warning}, {@code .alert}, {@code .diag}). Conditions are HAProxy 2.6's, evaluated by {@link Conditions}
 * (also what {@code sluice -cc} runs). One instance per parsed file.
 */
final class Preprocessor {
    private record Frame(SourceRef at, boolean parentActive, boolean taken, boolean active, boolean sawElse) {
    }

    private final Deque<Frame> stack = new ArrayDeque<>();
    private final Diagnostics diags;
    private final Conditions.Context context;

    Preprocessor(Diagnostics diags, Conditions.Context context) {
        this.diags = diags;
        this.context = context;
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
                    default -> diags.diag(at, expr);
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
            return Conditions.evaluate(context, expr);
        } catch (Conditions.ConditionException ex) {
            diags.error(at, "failed to evaluate condition '" + expr + "'" + (ex.getMessage().isEmpty() ? "." : ": " + ex.getMessage() + "."));
            return false;
        }
    }
}

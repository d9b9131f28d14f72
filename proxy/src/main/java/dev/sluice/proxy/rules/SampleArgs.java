package dev.sluice.proxy.rules;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses sample expressions: {@code fetch(arg,...)[,converter(arg,...)]...}. Arguments may be quoted
 * ({@code "..."} or {@code '...'}), escaped with a backslash, and hold balanced parentheses (regexes).
 */
public final class SampleArgs {
    private SampleArgs() {
    }

    /** One call in an expression: a name and its raw arguments. */
    public record Call(String name, List<String> args) {
    }

    /** Splits an expression into its fetch and converters; throws {@link IllegalArgumentException}. */
    public static List<Call> parse(String expr) {
        List<Call> calls = new ArrayList<>();
        int n = expr.length();
        int i = 0;
        while (i < n) {
            int s = i;
            while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || "._+-".indexOf(expr.charAt(i)) >= 0)) {
                i++;
            }
            if (i == s) {
                throw new IllegalArgumentException("unexpected character '" + expr.charAt(i) + "' in sample expression '" + expr + "'");
            }
            String name = expr.substring(s, i);
            List<String> args = new ArrayList<>();
            if (i < n && expr.charAt(i) == '(') {
                i++;
                StringBuilder cur = new StringBuilder();
                int depth = 0;
                boolean closed = false;
                boolean any = false;
                while (i < n) {
                    char c = expr.charAt(i);
                    if (c == '\\' && i + 1 < n) {
                        cur.append(expr.charAt(i + 1));
                        i += 2;
                        any = true;
                    } else if (c == '"' || c == '\'') {
                        int end = expr.indexOf(c, i + 1);
                        if (end < 0) {
                            throw new IllegalArgumentException("unmatched quote in sample expression '" + expr + "'");
                        }
                        cur.append(expr, i + 1, end);
                        i = end + 1;
                        any = true;
                    } else if (c == '(') {
                        depth++;
                        cur.append(c);
                        i++;
                    } else if (c == ')') {
                        if (depth == 0) {
                            i++;
                            closed = true;
                            break;
                        }
                        depth--;
                        cur.append(c);
                        i++;
                    } else if (c == ',' && depth == 0) {
                        args.add(cur.toString());
                        cur.setLength(0);
                        any = true;
                        i++;
                    } else {
                        cur.append(c);
                        any = true;
                        i++;
                    }
                }
                if (!closed) {
                    throw new IllegalArgumentException("missing closing ')' after arguments of '" + name + "'");
                }
                if (any || !args.isEmpty()) {
                    args.add(cur.toString());
                }
            }
            calls.add(new Call(name, args));
            if (i < n) {
                if (expr.charAt(i) != ',') {
                    throw new IllegalArgumentException("expected ',' after '" + name + "' in sample expression '" + expr + "'");
                }
                i++;
                if (i >= n) {
                    throw new IllegalArgumentException("missing converter after ',' in '" + expr + "'");
                }
            }
        }
        if (calls.isEmpty()) {
            throw new IllegalArgumentException("empty sample expression");
        }
        return calls;
    }
}

package dev.sluice.config;

import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Condition;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses the words of a condition after {@code if}/{@code unless}: ACL names and anonymous
 * {@code { <fetch> [flags] <values> }} blocks ANDed by juxtaposition, {@code ||} or {@code or} between
 * alternatives, {@code !} before a term to negate it. Braces must be separate words, as in HAProxy.
 */
public final class ConditionParser {
    private ConditionParser() {
    }

    /** @throws IllegalArgumentException with HAProxy-like wording when the words are not a condition */
    public static Condition parse(boolean unless, List<String> words) {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("missing condition after '" + (unless ? "unless" : "if") + "'.");
        }
        List<List<Condition.Term>> alternatives = new ArrayList<>();
        List<Condition.Term> current = new ArrayList<>();
        boolean negate = false;
        int i = 0;
        while (i < words.size()) {
            String w = words.get(i);
            if (w.equals("!{")) {
                // HAProxy takes '!{' as '!' then '{'
                negate = !negate;
                w = "{";
            }
            if (w.equals("||") || w.equals("or")) {
                if (current.isEmpty() || negate) {
                    throw new IllegalArgumentException("missing ACL before '" + w + "'.");
                }
                alternatives.add(current);
                current = new ArrayList<>();
                i++;
            } else if (w.equals("!")) {
                negate = !negate;
                i++;
            } else if (w.equals("{")) {
                int close = -1;
                for (int j = i + 1; j < words.size() && close < 0; j++) {
                    if (words.get(j).equals("{")) {
                        throw new IllegalArgumentException("nested '{' in condition.");
                    }
                    if (words.get(j).equals("}")) {
                        close = j;
                    }
                }
                if (close < 0) {
                    throw new IllegalArgumentException("missing closing '}' in condition.");
                }
                if (close == i + 1) {
                    throw new IllegalArgumentException("empty anonymous ACL '{ }' in condition.");
                }
                current.add(new Condition.Term(negate, null, parseExpr(words.subList(i + 1, close))));
                negate = false;
                i = close + 1;
            } else if (w.equals("}")) {
                throw new IllegalArgumentException("unexpected '}' without a matching '{' in condition.");
            } else if (w.startsWith("!") && w.length() > 1) {
                current.add(new Condition.Term(!negate, checkName(w.substring(1)), null));
                negate = false;
                i++;
            } else {
                current.add(new Condition.Term(negate, checkName(w), null));
                negate = false;
                i++;
            }
        }
        if (negate) {
            throw new IllegalArgumentException("missing ACL after '!'.");
        }
        if (current.isEmpty()) {
            throw new IllegalArgumentException("missing ACL after '||'.");
        }
        alternatives.add(current);
        return new Condition(unless, alternatives);
    }

    private static String checkName(String name) {
        if (name.startsWith("{") || name.endsWith("}")) {
            throw new IllegalArgumentException("'" + name + "': braces of an anonymous ACL must be separated by spaces.");
        }
        AclNames.check(name);
        return name;
    }

    /**
     * Splits ACL expression words into the sample, the flags and the values, as for an {@code acl} line
     * after its name. Flags come right after the sample: {@code -i -n -m <method> -f <file> -M -u <id>}
     * and {@code --} to end them.
     */
    public static AclExpr parseExpr(List<String> words) {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("missing sample fetch in ACL expression.");
        }
        String sample = words.get(0);
        List<String> flags = new ArrayList<>();
        int i = 1;
        while (i < words.size() && words.get(i).startsWith("-") && words.get(i).length() > 1) {
            String f = words.get(i);
            if (f.equals("--")) {
                i++;
                break;
            }
            switch (f) {
                case "-i", "-n", "-M" -> {
                    flags.add(f);
                    i++;
                }
                case "-m", "-f", "-u" -> {
                    if (i + 1 >= words.size()) {
                        throw new IllegalArgumentException("missing argument after '" + f + "' in ACL expression '" + sample + "'.");
                    }
                    flags.add(f);
                    flags.add(words.get(i + 1));
                    i += 2;
                }
                default -> {
                    // a negative number is a value, not a flag
                    if (f.length() > 1 && Character.isDigit(f.charAt(1))) {
                        return new AclExpr(sample, flags, words.subList(i, words.size()));
                    }
                    throw new IllegalArgumentException("'" + f + "' is not a valid ACL option. Please use '--' before any pattern beginning with a '-'.");
                }
            }
        }
        return new AclExpr(sample, flags, words.subList(i, words.size()));
    }
}

package dev.sluice.config;

import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Condition;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses the words of a condition after {@code if}/{@code unless} as HAProxy 2.6's {@code parse_acl_cond} (acl.c)
 * takes them: ACL names and anonymous {@code { <fetch> [flags] <values> }} blocks ANDed by juxtaposition,
 * {@code or} (any case: {@code OR}, {@code Or}) or {@code ||} between alternatives, and as many {@code !} as wanted
 * at the start of any word, each one toggling the negation of the next term ({@code !a}, {@code ! a}, {@code !!a},
 * {@code !{ ... }}, {@code ! { ... }}). As in HAProxy, a word left empty by its {@code !}s is skipped, a separator
 * clears a pending negation, empty alternatives ({@code or a}, {@code a or}, {@code a || || b}) and a trailing
 * {@code !} are accepted, and no words at all make a condition with no alternative (it never holds, so
 * {@code unless} with nothing always does). Braces must be separate words: {@code {a} is an ACL name, and an
 * anonymous ACL ends at the first {@code }}. Names are not checked here: an unknown one is "no such ACL" when the
 * proxy's rules compile.
 */
public final class ConditionParser {
    private ConditionParser() {
    }

    /** @throws IllegalArgumentException with HAProxy's wording when the words are not a condition */
    public static Condition parse(boolean unless, List<String> words) {
        List<List<Condition.Term>> alternatives = new ArrayList<>();
        List<Condition.Term> current = null;
        boolean negate = false;
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            int bang = 0;
            while (bang < w.length() && w.charAt(bang) == '!') {
                negate = !negate;
                bang++;
            }
            w = w.substring(bang);
            if (w.isEmpty()) {
                continue;
            }
            if (w.equalsIgnoreCase("or") || w.equals("||")) {
                current = null;
                negate = false;
                continue;
            }
            Condition.Term term;
            if (w.equals("{")) {
                int close = i + 1;
                while (close < words.size() && !words.get(close).equals("}")) {
                    close++;
                }
                if (close == words.size()) {
                    throw new IllegalArgumentException("missing closing '}' in condition.");
                }
                if (close == i + 1) {
                    throw new IllegalArgumentException("missing fetch method in ACL expression ''.");
                }
                term = new Condition.Term(negate, null, parseExpr(words.subList(i + 1, close)));
                i = close;
            } else {
                term = new Condition.Term(negate, w, null);
            }
            if (current == null) {
                current = new ArrayList<>();
                alternatives.add(current);
            }
            current.add(term);
            negate = false;
        }
        return new Condition(unless, alternatives);
    }

    /**
     * Splits ACL expression words into the sample, the flags and the values, as for an {@code acl} line
     * after its name. Flags come right after the sample: {@code -i -n -m <method> -f <file> -M -u <id>}
     * and {@code --} to end them; any other word starting with '-' (a negative number too) is refused, as HAProxy does.
     */
    public static AclExpr parseExpr(List<String> words) {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("missing sample fetch in ACL expression.");
        }
        String sample = words.get(0);
        List<String> flags = new ArrayList<>();
        int i = 1;
        // as HAProxy 2.6's parse_acl_expr: every word starting with '-' is an option until "--" (a negative number too)
        while (i < words.size() && words.get(i).startsWith("-")) {
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
                    throw new IllegalArgumentException("'" + f + "' is not a valid ACL option. Please use '--' before any pattern beginning with a '-'.");
                }
            }
        }
        return new AclExpr(sample, flags, words.subList(i, words.size()));
    }
}

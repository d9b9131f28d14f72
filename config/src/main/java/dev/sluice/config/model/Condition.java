package dev.sluice.config.model;

import java.util.List;

/**
 * An {@code if}/{@code unless} condition: an OR of AND-ed terms, each term a named or anonymous ACL,
 * possibly negated with {@code !}. {@code unless} negates the whole result.
 */
public record Condition(boolean unless, List<List<Term>> alternatives) {

    public Condition {
        alternatives = alternatives.stream().map(List::copyOf).toList();
    }

    /** One ACL reference in a condition: a name, or an anonymous {@code { ... }} expression. */
    public record Term(boolean negated, String aclName, AclExpr anonymous) {
        @Override
        public String toString() {
            return (negated ? "!" : "") + (aclName != null ? aclName : "{ " + anonymous + " }");
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(unless ? "unless" : "if");
        for (int i = 0; i < alternatives.size(); i++) {
            if (i > 0) {
                sb.append(" ||");
            }
            for (Term t : alternatives.get(i)) {
                sb.append(' ').append(t);
            }
        }
        return sb.toString();
    }
}

package dev.sluice.proxy.rules;

/**
 * A compiled {@code if}/{@code unless} condition: alternatives of ANDed terms, each term an ACL (or
 * several ORed ACLs of one name) possibly negated. Immutable; shared by all streams.
 * <p>
 * Evaluation is HAProxy's three-valued one (acl.c, {@code acl_exec_cond}): an ACL gives {@link #PASS},
 * {@link #FAIL} or {@link #MISS} (a fetch could not decide yet and said its sample may change, while the
 * content is not final: see {@link Txn#contentFinal()}). With FAIL = 0, MISS = 1 and PASS = 3, the ACLs of
 * a name and the alternatives ({@code ||}) are ORed, the terms of an alternative ANDed, and {@code !} (and
 * {@code unless}) maps PASS and FAIL to each other and keeps MISS ({@code 3 >> r}). As in HAProxy, an
 * alternative stops at its first term that is not PASS (so {@code MISS FAIL} is MISS), and the ORs stop at
 * the first PASS. Outside content inspection nothing misses, and {@link #test} is {@code eval == PASS}.
 */
public final class Cond {
    /** The condition does not hold. */
    public static final int FAIL = 0;
    /** It cannot be decided yet: a sample may change with more content (wait for it, or take it as FAIL when final). */
    public static final int MISS = 1;
    /** The condition holds. */
    public static final int PASS = 3;

    /** One term: the ACLs of a name (ORed) and whether it is negated. */
    record Term(Acl[] acls, boolean negated) {
        int eval(Txn t) {
            int r = FAIL;
            for (Acl a : acls) {
                r |= a.eval(t);
                if (r == PASS) {
                    break;
                }
            }
            return negated ? 3 >> r : r;
        }
    }

    private final Term[][] alternatives;
    private final boolean unless;

    Cond(Term[][] alternatives, boolean unless) {
        this.alternatives = alternatives;
        this.unless = unless;
    }

    /** {@link #FAIL}, {@link #MISS} or {@link #PASS}, {@code unless} applied. */
    public int eval(Txn t) {
        int result = FAIL;
        for (Term[] and : alternatives) {
            int all = PASS;
            for (Term term : and) {
                all &= term.eval(t);
                if (all != PASS) {
                    break;
                }
            }
            result |= all;
            if (result == PASS) {
                break;
            }
        }
        return unless ? 3 >> result : result;
    }

    /** Whether the condition holds (a MISS does not). */
    public boolean test(Txn t) {
        return eval(t) == PASS;
    }

    /** Whether some ACL of this condition reads layer-6 content (HAProxy's L6 sample fetches). */
    public boolean usesL6() {
        for (Term[] and : alternatives) {
            for (Term term : and) {
                for (Acl a : term.acls()) {
                    if (a.l6()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** A condition that is null always holds. */
    public static boolean holds(Cond c, Txn t) {
        return c == null || c.test(t);
    }

    /** {@link #eval}, a null condition being {@link #PASS}. */
    public static int eval(Cond c, Txn t) {
        return c == null ? PASS : c.eval(t);
    }
}

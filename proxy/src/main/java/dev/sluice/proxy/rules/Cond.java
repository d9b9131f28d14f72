package dev.sluice.proxy.rules;

/**
 * A compiled {@code if}/{@code unless} condition: alternatives of ANDed terms, each term an ACL (or
 * several ORed ACLs of one name) possibly negated. Immutable; shared by all streams.
 */
public final class Cond {
    /** One term: the ACLs of a name (ORed) and whether it is negated. */
    record Term(Acl[] acls, boolean negated) {
        boolean test(Txn t) {
            boolean any = false;
            for (Acl a : acls) {
                if (a.test(t)) {
                    any = true;
                    break;
                }
            }
            return any != negated;
        }
    }

    private final Term[][] alternatives;
    private final boolean unless;

    Cond(Term[][] alternatives, boolean unless) {
        this.alternatives = alternatives;
        this.unless = unless;
    }

    public boolean test(Txn t) {
        boolean result = false;
        for (Term[] and : alternatives) {
            boolean all = true;
            for (Term term : and) {
                if (!term.test(t)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                result = true;
                break;
            }
        }
        return result != unless;
    }

    /** A condition that is null always holds. */
    public static boolean holds(Cond c, Txn t) {
        return c == null || c.test(t);
    }
}

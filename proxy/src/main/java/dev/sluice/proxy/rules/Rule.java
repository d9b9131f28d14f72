package dev.sluice.proxy.rules;

import java.util.List;

/**
 * An ordered set of compiled rules (one proxy's {@code http-request}, {@code http-response} or
 * {@code http-after-response} lines): each an optional condition and an action. Immutable.
 */
public final class Rule {
    private final Cond cond;
    private final Action action;

    public Rule(Cond cond, Action action) {
        this.cond = cond;
        this.action = action;
    }

    /** Runs the rules in order; returns {@link Action.Verdict#DONE} when one of them ended the exchange. */
    public static Action.Verdict run(List<Rule> rules, RuleTarget t) {
        for (int i = 0; i < rules.size(); i++) {
            Rule r = rules.get(i);
            if (Cond.holds(r.cond, t)) {
                Action.Verdict v = r.action.apply(t);
                if (v == Action.Verdict.DONE) {
                    return v;
                }
                if (v == Action.Verdict.STOP) {
                    return Action.Verdict.CONTINUE;
                }
            }
        }
        return Action.Verdict.CONTINUE;
    }
}

package dev.sluice.proxy.rules;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * An ordered set of compiled rules (one proxy's {@code http-request}, {@code http-response} or
 * {@code http-after-response} lines): each an optional condition and an action. Immutable.
 */
public final class Rule {
    private final Cond cond;
    private final Action action;
    /** Where the rule was written ({@code last_rule_file}, {@code last_rule_line}), or null. */
    private final SourceRef where;

    public Rule(Cond cond, Action action) {
        this(cond, action, null);
    }

    public Rule(Cond cond, Action action, SourceRef where) {
        this.cond = cond;
        this.action = action;
        this.where = where;
    }

    /**
     * Applies the action. A rule whose action ends the rules ({@code DONE}: a deny, a return, a redirect...; {@code STOP}:
     * allow, accept) is the stream's last rule, as HAProxy 2.6 records {@code last_rule_file}/{@code last_rule_line} on
     * every final verdict. It is recorded before the action runs, since an action that answers logs the exchange at
     * once, and taken back when the action lets the rules go on.
     */
    private Action.Verdict apply(RuleTarget t) {
        if (where == null) {
            return action.apply(t);
        }
        SourceRef before = t.lastRule();
        t.lastRule(where);
        Action.Verdict v = action.apply(t);
        if (v != Action.Verdict.DONE && v != Action.Verdict.STOP) {
            t.lastRule(before);
        }
        return v;
    }

    /** What {@link #resume} returns when a rule ended the exchange. */
    public static final int ENDED = -1;

    /** What {@link #inspect} returns when a condition cannot be decided yet: the rules wait for more content. */
    public static final int MISSING = -2;

    /**
     * Runs content inspection rules ({@code tcp-request content}, {@code tcp-response content}) from the first, as
     * HAProxy 2.6's tcp_inspect_request does on each evaluation: a condition that cannot be decided yet ({@link Cond#MISS},
     * only while the content is not final) stops the pass and returns {@link #MISSING} (the rules run again from the
     * first when more content comes, the actions of the rules before it included); a rule that ends the stream returns
     * {@link #ENDED}; {@code accept} or the end of the list return {@code rules.size()}.
     */
    public static int inspect(List<Rule> rules, RuleTarget t) {
        for (int i = 0; i < rules.size(); i++) {
            Rule r = rules.get(i);
            int c = Cond.eval(r.cond, t);
            if (c == Cond.MISS) {
                return MISSING;
            }
            if (c == Cond.PASS) {
                switch (r.apply(t)) {
                    case DONE -> {
                        return ENDED;
                    }
                    case STOP -> {
                        return rules.size();
                    }
                    default -> {
                    }
                }
            }
        }
        return rules.size();
    }

    /** Runs the rules in order; returns {@link Action.Verdict#DONE} when one of them ended the exchange. */
    public static Action.Verdict run(List<Rule> rules, RuleTarget t) {
        return resume(rules, t, 0) == ENDED ? Action.Verdict.DONE : Action.Verdict.CONTINUE;
    }

    /**
     * Runs the rules from index {@code from}: returns {@link #ENDED} when one of them ended the exchange,
     * the index of the rule after one that yielded ({@code wait-for-body}: the stream resumes there), else
     * {@code rules.size()} (all ran, or {@code allow} stopped them).
     */
    public static int resume(List<Rule> rules, RuleTarget t, int from) {
        for (int i = from; i < rules.size(); i++) {
            Rule r = rules.get(i);
            if (Cond.holds(r.cond, t)) {
                Action.Verdict v = r.apply(t);
                switch (v) {
                    case DONE -> {
                        return ENDED;
                    }
                    case STOP -> {
                        return rules.size();
                    }
                    case YIELD -> {
                        return i + 1;
                    }
                    default -> {
                    }
                }
            }
        }
        return rules.size();
    }
}

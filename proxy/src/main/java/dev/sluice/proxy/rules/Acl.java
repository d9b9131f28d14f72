package dev.sluice.proxy.rules;

import java.util.function.Predicate;

/**
 * A compiled ACL: a sample expression and the predicate its patterns form. It matches when some
 * occurrence of the sample satisfies the predicate. Immutable; shared by all streams.
 */
public final class Acl {
    private static final Predicate<Object> NEVER = v -> false;

    private final Fetch sample;
    private final Predicate<Object> match;
    private final String keyword;
    private final RuleCompiler.Phase needs;

    /**
     * @param keyword the ACL keyword as written ({@code path_beg}), for diagnostics
     * @param needs the phase whose message the sample reads, null when it reads neither
     */
    Acl(Fetch sample, Predicate<Object> match, String keyword, RuleCompiler.Phase needs) {
        this.sample = sample;
        this.match = match;
        this.keyword = keyword;
        this.needs = needs;
    }

    public boolean test(Txn t) {
        return sample.any(t, match);
    }

    /** Whether this ACL can be evaluated in rules of {@code phase}. */
    boolean usableIn(RuleCompiler.Phase phase) {
        return needs == null || needs == phase;
    }

    String keyword() {
        return keyword;
    }

    /** The same ACL, made to never match (an ACL used where its sample cannot exist, as HAProxy does). */
    Acl never() {
        return new Acl(sample, NEVER, keyword, null);
    }
}

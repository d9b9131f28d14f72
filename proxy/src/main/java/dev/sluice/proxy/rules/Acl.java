package dev.sluice.proxy.rules;

import java.util.function.Predicate;

/**
 * A compiled ACL: a sample expression and the predicate its patterns form. It matches when some
 * occurrence of the sample satisfies the predicate. Immutable; shared by all streams.
 */
public final class Acl {
    private final Fetch sample;
    private final Predicate<Object> match;
    private final boolean needsResponse;

    Acl(Fetch sample, Predicate<Object> match, boolean needsResponse) {
        this.sample = sample;
        this.match = match;
        this.needsResponse = needsResponse;
    }

    public boolean test(Txn t) {
        return sample.any(t, match);
    }

    boolean needsResponse() {
        return needsResponse;
    }
}

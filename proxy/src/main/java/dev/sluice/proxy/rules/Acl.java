package dev.sluice.proxy.rules;

import java.util.function.Predicate;

/**
 * A compiled ACL: a sample expression and the predicate its patterns form. It matches when some
 * occurrence of the sample satisfies the predicate. Immutable; shared by all streams.
 * <p>
 * An ACL on a fetch whose sample may change with more content ({@code req.len}, {@code req.payload},
 * {@code req.ssl_sni}, {@code wait_end}...) is a content ACL: when it does not match, it misses
 * ({@link Cond#MISS}) if the fetch reported {@link Txn#mayChange()} and the content is not final. Other
 * ACLs never ask the transaction about it.
 */
public final class Acl {
    private static final Predicate<Object> NEVER = v -> false;

    private final Fetch sample;
    private final Predicate<Object> match;
    private final String keyword;
    private final RuleCompiler.Phase needs;
    /** Whether the fetch may report that its sample may change ({@link Txn#mayChange()}). */
    private final boolean content;
    /** Whether the fetch reads layer-6 content (HAProxy's SMP_USE_L6REQ/L6RES). */
    private final boolean l6;

    /**
     * @param keyword the ACL keyword as written ({@code path_beg}), for diagnostics
     * @param needs the phase whose message the sample reads, null when it reads neither
     */
    Acl(Fetch sample, Predicate<Object> match, String keyword, RuleCompiler.Phase needs) {
        this(sample, match, keyword, needs, false, false);
    }

    /**
     * @param content whether the fetch may say its sample may change (the ACL can then miss)
     * @param l6 whether it reads layer-6 content
     */
    Acl(Fetch sample, Predicate<Object> match, String keyword, RuleCompiler.Phase needs, boolean content, boolean l6) {
        this.sample = sample;
        this.match = match;
        this.keyword = keyword;
        this.needs = needs;
        this.content = content;
        this.l6 = l6;
    }

    /** {@link Cond#PASS}, {@link Cond#FAIL}, or {@link Cond#MISS} for a content ACL that cannot decide yet. */
    public int eval(Txn t) {
        if (content) {
            return evalContent(t);
        }
        if (sample.any(t, match)) {
            return Cond.PASS;
        }
        return Cond.FAIL;
    }

    /**
     * The content path, out of line: {@link #eval} stays within the JIT's size for inlining at any call site (34 bytes
     * of bytecode, under HotSpot's MaxInlineSize of 35), as the boolean test it replaced was.
     */
    private int evalContent(Txn t) {
        t.takeMayChange();
        if (sample.any(t, match)) {
            return Cond.PASS;
        }
        return t.takeMayChange() && !t.contentFinal() ? Cond.MISS : Cond.FAIL;
    }

    /** Whether the ACL matches (a miss does not). */
    public boolean test(Txn t) {
        return eval(t) == Cond.PASS;
    }

    /** Whether this ACL can be evaluated in rules of {@code phase}. */
    boolean usableIn(RuleCompiler.Phase phase) {
        return needs == null || needs == phase;
    }

    String keyword() {
        return keyword;
    }

    boolean l6() {
        return l6;
    }

    /** The same ACL, made to never match (an ACL used where its sample cannot exist, as HAProxy does). */
    Acl never() {
        return new Acl(sample, NEVER, keyword, null, false, l6);
    }
}

package dev.sluice.proxy.rules;

import java.util.function.Predicate;

/**
 * A compiled sample fetch. A sample is a {@link CharSequence} (string), {@link Long} (integer),
 * {@link Boolean}, {@link java.net.InetAddress} or {@code byte[]}; null means "no sample" (the fetch
 * does not apply, or the value is absent). Immutable; shared by all streams.
 */
public interface Fetch {
    /** The sample (the last occurrence, for fetches that have several). */
    Object get(Txn t);

    /**
     * Whether some occurrence satisfies {@code p}: ACLs on multi-valued fetches ({@code hdr}) match when
     * any value matches, as in HAProxy.
     */
    default boolean any(Txn t, Predicate<Object> p) {
        Object v = get(t);
        return v != null && p.test(v);
    }
}

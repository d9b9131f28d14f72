package dev.sluice.config.model;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a backend does when a request fails on a server: {@code retries} (how many more attempts, 3 by
 * default), {@code retry-on} (which failures are retried; {@code conn-failure} by default) and
 * {@code option redispatch [<interval>]}: 0 when off, -1 (the default interval) to move to another server
 * on the last retry, {@code n > 0} on every n-th retry, {@code -n} on the n-th retry before the last.
 */
public record Retries(int count, Set<RetryOn> on, Set<Integer> statuses, int redispatch) {

    /** HAProxy's defaults: 3 retries on connection failures, no redispatch. */
    public static final Retries DEFAULT = new Retries(3, EnumSet.of(RetryOn.CONN_FAILURE), Set.of(), 0);

    /** The statuses {@code retry-on} accepts. */
    public static final Set<Integer> RETRYABLE_STATUSES = Set.of(401, 403, 404, 408, 425, 500, 501, 502, 503, 504);

    public Retries {
        on = on.isEmpty() ? EnumSet.noneOf(RetryOn.class) : EnumSet.copyOf(on);
        statuses = Set.copyOf(statuses);
    }

    /** Whether {@code option redispatch} is on. */
    public boolean redispatches() {
        return redispatch != 0;
    }

    /** Whether anything beyond connection failures is retried: the request must then be kept for a replay. */
    public boolean afterSending() {
        return !statuses.isEmpty() || on.stream().anyMatch(e -> e != RetryOn.CONN_FAILURE);
    }

    public Retries withCount(int n) {
        return new Retries(n, on, statuses, redispatch);
    }

    public Retries withOn(Set<RetryOn> events, Set<Integer> codes) {
        return new Retries(count, events, codes, redispatch);
    }

    public Retries withRedispatch(int interval) {
        return new Retries(count, on, statuses, interval);
    }

    /** The failure events of {@code retry-on} (statuses are kept apart). */
    public enum RetryOn {
        CONN_FAILURE("conn-failure"),
        EMPTY_RESPONSE("empty-response"),
        JUNK_RESPONSE("junk-response"),
        RESPONSE_TIMEOUT("response-timeout"),
        ZERO_RTT_REJECTED("0rtt-rejected");

        private final String keyword;

        RetryOn(String keyword) {
            this.keyword = keyword;
        }

        public String keyword() {
            return keyword;
        }
    }
}

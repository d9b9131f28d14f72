package dev.sluice.config;

import static dev.sluice.config.Section.BACKEND_SIDE;

import dev.sluice.config.model.Retries;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** What a backend does with failed requests: {@code retries}, {@code retry-on}, {@code option redispatch}. */
final class RetryKeywords {
    private RetryKeywords() {
    }

    static final String RETRY_ON_SYNTAX = "retry-on none | [conn-failure] [empty-response] [junk-response] [response-timeout]"
            + " [0rtt-rejected] [<status>...] | all-retryable-errors";

    static void register(KeywordRegistry r) {
        r.register(new Keyword("retries", BACKEND_SIDE, "retries <number>",
                "How many more times a request is tried after a failure that retry-on covers (default 3); a refused connection is"
                        + " retried on the same server after MIN(1s, timeout connect).",
                c -> {
                    if (c.expectArgs(1, 1, "retries <number>")) {
                        int n = c.intArg(c.args().get(0), "retries", 0, 1_000_000, -1);
                        if (n >= 0) {
                            c.proxy().retries = c.proxy().retries.withCount(n);
                        }
                    }
                }));
        r.register(new Keyword("retry-on", BACKEND_SIDE, RETRY_ON_SYNTAX,
                "Which failures are retried (replaces the previous list; default conn-failure: a refused or timed-out connection)."
                        + " After the request was sent (empty-response, junk-response, response-timeout, a status among 401 403 404"
                        + " 408 425 500 501 502 503 504) Sluice only retries idempotent methods (GET HEAD OPTIONS TRACE PUT DELETE)"
                        + " whose body is complete and fits in tune.bufsize less tune.maxrewrite, kept for the replay (HAProxy retries"
                        + " any method). 0rtt-rejected is accepted and never happens (no early data towards servers)."
                        + " all-retryable-errors = conn-failure empty-response junk-response response-timeout 0rtt-rejected 500 502"
                        + " 503 504.",
                RetryKeywords::retryOn));
        r.register(new Keyword("option redispatch", BACKEND_SIDE, "[no] option redispatch [<interval>]",
                "Let a retry go to another server than the first choice (even one given by stickiness): by default on the last"
                        + " retry, on every <interval>-th retry when positive, on the <interval>-th before the last when negative,"
                        + " never with 0. With roundrobin, static-rr or first and several servers, every retry moves at once. A"
                        + " server going down also sends the requests queued for it to the others.",
                c -> {
                    if (c.negated()) {
                        if (c.expectArgs(0, 0, "no option redispatch")) {
                            c.proxy().retries = c.proxy().retries.withRedispatch(0);
                        }
                        return;
                    }
                    if (!c.expectArgs(0, 1, "option redispatch [<interval>]")) {
                        return;
                    }
                    int interval = -1;
                    if (c.args().size() == 1) {
                        try {
                            interval = Integer.parseInt(c.args().get(0));
                        } catch (NumberFormatException e) {
                            c.error("expects an integer interval, not '" + c.args().get(0) + "'.");
                            return;
                        }
                    }
                    c.proxy().retries = c.proxy().retries.withRedispatch(interval);
                }));
    }

    private static void retryOn(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("missing argument; expected: " + RETRY_ON_SYNTAX);
            return;
        }
        Set<Retries.RetryOn> on = EnumSet.noneOf(Retries.RetryOn.class);
        Set<Integer> statuses = new HashSet<>();
        for (String w : a) {
            switch (w) {
                case "none" -> {
                    if (a.size() > 1) {
                        c.error("'none' keyword only usable alone");
                        return;
                    }
                }
                case "all-retryable-errors" -> {
                    on.addAll(EnumSet.allOf(Retries.RetryOn.class));
                    statuses.addAll(List.of(500, 502, 503, 504));
                }
                default -> {
                    Retries.RetryOn e = event(w);
                    if (e != null) {
                        on.add(e);
                    } else if (w.length() == 3 && w.chars().allMatch(Character::isDigit) && Retries.RETRYABLE_STATUSES.contains(Integer.parseInt(w))) {
                        statuses.add(Integer.parseInt(w));
                    } else {
                        c.error("unknown keyword '" + w + "'; expected: " + RETRY_ON_SYNTAX);
                        return;
                    }
                }
            }
        }
        c.proxy().retries = c.proxy().retries.withOn(on, statuses);
    }

    private static Retries.RetryOn event(String w) {
        for (Retries.RetryOn e : Retries.RetryOn.values()) {
            if (e.keyword().equals(w)) {
                return e;
            }
        }
        return null;
    }
}

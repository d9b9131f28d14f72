package dev.sluice.proxy.stream;

import dev.sluice.proxy.rules.Rule;
import io.netty.channel.EventLoop;
import java.util.List;

/**
 * Content inspection by one rule set of a layer-4 stream (a frontend's or a backend's {@code tcp-request content} rules,
 * a backend's {@code tcp-response content} rules), as HAProxy 2.6's tcp_inspect_request and tcp_inspect_response: the
 * rules run from the first each time content arrives; a condition that cannot be decided yet makes them wait for more
 * ({@link Rule#MISSING}); the evaluation is final, and an undecided condition false, when the side closed, its buffer is
 * full, the set has no {@code inspect-delay}, or the delay, counted from the first wait, ran out. No rule matching, or
 * {@code accept}, lets the stream go on. One per rule set and stream, on the stream's event loop.
 */
final class Inspection {
    /** {@link #run}: the rules wait for more content. */
    static final int WAIT = 0;
    /** {@link #run}: the rules let the stream go on. */
    static final int ACCEPTED = 1;
    /** {@link #run}: a rule ended the stream (what it decided is on the target). */
    static final int ENDED = 2;

    private final List<Rule> rules;
    private final boolean response;
    private final long delay;
    private final Deadline timer;
    private boolean waiting;
    private boolean expired;

    /**
     * Inspection by {@code rules} of the request ({@code response} false) or the response, waiting at most {@code delay}
     * milliseconds (0: not at all); {@code onExpiry} runs when the delay is over while the rules wait.
     */
    Inspection(List<Rule> rules, boolean response, long delay, EventLoop loop, Runnable onExpiry) {
        this.rules = rules;
        this.response = response;
        this.delay = delay;
        this.timer = delay > 0 ? new Deadline(loop, () -> {
            expired = true;
            onExpiry.run();
        }) : null;
    }

    /**
     * Evaluates the rules on what {@code t} holds; {@code end} when nothing more can come (the side closed, or its
     * buffer is full). Returns {@link #WAIT}, {@link #ACCEPTED} or {@link #ENDED}.
     */
    int run(TcpTarget t, boolean end) {
        t.inspecting(response, end || timer == null || expired);
        int r = Rule.inspect(rules, t);
        if (r == Rule.MISSING) {
            if (!waiting) {
                // the delay counts from the first wait, as HAProxy's rules_exp
                waiting = true;
                timer.arm(delay);
            }
            return WAIT;
        }
        cancel();
        t.inspected();
        return r == Rule.ENDED ? ENDED : ACCEPTED;
    }

    /** The stream is over or the rules are done: the delay's timer goes. */
    void cancel() {
        if (timer != null) {
            timer.cancel();
        }
    }
}

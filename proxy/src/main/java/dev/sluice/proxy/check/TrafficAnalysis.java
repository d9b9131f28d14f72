package dev.sluice.proxy.check;

import dev.sluice.config.model.ServerObserve;
import dev.sluice.proxy.backend.TrafficEvent;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The analysis of a server's live traffic ({@code observe}), as HAProxy 2.6's health_adjust: the streams report what
 * they saw; an error at the observed layer adds to the consecutive errors, a success clears them; {@code error-limit}
 * of them in a row hand {@code on-error} to the server's health check ({@link HealthCheck#analysisFailed}), on its loop,
 * and start the count again. A passed check clears the count too. Owned by the server's {@link HealthCheck}. The count
 * is one atomic, touched from every loop that carries the server's streams; a success that finds it at 0 does not write.
 */
final class TrafficAnalysis {
    private final HealthCheck check;
    private final ServerObserve config;
    private final AtomicInteger errors = new AtomicInteger();

    TrafficAnalysis(HealthCheck check, ServerObserve config) {
        this.check = check;
        this.config = config;
    }

    ServerObserve config() {
        return config;
    }

    /** What a stream saw; on the stream's loop. */
    void observed(TrafficEvent event) {
        switch (event.at(config.layer())) {
            case OK -> {
                if (errors.get() != 0) {
                    errors.set(0);
                }
            }
            case ERROR -> {
                int n = errors.incrementAndGet();
                if (n >= config.errorLimit() && errors.compareAndSet(n, 0)) {
                    check.loop().execute(() -> check.analysisFailed(n, event));
                }
            }
            case IGNORE -> {
            }
        }
    }

    /** A check passed: the errors start again from 0 (HAProxy clears them whenever an on-error mode is set). */
    void reset() {
        if (errors.get() != 0) {
            errors.set(0);
        }
    }

    /** The consecutive errors counted now (tests). */
    int errors() {
        return errors.get();
    }
}

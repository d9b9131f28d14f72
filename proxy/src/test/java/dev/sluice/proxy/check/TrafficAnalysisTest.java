package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Backends;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.TrafficEvent;
import io.netty.channel.DefaultEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The analysis of live traffic ({@code observe}) as HAProxy 2.6's health_adjust: which events are errors at each layer,
 * the consecutive count and its resets, each {@code on-error} mode's effect on the health counter, the HANA status and
 * its log lines, {@code hanafail}.
 */
class TrafficAnalysisTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final List<String> log = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    private HealthCheck check(String lines) {
        Backend be = Backends.of(lines);
        be.events((level, message, console) -> log.add(level + " " + message));
        Server s = Backends.server(be, "s1");
        HealthCheck c = new HealthCheck(s, new CheckPlan(be, "vm", 16384), loop, null, 0);
        s.check(c);
        return c;
    }

    /** Reports the events as a stream would (through the server), then waits for what they handed to the check's loop. */
    private static void observe(HealthCheck c, TrafficEvent... events) throws Exception {
        for (TrafficEvent e : events) {
            c.server().observed(e);
        }
        c.loop().submit(() -> {
        }).get(5, TimeUnit.SECONDS);
    }

    private static final Expectations.Outcome OK = new Expectations.Outcome(CheckStatus.L4OK, 0, "");

    @Test
    void statusesAreErrorsAsHaproxySays() {
        for (int s : new int[] {100, 200, 302, 404, 499, 501, 505}) {
            assertThat(TrafficEvent.ofStatus(s)).as("%d", s).isEqualTo(TrafficEvent.HTTP_OK);
        }
        for (int s : new int[] {500, 502, 503, 504, 599, 600, 99}) {
            assertThat(TrafficEvent.ofStatus(s)).as("%d", s).isEqualTo(TrafficEvent.HTTP_STS);
        }
    }

    @Test
    void layer4FailCheckCountsConsecutiveConnectErrors() throws Exception {
        HealthCheck c = check("option log-health-checks\nserver s1 check observe layer4 error-limit 3\nserver s2 check");
        c.record(OK, 1);
        log.clear();
        // a success in between starts the count again; HTTP statuses are not looked at on layer 4
        observe(c, TrafficEvent.L4_ERR, TrafficEvent.L4_ERR, TrafficEvent.L4_OK, TrafficEvent.L4_ERR, TrafficEvent.HTTP_STS,
                TrafficEvent.HTTP_READ_TIMEOUT, TrafficEvent.L4_ERR);
        assertThat(log).isEmpty();
        observe(c, TrafficEvent.L4_ERR);
        assertThat(c.status()).isEqualTo(CheckStatus.HANA);
        assertThat(c.health()).isEqualTo(3);
        assertThat(c.failures()).isEqualTo(1);
        assertThat(c.analysisFailures()).isEqualTo(1);
        assertThat(c.duration()).isEqualTo(-1);
        assertThat(c.desc()).isEqualTo("Detected 3 consecutive errors, last one was: L4 unsuccessful connection");
        assertThat(log).containsExactly("5 Health check for server be/s1 failed, reason: Health analyze, info: \"Detected 3 consecutive errors,"
                + " last one was: L4 unsuccessful connection\", status: 2/3 UP.");
        // the count started again
        observe(c, TrafficEvent.L4_ERR, TrafficEvent.L4_ERR);
        assertThat(c.analysisFailures()).isEqualTo(1);
        // a passed check clears it too
        c.record(OK, 1);
        observe(c, TrafficEvent.L4_ERR, TrafficEvent.L4_ERR);
        assertThat(c.analysisFailures()).isEqualTo(1);
        observe(c, TrafficEvent.L4_ERR);
        assertThat(c.analysisFailures()).isEqualTo(2);
    }

    @Test
    void layer7CountsResponsesAndIgnoresConnections() throws Exception {
        HealthCheck c = check("server s1 check observe layer7 error-limit 2 on-error mark-down\nserver s2 check");
        // an established connection is nothing on layer 7: it does not clear the count
        observe(c, TrafficEvent.HTTP_STS, TrafficEvent.L4_OK, TrafficEvent.HTTP_OK, TrafficEvent.HTTP_BROKEN_PIPE, TrafficEvent.L4_OK);
        assertThat(c.server().up()).isTrue();
        observe(c, TrafficEvent.HTTP_STS);
        assertThat(c.server().up()).isFalse();
        assertThat(c.health()).isZero();
        assertThat(log).containsExactly("1 Server be/s1 is DOWN, reason: Health analyze, info: \"Detected 2 consecutive errors, last one was:"
                + " Wrong http response\". 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.");
    }

    @Test
    void suddenDeathLeavesASingleFailureBeforeDown() throws Exception {
        HealthCheck c = check("option log-health-checks\nserver s1 check observe layer4 error-limit 1 on-error sudden-death\nserver s2 check");
        c.record(OK, 1);
        assertThat(c.health()).isEqualTo(4);
        log.clear();
        observe(c, TrafficEvent.L4_ERR);
        assertThat(c.health()).isEqualTo(2);
        assertThat(c.server().up()).isTrue();
        assertThat(log).containsExactly("5 Health check for server be/s1 failed, reason: Health analyze, info: \"Detected 1 consecutive errors,"
                + " last one was: L4 unsuccessful connection\", status: 1/3 UP.");
        c.record(new Expectations.Outcome(CheckStatus.L4CON, 0, "Connection refused"), 0);
        assertThat(c.server().up()).isFalse();
    }

    @Test
    void fastinterChangesNothingButCounts() throws Exception {
        HealthCheck c = check("server s1 check observe layer4 error-limit 2 on-error fastinter fastinter 100 inter 1h\nserver s2 check");
        c.record(OK, 1);
        observe(c, TrafficEvent.L4_ERR, TrafficEvent.L4_ERR);
        assertThat(c.status()).isEqualTo(CheckStatus.L4OK);
        assertThat(c.health()).isEqualTo(4);
        assertThat(c.failures()).isZero();
        assertThat(c.analysisFailures()).isEqualTo(1);
        assertThat(log).isEmpty();
    }

    /** Every mode brings the next check within fastinter (HAProxy requeues the check task), never later than planned. */
    @Test
    void theNextCheckComesWithinFastinter() throws Exception {
        java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
        long[] at = new long[1];
        CheckTimer t = new CheckTimer(loop, 0, () -> {
            at[0] = System.nanoTime();
            ran.countDown();
        }, () -> {
        });
        long start = System.nanoTime();
        loop.submit(() -> t.after(3_600_000)).get(5, TimeUnit.SECONDS);
        loop.submit(() -> t.sooner(7_200_000)).get(5, TimeUnit.SECONDS);
        assertThat(ran.await(300, TimeUnit.MILLISECONDS)).isFalse();
        loop.submit(() -> t.sooner(50)).get(5, TimeUnit.SECONDS);
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(at[0] - start)).isGreaterThanOrEqualTo(300);
    }

    @Test
    void withoutObserveNothingIsCounted() throws Exception {
        HealthCheck c = check("server s1 check error-limit 1 on-error mark-down\nserver s2 check");
        observe(c, TrafficEvent.L4_ERR, TrafficEvent.HTTP_STS);
        assertThat(c.server().up()).isTrue();
        assertThat(c.observing()).isFalse();
        assertThat(c.analysisFailures()).isZero();
        assertThat(new ArrayList<>(log)).isEmpty();
    }
}

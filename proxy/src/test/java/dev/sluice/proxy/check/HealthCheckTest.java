package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Backends;
import dev.sluice.proxy.backend.Server;
import io.netty.channel.DefaultEventLoop;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * HAProxy's health counter and the lines it logs, driven result by result: {@code fall} failures take a healthy server
 * down, {@code rise} successes bring it up, at start the first failure does (the counter starts at rise), and the
 * log lines carry HAProxy's words and counts.
 */
class HealthCheckTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final List<String> log = new ArrayList<>();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
    }

    private Backend backend(String lines) {
        Backend be = Backends.of(lines);
        be.events((level, message, console) -> log.add(level + " " + message));
        return be;
    }

    private HealthCheck check(Backend be, String server) {
        Server s = Backends.server(be, server);
        HealthCheck c = new HealthCheck(s, new CheckPlan(be, "vm", 16384), loop, null, 0);
        s.check(c);
        return c;
    }

    private static final Expectations.Outcome OK = new Expectations.Outcome(CheckStatus.L7OK, 200, "");
    private static final Expectations.Outcome E500 = new Expectations.Outcome(CheckStatus.L7STS, 500, "Internal Error");
    private static final Expectations.Outcome REFUSED = new Expectations.Outcome(CheckStatus.L4CON, 0, "Connection refused");

    @Test
    void fallFailuresTakeItDownAndRiseSuccessesBringItUp() {
        Backend be = backend("option httpchk\noption log-health-checks\nserver s1 check rise 2 fall 3\nserver s2 check");
        HealthCheck c = check(be, "s1");
        Server s1 = c.server();
        assertThat(c.health()).isEqualTo(2);
        assertThat(c.stateText()).isEqualTo("UP 1/3");
        c.record(OK, 3);
        assertThat(c.health()).isEqualTo(4);
        assertThat(c.stateText()).isEqualTo("UP");
        c.record(E500, 1);
        c.record(E500, 1);
        assertThat(s1.up()).isTrue();
        assertThat(c.stateText()).isEqualTo("UP 1/3");
        c.record(E500, 2);
        assertThat(s1.up()).isFalse();
        assertThat(c.health()).isZero();
        assertThat(c.failures()).isEqualTo(3);
        assertThat(s1.downTransitions()).isEqualTo(1);
        // a failure at 0 changes nothing and is not logged again
        c.record(E500, 2);
        assertThat(c.failures()).isEqualTo(3);
        c.record(OK, 1);
        assertThat(c.stateText()).isEqualTo("DOWN 1/2");
        assertThat(s1.up()).isFalse();
        c.record(OK, 1);
        assertThat(s1.up()).isTrue();
        assertThat(c.health()).isEqualTo(4);
        assertThat(log).containsExactly(
                "5 Health check for server be/s1 succeeded, reason: Layer7 check passed, code: 200, check duration: 3ms, status: 3/3 UP.",
                "5 Health check for server be/s1 failed, reason: Layer7 wrong status, code: 500, info: \"Internal Error\", check duration: 1ms,"
                        + " status: 2/3 UP.",
                "5 Health check for server be/s1 failed, reason: Layer7 wrong status, code: 500, info: \"Internal Error\", check duration: 1ms,"
                        + " status: 1/3 UP.",
                "5 Health check for server be/s1 failed, reason: Layer7 wrong status, code: 500, info: \"Internal Error\", check duration: 2ms,"
                        + " status: 0/2 DOWN.",
                "1 Server be/s1 is DOWN. 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.",
                "5 Health check for server be/s1 succeeded, reason: Layer7 check passed, code: 200, check duration: 1ms, status: 1/2 DOWN.",
                "5 Health check for server be/s1 succeeded, reason: Layer7 check passed, code: 200, check duration: 1ms, status: 3/3 UP.",
                "5 Server be/s1 is UP. 2 active and 0 backup servers online. 0 sessions requeued, 0 total in queue.");
    }

    @Test
    void theLinesHaproxyMailsCarryTheirMailLevel() {
        Backend be = Backends.of("option log-health-checks\nserver s1 check rise 1 fall 1");
        List<String> mailed = new ArrayList<>();
        be.events(new dev.sluice.proxy.backend.ServerEvents() {
            @Override
            public void report(int level, String message, String console) {
            }

            @Override
            public void report(int level, String message, String console, int mailLevel) {
                mailed.add(mailLevel + " " + message.split("[,.]")[0]);
            }
        });
        HealthCheck c = check(be, "s1");
        c.record(REFUSED, 0);
        c.record(OK, 0);
        // as HAProxy's send_email_alert calls: the check's line at info, DOWN at alert, UP at notice
        assertThat(mailed).containsExactly("6 Health check for server be/s1 failed", "1 Server be/s1 is DOWN", "6 Health check for server be/s1 succeeded",
                "5 Server be/s1 is UP");
    }

    @Test
    void atStartTheFirstFailureTakesItDown() {
        Backend be = backend("server s1 check");
        HealthCheck c = check(be, "s1");
        c.record(REFUSED, 0);
        assertThat(c.server().up()).isFalse();
        assertThat(c.failures()).isEqualTo(1);
        // without log-health-checks only the transition is logged, with the reason; the backend's loss comes after it
        assertThat(log).containsExactly(
                "1 Server be/s1 is DOWN, reason: Layer4 connection problem, info: \"Connection refused\", check duration: 0ms. 0 active and 0"
                        + " backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.",
                "0 backend be has no server available!");
        log.clear();
        c.record(new Expectations.Outcome(CheckStatus.L4OK, 0, ""), 1);
        c.record(new Expectations.Outcome(CheckStatus.L4OK, 0, ""), 1);
        assertThat(log).containsExactly(
                "5 Server be/s1 is UP, reason: Layer4 check passed, check duration: 1ms. 1 active and 0 backup servers online. 0 sessions"
                        + " requeued, 0 total in queue.");
    }

    @Test
    void backupServersAndRunningOnBackup() {
        Backend be = backend("option log-health-checks\nserver s1 check rise 1 fall 1\nserver b1 check backup");
        HealthCheck c = check(be, "s1");
        HealthCheck b = check(be, "b1");
        b.record(new Expectations.Outcome(CheckStatus.L4OK, 0, ""), 0);
        c.record(new Expectations.Outcome(CheckStatus.L4TOUT, 0, ""), 1000);
        assertThat(log).containsExactly(
                "5 Health check for backup server be/b1 succeeded, reason: Layer4 check passed, check duration: 0ms, status: 3/3 UP.",
                "5 Health check for server be/s1 failed, reason: Layer4 timeout, check duration: 1000ms, status: 0/1 DOWN.",
                "1 Server be/s1 is DOWN. 0 active and 1 backup servers left. Running on backup. 0 sessions active, 0 requeued, 0 remaining in"
                        + " queue.");
    }

    @Test
    void aConditionalPassPutsItInNolbAndAPassTakesItBack() {
        Backend be = backend("option httpchk\nhttp-check disable-on-404\nserver s1 check\nserver s2 check");
        HealthCheck c = check(be, "s1");
        c.record(new Expectations.Outcome(CheckStatus.L7OKC, 404, ""), 1);
        assertThat(c.server().stopping()).isTrue();
        assertThat(c.server().usable()).isFalse();
        assertThat(c.stateText()).isEqualTo("NOLB");
        c.record(OK, 1);
        assertThat(c.server().stopping()).isFalse();
        assertThat(log).containsExactly(
                "5 Server be/s1 is stopping, reason: Layer7 check conditionally passed, code: 404, check duration: 1ms. 1 active and 0 backup"
                        + " servers online. 0 sessions requeued, 0 total in queue.",
                "5 Server be/s1 is UP, reason: Layer7 check passed, code: 200, check duration: 1ms. 2 active and 0 backup servers online. 0"
                        + " sessions requeued, 0 total in queue.");
    }

    @Test
    void initStateSetsTheStartingHealth() {
        assertThat(check(backend("server s1 check init-state fully-up"), "s1").health()).isEqualTo(4);
        assertThat(check(backend("server s1 check init-state up"), "s1").health()).isEqualTo(2);
        HealthCheck down = check(backend("server s1 check init-state down"), "s1");
        assertThat(down.health()).isEqualTo(1);
        assertThat(down.stateText()).isEqualTo("DOWN 1/2");
        down.record(OK, 1);
        assertThat(down.server().up()).isTrue();
        assertThat(check(backend("server s1 check init-state fully-down"), "s1").health()).isZero();
        HealthCheck disabled = check(backend("server s1 check disabled"), "s1");
        assertThat(disabled.paused()).isTrue();
        assertThat(disabled.stateBits()).isEqualTo(14);
    }

    @Test
    void descriptionsAreAsciiEncoded() {
        StringBuilder b = new StringBuilder();
        HealthCheck.asciiEncode(b, "a\"b\\c\r\u00e9");
        assertThat(b).hasToString("a\\\"b\\\\c\\x0d\\xe9");
    }

    /**
     * Maintenance shows in the check's state as soon as the call returns, before the loop has run (the admin command's
     * answer comes first, and {@code show servers state} right after it must see bit 8 and a counter at 0).
     */
    @Test
    void maintenanceShowsBeforeTheLoopRuns() throws Exception {
        HealthCheck c = check(backend("option httpchk\nserver s1 check rise 2 fall 3"), "s1");
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        loop.execute(() -> {
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        c.maintenance(true);
        assertThat(c.stateBits()).isEqualTo(2 | 4 | 8);
        assertThat(c.health()).isZero();
        hold.countDown();
        loop.submit(() -> { }).get();
        assertThat(c.stateBits()).isEqualTo(2 | 4 | 8);
        c.maintenance(false);
        assertThat(c.stateBits()).isEqualTo(2 | 4);
        assertThat(c.health()).isEqualTo(2);
    }
}

package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.HealthChecks.ExternalCheck;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Backends;
import dev.sluice.proxy.backend.Server;
import io.netty.channel.DefaultEventLoop;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * External checks: HAProxy's arguments and environment, and a real program's exit status, a program that runs too long and
 * a process that may not start programs, each turned into HAProxy's status, on the check's loop.
 */
class ExternalCheckRunTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final List<String> log = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    @Test
    void argumentsAndEnvironmentAreHaproxys() {
        Backend be = Backends.of("server s1 maxconn 7\nserver s2");
        Server s = Backends.server(be, "s1");
        ExternalCheck x = new ExternalCheck("/x/check.sh", "/usr/bin", true);
        List<String> argv = ExternalCheckRun.arguments(s, x);
        assertThat(argv).containsExactly("/x/check.sh", "NOT_USED", "NOT_USED", "127.0.0.1", "8001");
        Map<String, String> env = ExternalCheckRun.environment(s, x, argv);
        assertThat(env).containsOnlyKeys("PATH", "HAPROXY_PROXY_NAME", "HAPROXY_PROXY_ID", "HAPROXY_PROXY_ADDR", "HAPROXY_PROXY_PORT",
                "HAPROXY_SERVER_NAME", "HAPROXY_SERVER_ID", "HAPROXY_SERVER_ADDR", "HAPROXY_SERVER_PORT", "HAPROXY_SERVER_MAXCONN",
                "HAPROXY_SERVER_CURCONN", "HAPROXY_SERVER_SSL", "HAPROXY_SERVER_PROTO");
        assertThat(env).containsEntry("PATH", "/usr/bin").containsEntry("HAPROXY_PROXY_NAME", "be").containsEntry("HAPROXY_SERVER_NAME", "s1")
                .containsEntry("HAPROXY_SERVER_ID", "1").containsEntry("HAPROXY_SERVER_MAXCONN", "7").containsEntry("HAPROXY_SERVER_CURCONN", "0")
                .containsEntry("HAPROXY_SERVER_SSL", "0").containsEntry("HAPROXY_PROXY_ADDR", "NOT_USED").containsEntry("HAPROXY_SERVER_PORT", "8001");
    }

    @Test
    void aNameWithoutSlashIsLookedForInThePath() throws IOException {
        Path p = script("ok.sh", "exit 0");
        assertThat(ExternalCheckRun.executable("ok.sh", "/nonexistent:" + dir)).isEqualTo(p.toString());
        assertThat(ExternalCheckRun.executable("/bin/true", "")).isEqualTo("/bin/true");
        assertThat(ExternalCheckRun.executable("missing.sh", dir.toString())).isEqualTo("missing.sh");
    }

    private Path script(String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    /** Runs one check of {@code command} to its end and returns the check. */
    private HealthCheck runOnce(String lines, String command, boolean forkAllowed) throws Exception {
        Backend be = Backends.of(lines);
        be.events((level, message, console) -> {
            synchronized (log) {
                log.add(message);
            }
        });
        Server s = Backends.server(be, "s1");
        HealthCheck c = new HealthCheck(s, new CheckPlan(be, "vm", 16384), loop, null, 0);
        s.check(c);
        ExternalCheckRun run = new ExternalCheckRun(c, new ExternalCheck(command, "", forkAllowed));
        loop.submit(() -> c.begin(run)).get();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.running() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(c.running()).isFalse();
        // no further check
        c.stop();
        return c;
    }

    @Test
    void exitStatusZeroPassesAndAnotherFailsWithItAsTheCode() throws Exception {
        HealthCheck ok = runOnce("option log-health-checks\nserver s1 check", script("ok.sh", "exit 0").toString(), true);
        assertThat(ok.status()).isEqualTo(CheckStatus.PROCOK);
        assertThat(ok.code()).isZero();
        HealthCheck ko = runOnce("option log-health-checks\nserver s1 check", script("ko.sh", "exit 3").toString(), true);
        assertThat(ko.status()).isEqualTo(CheckStatus.PROCERR);
        assertThat(ko.code()).isEqualTo(3);
        // the counter starts at rise: the first failure takes the server down (PATH is empty, as HAProxy's default)
        assertThat(ko.health()).isZero();
        synchronized (log) {
            assertThat(log).anyMatch(l -> l.matches("Health check for server be/s1 failed, reason: External check error, code: 3, check duration:"
                    + " \\d+ms, status: 0/2 DOWN\\."));
        }
    }

    @Test
    void aProgramStillRunningAfterInterIsStopped() throws Exception {
        Path marker = dir.resolve("done");
        HealthCheck c = runOnce("server s1 check inter 300ms", script("slow.sh", "/bin/sleep 5\n/usr/bin/touch " + marker).toString(), true);
        assertThat(c.status()).isEqualTo(CheckStatus.PROCTOUT);
        assertThat(c.duration()).isBetween(250L, 3000L);
        Thread.sleep(200);
        assertThat(marker).doesNotExist();
    }

    @Test
    void withoutInsecureForkWantedNothingStarts() throws Exception {
        Path marker = dir.resolve("ran");
        HealthCheck c = runOnce("server s1 check", script("ok.sh", "/usr/bin/touch " + marker).toString(), false);
        assertThat(c.status()).isEqualTo(CheckStatus.SOCKERR);
        assertThat(c.desc()).isEqualTo("Resource temporarily unavailable");
        assertThat(marker).doesNotExist();
    }
}

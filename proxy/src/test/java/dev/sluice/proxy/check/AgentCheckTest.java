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
 * An agent's answers applied to its server as HAProxy 2.6 applies them: weight, administrative state, maxconn, the
 * health (and with a health check, both must agree for the server to come up), the statuses and the lines.
 */
class AgentCheckTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final List<String> log = new ArrayList<>();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
    }

    private Backend backend(String lines) {
        Backend be = Backends.of(lines);
        be.events((level, message, console) -> log.add(message));
        return be;
    }

    private AgentCheck agent(Backend be, String server) {
        Server s = Backends.server(be, server);
        AgentCheck a = new AgentCheck(s, new CheckPlan(be, "vm", 16384), loop, null);
        s.agent(a);
        return a;
    }

    @Test
    void weightAdminStateAndMaxconn() {
        Backend be = backend("server s1 weight 10 agent-check agent-port 9\nserver s2");
        AgentCheck a = agent(be, "s1");
        Server s = a.server();
        assertThat(a.statusInfo()).isEqualTo("INI");
        a.applyReply(AgentReply.parse("50%"), 1);
        assertThat(s.weight()).isEqualTo(5);
        assertThat(a.statusInfo()).isEqualTo("CHECKED");
        assertThat(a.statusDescription()).isEqualTo("No status change");
        assertThat(a.code()).isNull();
        a.applyReply(AgentReply.parse("drain maxconn:30"), 1);
        assertThat(s.adminState() & Server.FORCED_DRAIN).isNotZero();
        assertThat(s.maxconn()).isEqualTo(30);
        a.applyReply(AgentReply.parse("maint"), 1);
        assertThat(s.adminState() & Server.FORCED_MAINT).isNotZero();
        assertThat(s.running()).isFalse();
        a.applyReply(AgentReply.parse("ready 100%"), 1);
        assertThat(s.adminState()).isZero();
        assertThat(s.weight()).isEqualTo(10);
        assertThat(s.running()).isTrue();
        a.applyReply(AgentReply.parse("maxconn:1x"), 1);
        assertThat(a.desc()).isEqualTo("agent warns : Trailing garbage in maxconn string");
        assertThat(s.maxconn()).isEqualTo(30);
        assertThat(a.stateBits()).isEqualTo(0x16);
    }

    @Test
    void downAndUpMoveTheServerWithHaproxysLines() {
        Backend be = backend("server s1 agent-check agent-port 9\nserver s2");
        AgentCheck a = agent(be, "s1");
        Server s = a.server();
        a.applyReply(AgentReply.parse("down # going away"), 3);
        assertThat(s.up()).isFalse();
        assertThat(s.agentDown()).isTrue();
        assertThat(a.health()).isZero();
        assertThat(a.statusInfo()).isEqualTo("L7STS");
        assertThat(a.code()).isZero();
        assertThat(a.desc()).isEqualTo("via agent : down (going away)");
        assertThat(log).containsExactly("Server be/s1 is DOWN, reason: Layer7 wrong status, code: 0, info: \"via agent : down (going away)\","
                + " check duration: 3ms. 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.");
        log.clear();
        a.applyReply(AgentReply.parse("down"), 1);
        assertThat(log).isEmpty();
        a.applyReply(AgentReply.parse("up"), 2);
        assertThat(s.up()).isTrue();
        assertThat(log).containsExactly("Server be/s1 is UP, reason: Layer7 check passed, code: 0, info: \"via agent : up\","
                + " check duration: 2ms. 2 active and 0 backup servers online. 0 sessions requeued, 0 total in queue.");
    }

    @Test
    void theHealthCheckAndTheAgentMustBothAgree() {
        Backend be = backend("server s1 check rise 1 fall 1 agent-check agent-port 9\nserver s2");
        AgentCheck a = agent(be, "s1");
        Server s = a.server();
        HealthCheck c = new HealthCheck(s, new CheckPlan(be, "vm", 16384), loop, null, 0);
        s.check(c);
        c.record(new Expectations.Outcome(CheckStatus.L4CON, 0, "Connection refused"), 1);
        assertThat(s.up()).isFalse();
        // the agent says up: the health check still holds the server down
        a.applyReply(AgentReply.parse("up"), 1);
        assertThat(s.up()).isFalse();
        a.applyReply(AgentReply.parse("down"), 1);
        // the health check passes: the agent holds it down
        c.record(new Expectations.Outcome(CheckStatus.L4OK, 0, ""), 1);
        assertThat(s.up()).isFalse();
        a.applyReply(AgentReply.parse("up"), 1);
        assertThat(s.up()).isTrue();
    }

    @Test
    void leavingMaintenanceFollowsTheAgent() {
        Backend be = backend("server s1 agent-check agent-port 9\nserver s2");
        AgentCheck a = agent(be, "s1");
        Server s = a.server();
        a.applyReply(AgentReply.parse("down"), 1);
        log.clear();
        a.applyReply(AgentReply.parse("maint"), 1);
        assertThat(log).containsExactly("Server be/s1 was DOWN and now enters maintenance.");
        log.clear();
        // the new health is read before the state changes, as HAProxy commits the admin change after the line
        a.applyReply(AgentReply.parse("up ready"), 1);
        assertThat(s.running()).isTrue();
        assertThat(log).containsExactly("Server be/s1 is UP/READY (leaving forced maintenance).");
    }
}

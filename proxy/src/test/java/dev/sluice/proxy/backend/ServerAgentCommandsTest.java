package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.check.AgentCheck;
import dev.sluice.proxy.check.CheckPlan;
import io.netty.channel.DefaultEventLoop;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code set server ... agent|agent-send|agent-addr|agent-port} with HAProxy 2.6's answers. */
class ServerAgentCommandsTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final List<String> log = new ArrayList<>();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void withoutAnAgentHaproxysMessages() {
        Server s = Backends.server(Backends.of("server s1\nserver s2"), "s1");
        assertThat(ServerAgentCommands.set(s, "agent", "up", "", "")).isEqualTo("agent checks are not enabled on this server.\n");
        assertThat(ServerAgentCommands.set(s, "agent-send", "x", "", "")).isEqualTo("agent checks are not enabled on this server.\n");
        assertThat(ServerAgentCommands.set(s, "agent-addr", "", "", "")).isEqualTo(
                "set server <b>/<s> agent-addr requires an address and optionally a port.\n");
        assertThat(ServerAgentCommands.set(s, "agent-addr", "10.0.0.1", "", "")).isEqualTo("agent checks are not enabled on this server");
        assertThat(ServerAgentCommands.set(s, "agent-port", "", "", "")).isEqualTo("set server <b>/<s> agent-port requires a port.\n");
    }

    @Test
    void withAnAgent() {
        Backend be = Backends.of("server s1 agent-check agent-port 9\nserver s2");
        be.events((level, message, console) -> log.add(message));
        Server s = Backends.server(be, "s1");
        AgentCheck a = new AgentCheck(s, new CheckPlan(be, "vm", 16384), loop, null);
        s.agent(a);
        assertThat(ServerAgentCommands.set(s, "agent", "sideways", "", "")).isEqualTo("'set server <srv> agent' expects 'up' or 'down'.\n");
        assertThat(ServerAgentCommands.set(s, "agent", "down", "", "")).isEmpty();
        assertThat(s.up()).isFalse();
        assertThat(a.health()).isZero();
        assertThat(log).containsExactly("Server be/s1 is DOWN, changed from CLI. 1 active and 0 backup servers left. 0 sessions active,"
                + " 0 requeued, 0 remaining in queue.");
        assertThat(ServerAgentCommands.set(s, "agent", "up", "", "")).isEmpty();
        assertThat(s.up()).isTrue();
        assertThat(ServerAgentCommands.set(s, "agent-addr", "nowhere", "", "")).isEqualTo("invalid addr 'nowhere'");
        assertThat(ServerAgentCommands.set(s, "agent-addr", "10.0.0.7", "port", "x")).isEqualTo("provided port is not an integer");
        assertThat(a.addr()).isNull();
        assertThat(ServerAgentCommands.set(s, "agent-addr", "10.0.0.7", "port", "7777")).isEmpty();
        assertThat(a.addr()).isEqualTo("10.0.0.7");
        assertThat(a.port()).isEqualTo(7777);
        assertThat(ServerAgentCommands.set(s, "agent-port", "70000", "", "")).isEqualTo("provided port is invalid");
        assertThat(ServerAgentCommands.set(s, "agent-port", "8888", "", "")).isEmpty();
        assertThat(a.port()).isEqualTo(8888);
        assertThat(ServerAgentCommands.set(s, "agent-send", "hello\n", "", "")).isEmpty();
        a.enabled(false);
        assertThat(ServerAgentCommands.set(s, "agent", "up", "", "")).isEqualTo("agent checks are not enabled on this server.\n");
        // a disabled agent holds nothing down
        assertThat(s.agentDown()).isFalse();
    }

    @Test
    void aStateFileRestoresTheAgentsAddressPortAndDisabling() {
        Backend be = Backends.of("server s1 agent-check agent-port 9\nserver s2");
        Server s = Backends.server(be, "s1");
        AgentCheck a = new AgentCheck(s, new CheckPlan(be, "vm", 16384), loop, null);
        s.agent(a);
        List<String> warnings = new ArrayList<>();
        // srv_agent_state 18: configured and agent, not enabled (disabled from the CLI); agent address and port set
        s.restore(SavedServerState.of("be", "s1", List.of("127.0.0.1 2 0 1 1 0 1 0 0 0 18 0 0 - 8001 - 0 0 - 10.0.0.5 7000".split(" ")), warnings));
        assertThat(warnings).isEmpty();
        assertThat(a.enabled()).isFalse();
        assertThat(a.addr()).isEqualTo("10.0.0.5");
        assertThat(a.port()).isEqualTo(7000);
        assertThat(ServerCommands.stateLines(be)).contains(" s1 127.0.0.1 ").contains(" 10.0.0.5 7000\n");
    }
}

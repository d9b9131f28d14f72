package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.ServerAgent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The agent check's server options with HAProxy 2.6's defaults, inheritance and messages. */
class AgentKeywordsTest {

    private static ServerAgent agent(String lines, int server) {
        return backendOf(lines).servers().get(server).check().agent();
    }

    @Test
    void optionsSetTheAgent() {
        assertThat(agent("server s1 10.0.0.1:80", 0)).isEqualTo(ServerAgent.NONE);
        assertThat(agent("server s1 10.0.0.1:80 agent-check agent-port 9999 agent-addr 10.0.0.9 agent-inter 3s agent-send \"ping\\n\"", 0))
                .isEqualTo(new ServerAgent(true, 9999, "10.0.0.9", 3000, "ping\n"));
        // the check's port and addr are the agent's when it has none of its own
        assertThat(agent("server s1 10.0.0.1:80 agent-check port 8081 addr 10.0.0.7", 0)).isEqualTo(new ServerAgent(true, 8081, "10.0.0.7", 0, null));
        // the agent options without agent-check do nothing
        assertThat(agent("server s1 10.0.0.1:80 agent-port 9999", 0).enabled()).isFalse();
    }

    @Test
    void defaultServerPassesThemOnAndNoAgentCheckTakesThemBack() {
        String lines = "default-server agent-check agent-port 7000 agent-inter 500ms\nserver s1 10.0.0.1:80\nserver s2 10.0.0.2:80 no-agent-check";
        assertThat(agent(lines, 0)).isEqualTo(new ServerAgent(true, 7000, null, 500, null));
        assertThat(agent(lines, 1).enabled()).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "server s1 10.0.0.1:80 agent-check|server s1 does not have agent port. Agent check has been disabled.",
        "server s1 10.0.0.1:80 agent-check agent-port x|server s1 does not have agent port. Agent check has been disabled.",
        "server s1 10.0.0.1:80 agent-port|'agent-port' expects a port number as argument.",
        "server s1 10.0.0.1:80 agent-addr foo.example|parsing agent-addr failed. Check if 'foo.example' is correct address.",
        "server s1 10.0.0.1:80 agent-addr|'agent-addr' expects an address as argument.",
        "server s1 10.0.0.1:80 agent-inter|'agent-inter' expects a delay as argument.",
        "server s1 10.0.0.1:80 agent-send|'agent-send' expects a string as argument.",
    })
    void errorsSayWhatHaproxySays(String line, String message) {
        assertSingleError(parse(inBackend(line)), BACKEND_LINE, message);
    }
}

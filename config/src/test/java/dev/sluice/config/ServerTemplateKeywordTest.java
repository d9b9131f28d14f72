package dev.sluice.config;

import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code server-template}: the servers it declares and HAProxy 2.6.12's messages (checked with {@code haproxy -c}). */
class ServerTemplateKeywordTest {

    @Test
    void aCountAndARangeDeclareNumberedServers() {
        Proxy be = backendOf("""
                server-template web 2 10.0.0.1:80 weight 5
                server-template api 0-1 api.local:8080 disabled
                server-template x 2x 10.0.0.2
                """);
        assertThat(be.servers()).extracting(Server::name).containsExactly("web1", "web2", "api0", "api1", "x1", "x2");
        assertThat(be.servers()).extracting(Server::id).containsExactly(1, 2, 3, 4, 5, 6);
        assertThat(be.servers().get(1).weight()).isEqualTo(5);
        assertThat(be.servers().get(2).disabled()).isTrue();
        assertThat(be.servers().get(3).host()).isEqualTo("api.local");
    }

    @Test
    void messagesAreHaproxys() {
        List<String> m = parse("""
                defaults
                    mode http
                    timeout client 1s
                    timeout server 1s
                    timeout connect 1s
                backend b
                    server-template
                    server-template web 3
                    server-template web x 127.0.0.1:80
                    server-template web 3-1 127.0.0.1:80
                    server-template web 0 127.0.0.1:80
                """).diagnostics().stream().map(d -> d.line() + " " + d.message()).toList();
        assertThat(m).containsExactly("7 'server-template' expects <prefix> <nb | range> <addr>[:<port>] as arguments.",
                "8 'server-template' expects <prefix> <nb | range> <addr>[:<port>] as arguments.",
                "9 Wrong server-template number or range arg 'x'.", "10 Wrong server-template number or range arg '3-1'.",
                "11 Wrong server-template number or range arg '0'.");
    }
}

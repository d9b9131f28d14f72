package dev.sluice.config;

import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code use-server} with HAProxy 2.6.12's messages (each checked against {@code haproxy -c} on the same lines). */
class UseServerKeywordTest {

    private static final String HEAD = """
            defaults
                mode tcp
                timeout client 1s
                timeout server 1s
                timeout connect 1s
            """;

    private static List<String> messages(String text) {
        return parse(text).diagnostics().stream().map(d -> d.line() + " " + d.severity().name().toLowerCase() + " " + d.message()).toList();
    }

    @Test
    void rulesAreKeptInOrderWithTheirCondition() {
        Proxy be = backendOf("""
                use-server s2 if { src 10.0.0.1 }
                use-server s1 unless TRUE
                use-server %[req.payload(0,2)] if TRUE
                server s1 127.0.0.1:80
                server s2 127.0.0.1:81
                """);
        assertThat(be.useServers()).hasSize(3);
        assertThat(be.useServers().get(0).server()).isEqualTo("s2");
        assertThat(be.useServers().get(1).condition().unless()).isTrue();
        assertThat(be.useServers().get(2).isDynamic()).isTrue();
    }

    @Test
    void argumentErrorsAreHaproxys() {
        String cfg = HEAD + """
                backend b
                    use-server s1
                    use-server
                    use-server s1 if nosuchacl
                    server s1 127.0.0.1:19002
                """;
        assertThat(messages(cfg)).containsExactly(
                "7 error 'use-server' requires either 'if' or 'unless' followed by a condition.",
                "8 error 'use-server' expects a server name.",
                "9 error error detected while parsing switching rule : no such ACL : 'nosuchacl'.");
    }

    @Test
    void unknownServersFrontendsAndDefaults() {
        String cfg = HEAD + """
                frontend f
                    bind 127.0.0.1:19001
                    use-server s1 if TRUE
                    default_backend b
                backend b
                    tcp-request content accept
                    use-server s1 if TRUE
                    use-server s9 if TRUE
                    server s1 127.0.0.1:19002
                listen l
                    bind 127.0.0.1:19003
                    use-server s2 if TRUE
                    tcp-request content accept
                    server s1 127.0.0.1:19002
                """;
        assertThat(messages(cfg)).containsExactlyInAnyOrder(
                "8 warning 'use-server' ignored because frontend 'f' has no backend capability.",
                "18 warning a 'tcp-request' rule placed after a 'use-server' rule will still be processed before.",
                "8 error frontend 'f' : unable to find server 's1' referenced in a 'use-server' rule.",
                "13 error backend 'b' : unable to find server 's9' referenced in a 'use-server' rule.",
                "17 error proxy 'l' : unable to find server 's2' referenced in a 'use-server' rule.");
        assertThat(messages(HEAD + "    use-server s1 if TRUE\n")).contains("6 error 'use-server' not allowed in 'defaults' section.");
    }

    @Test
    void httpRulesAfterUseServerAreWarnedAbout() {
        String cfg = HEAD.replace("mode tcp", "mode http") + """
                backend b
                    use-server s1 if TRUE
                    http-request deny if FALSE
                    redirect location / if FALSE
                    server s1 127.0.0.1:19002
                """;
        assertThat(messages(cfg)).containsExactly(
                "8 warning a 'http-request' rule placed after a 'use-server' rule will still be processed before.",
                "9 warning a 'redirect' rule placed after a 'use-server' rule will still be processed before.");
    }
}

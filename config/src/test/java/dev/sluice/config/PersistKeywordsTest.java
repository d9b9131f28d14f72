package dev.sluice.config;

import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Balance;
import dev.sluice.config.model.Persist;
import dev.sluice.config.model.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code option persist}, {@code force-persist}, {@code ignore-persist}, {@code persist rdp-cookie} and {@code balance
 * rdp-cookie}, with HAProxy 2.6.12's messages (each checked against {@code haproxy -c} on the same lines).
 */
class PersistKeywordsTest {

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
    void settingsAreKeptAndInherited() {
        Proxy be = backendOf("""
                option persist
                force-persist if { src 10.0.0.1 }
                ignore-persist unless TRUE
                persist rdp-cookie
                balance rdp-cookie(user)
                server s1 127.0.0.1:80
                """);
        Persist p = be.options().persist();
        assertThat(p.downServers()).isTrue();
        assertThat(p.rules()).extracting(Persist.Rule::force).containsExactly(true, false);
        assertThat(p.rules().get(1).condition().unless()).isTrue();
        assertThat(p.rdpCookie()).isEqualTo("msts");
        assertThat(be.balance().algorithm()).isEqualTo(Balance.Algorithm.RDP_COOKIE);
        assertThat(be.balance().argument()).isEqualTo("user");

        Proxy d = parse(HEAD + """
                    option persist
                    persist rdp-cookie(name)
                    balance rdp-cookie
                backend b
                    server s1 127.0.0.1:80
                backend c
                    no option persist
                    server s1 127.0.0.1:80
                """).config().proxies().stream().filter(x -> x.name().equals("b")).findFirst().orElseThrow();
        assertThat(d.options().persist().downServers()).isTrue();
        assertThat(d.options().persist().rdpCookie()).isEqualTo("name");
        assertThat(d.balance().argument()).isEqualTo("mstshash");
    }

    @Test
    void messagesAreHaproxys() {
        String cfg = HEAD + """
                    force-persist if TRUE
                frontend f
                    bind 127.0.0.1:19001
                    option persist
                    force-persist if TRUE
                    ignore-persist if TRUE
                    persist rdp-cookie
                    default_backend b
                backend b
                    force-persist
                    ignore-persist TRUE
                    persist
                    persist foo
                    persist rdp-cookie()
                    persist rdp-cookiex
                    persist rdp-cookie(x) extra
                    balance rdp-cookie()
                    server s1 127.0.0.1:19002
                backend c
                    balance rdp-cookie(
                    server s1 127.0.0.1:19002
                backend d
                    balance rdp-cookiez
                    server s1 127.0.0.1:19002
                """;
        assertThat(messages(cfg)).containsExactly(
                "6 error 'force-persist' not allowed in 'defaults' section.",
                "9 warning 'persist' ignored because frontend 'f' has no backend capability.",
                "10 warning 'force-persist' ignored because frontend 'f' has no backend capability.",
                "11 warning 'ignore-persist' ignored because frontend 'f' has no backend capability.",
                "15 error 'force-persist' requires either 'if' or 'unless' followed by a condition.",
                "16 error 'ignore-persist' requires either 'if' or 'unless' followed by a condition.",
                "17 error missing persist method.",
                "18 error unknown persist method.",
                "19 error persist rdp-cookie(name)' requires an rdp cookie name.",
                "20 error persist rdp-cookie(name)' requires an rdp cookie name.",
                "21 error 'persist' cannot handle unexpected argument 'extra'.",
                "22 error 'balance' : rdp-cookie : missing cookie name.",
                "25 error 'balance' : rdp-cookie : missing cookie name.",
                "28 error 'balance' : rdp-cookie : missing cookie name.");
    }

    @Test
    void sendNameHeaderIsKeptLowerCaseAndInherited() {
        Proxy be = backendOf("""
                http-send-name-header X-Server
                server s1 127.0.0.1:80
                """);
        assertThat(be.options().sendNameHeader()).isEqualTo("x-server");
        assertThat(messages(HEAD + """
                    http-send-name-header X-Dflt
                frontend f
                    bind 127.0.0.1:19001
                    http-send-name-header X-F
                    default_backend b
                backend b
                    http-send-name-header
                    server s1 127.0.0.1:19002
                """)).containsExactly("9 warning 'http-send-name-header' ignored because frontend 'f' has no backend capability.",
                "12 error 'http-send-name-header' requires a header string.");
    }
}

package dev.sluice.config;

import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code http-error}: where its replies go, which one wins, and HAProxy 2.6.12's messages (checked with {@code haproxy -c}). */
class HttpErrorKeywordTest {

    private static final String HEAD = """
            defaults
                mode http
                timeout client 1s
                timeout server 1s
                timeout connect 1s
            """;

    private static List<String> messages(String text) {
        return parse(text).diagnostics().stream().map(d -> d.line() + " " + d.severity().name().toLowerCase() + " " + d.message()).toList();
    }

    private static Proxy proxy(String text, String name) {
        return parse(text).config().proxies().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void repliesAreInheritedAndTheLastDefinitionOfACodeWins() {
        String cfg = HEAD + """
                    http-error status 503 content-type text/plain lf-string "down %[path]"
                    http-error status 502 content-type text/plain string bad
                backend b
                    http-error status 502 default-errorfiles
                    http-error status 404 content-type text/plain string one
                    http-error status 404 content-type text/plain string two
                    server s1 127.0.0.1:80
                """;
        Proxy b = proxy(cfg, "b");
        assertThat(b.errors().replies()).containsOnlyKeys(503, 404);
        assertThat(b.errors().replies().get(404)).containsExactly("status", "404", "content-type", "text/plain", "string", "two");
        assertThat(b.errors().replies().get(503)).contains("lf-string", "down %[path]");
    }

    @Test
    void messagesAreHaproxys() {
        String cfg = HEAD + """
                frontend f
                    bind 127.0.0.1:19001
                    http-error
                    http-error status 999
                    http-error status 302
                    http-error status 503 string x
                    http-error content-type text/plain string x
                    default_backend b
                backend b
                    server s1 127.0.0.1:19002
                """;
        assertThat(messages(cfg)).containsExactly(
                "8 error http-error : expects at least a <status> as arguments.",
                "9 error http-error : Unexpected status code '999'",
                "10 error http-error: status code '302' not handled.",
                "11 error 'http-error' : a content type must be defined when non-empty payload is configured.",
                "12 error http-error : expects at least a <status> as arguments.");
    }
}

package dev.sluice.config;

import static dev.sluice.config.Configs.frontendOf;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.HttpRule;
import org.junit.jupiter.api.Test;

/** {@code http-request|http-response|http-after-response strict-mode on|off}: kept in order, its value checked. */
class StrictModeKeywordTest {

    @Test
    void theActionIsKeptInEveryRuleSet() {
        var fe = frontendOf("""
                http-request strict-mode off
                http-request set-header x-a 1
                http-response strict-mode on if TRUE
                http-after-response strict-mode off
                """);
        assertThat(fe.httpRequestRules()).extracting(r -> ((HttpRule.Action) r).name()).containsExactly("strict-mode", "set-header");
        assertThat(fe.httpResponseRules()).hasSize(1);
        assertThat(fe.httpAfterResponseRules()).hasSize(1);
    }

    @Test
    void onlyOnAndOff() {
        assertThat(parse("""
                defaults
                    mode http
                    timeout client 1s
                    timeout server 1s
                    timeout connect 1s
                frontend f
                    bind 127.0.0.1:19001
                    http-request strict-mode maybe
                """).diagnostics()).extracting(Diagnostic::message)
                .anyMatch(m -> m.endsWith("Unexpected value 'maybe'. Only 'on' and 'off' are supported."));
    }

    @Test
    void originalToKeepsItsHeaderAndExceptNetworkAndRefusesIfNone() {
        var fe = frontendOf("option originalto except 10.0.0.0/8 header X-Dst");
        assertThat(fe.http().originalTo().header()).isEqualTo("X-Dst");
        assertThat(fe.http().originalTo().except()).isEqualTo("10.0.0.0/8");
        assertThat(frontendOf("option originalto").http().originalTo().header()).isEqualTo("X-Original-To");
        assertThat(frontendOf("option originalto\nno option originalto").http().originalTo()).isNull();
        assertThat(parse("""
                frontend f
                    option originalto if-none
                """).diagnostics()).extracting(Diagnostic::message).anyMatch(m -> m.contains("unexpected argument 'if-none'"));
    }
}

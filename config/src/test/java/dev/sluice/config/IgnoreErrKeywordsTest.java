package dev.sluice.config;

import static dev.sluice.config.Configs.FRONTEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.frontendOf;
import static dev.sluice.config.Configs.inFrontend;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.BindTls;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code ca-ignore-err} and {@code crt-ignore-err} on a bind, with HAProxy 2.6.12's reading and messages ({@code haproxy -c}). */
class IgnoreErrKeywordsTest {
    private static final String BIND = "bind :443 ssl crt /x.pem ca-file /ca.pem verify optional ";

    @Test
    void listsAndAll() {
        BindTls t = frontendOf(BIND + "ca-ignore-err 19,20 crt-ignore-err 10 crt-ignore-err 94,9x").binds().getFirst().tls();
        assertThat(t.caIgnoreErr()).containsExactlyInAnyOrder(19, 20);
        // atoi: "9x" is 9; a second keyword adds to the first
        assertThat(t.crtIgnoreErr()).containsExactlyInAnyOrder(9, 10, 94);
        BindTls all = frontendOf(BIND + "ca-ignore-err all").binds().getFirst().tls();
        assertThat(all.caIgnoreErr()).isEqualTo(IntStream.rangeClosed(1, 94).boxed().collect(Collectors.toSet()));
        assertThat(all.crtIgnoreErr()).isEmpty();
        assertThat(frontendOf(BIND).binds().getFirst().tls().caIgnoreErr()).isEqualTo(Set.of());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "`ca-ignore-err X509_V_ERR_CERT_HAS_EXPIRED` => 'ca-ignore-err' : ID '0' out of range (1..94) in error IDs list 'X509_V_ERR_CERT_HAS_EXPIRED'",
            "`crt-ignore-err 10,` => 'crt-ignore-err' : ID '0' out of range (1..94) in error IDs list '10,'",
            "`crt-ignore-err 95` => 'crt-ignore-err' : ID '95' out of range (1..94) in error IDs list '95'",
            "`crt-ignore-err` => 'crt-ignore-err' : missing error IDs list",
    })
    void errorsAreHaproxys(String option, String message) {
        Diagnostic d = assertSingleError(parse(inFrontend(BIND + option)), FRONTEND_LINE, message);
        assertThat(d.message()).isEqualTo("'bind :443' in section 'frontend' : " + message);
    }
}

package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Retries;
import dev.sluice.config.model.Retries.RetryOn;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code retries}, {@code retry-on}, {@code option redispatch} and {@code timeout queue}. */
class RetryKeywordsTest {

    @Test
    void defaultsAreHaproxys() {
        Retries r = backendOf("").retries();
        assertThat(r).isEqualTo(Retries.DEFAULT);
        assertThat(r.count()).isEqualTo(3);
        assertThat(r.on()).containsExactly(RetryOn.CONN_FAILURE);
        assertThat(r.redispatches()).isFalse();
        assertThat(r.afterSending()).isFalse();
        assertThat(backendOf("").timeouts().queue()).isEqualTo(dev.sluice.config.model.Timeouts.UNSET);
    }

    @Test
    void keywordsSetThePolicy() {
        Retries r = backendOf("retries 5\nretry-on conn-failure\noption redispatch").retries();
        assertThat(r.count()).isEqualTo(5);
        assertThat(r.on()).containsExactly(RetryOn.CONN_FAILURE);
        assertThat(r.redispatch()).isEqualTo(-1);
        assertThat(r.afterSending()).isFalse();
        assertThat(backendOf("option redispatch 2").retries().redispatch()).isEqualTo(2);
        assertThat(backendOf("option redispatch -2").retries().redispatch()).isEqualTo(-2);
        assertThat(backendOf("option redispatch 0").retries().redispatches()).isFalse();
        assertThat(backendOf("retry-on none").retries().on()).isEmpty();
        assertThat(backendOf("timeout queue 3s").timeouts().queue()).isEqualTo(3000);
    }

    @Test
    void allRetryableErrorsIsHaproxysList() {
        Retries r = backendOf("retry-on all-retryable-errors").retries();
        assertThat(r.on()).isEqualTo(java.util.EnumSet.allOf(RetryOn.class));
        assertThat(r.statuses()).isEqualTo(java.util.Set.of(500, 502, 503, 504));
        Retries s = backendOf("retry-on empty-response 503 response-timeout").retries();
        assertThat(s.on()).containsExactlyInAnyOrder(RetryOn.EMPTY_RESPONSE, RetryOn.RESPONSE_TIMEOUT);
        assertThat(s.statuses()).containsExactly(503);
        assertThat(s.afterSending()).isTrue();
    }

    @Test
    void retryOnReplacesTheListAndDefaultsPassItOn() {
        var c = Configs.valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    retries 1\n    retry-on none\n    option redispatch\n") + """
                backend a
                    retry-on conn-failure
                backend b
                    no option redispatch
                """);
        Retries a = Configs.proxy(c, "a").retries();
        assertThat(a.count()).isEqualTo(1);
        assertThat(a.on()).containsExactly(RetryOn.CONN_FAILURE);
        assertThat(a.redispatches()).isTrue();
        Retries b = Configs.proxy(c, "b").retries();
        assertThat(b.on()).isEmpty();
        assertThat(b.redispatches()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "retries x                   => 'retries' : retries expects an integer, not 'x'",
            "retries                     => 'retries' : missing argument; expected: retries <number>",
            "retry-on                    => 'retry-on' : missing argument",
            "retry-on 418                => 'retry-on' : unknown keyword '418'",
            "retry-on conn-failure bogus => 'retry-on' : unknown keyword 'bogus'",
            "retry-on none 503           => 'retry-on' : 'none' keyword only usable alone",
            "option redispatch x         => 'option redispatch' : expects an integer interval, not 'x'.",
    })
    void errors(String line, String message) {
        assertThat(assertSingleError(parse(inBackend(line)), BACKEND_LINE, message).message()).startsWith(message);
    }
}

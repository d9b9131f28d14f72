package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.errors;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.warnings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.ServerObserve;
import dev.sluice.config.model.ServerObserve.Layer;
import dev.sluice.config.model.ServerObserve.OnError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code observe}, {@code error-limit}, {@code on-error}, {@code on-marked-down|up}: HAProxy 2.6's defaults, readings and messages. */
class ObserveKeywordsTest {

    private static ServerObserve observe(String lines, int server) {
        return backendOf(lines).servers().get(server).check().observe();
    }

    @Test
    void defaultsAreHaproxys() {
        assertThat(observe("server s1 10.0.0.1:80 check", 0)).isEqualTo(ServerObserve.DEFAULT);
        assertThat(ServerObserve.DEFAULT).isEqualTo(new ServerObserve(Layer.NONE, 10, OnError.FAIL_CHECK, false, false));
    }

    @Test
    void optionsSetTheAnalysis() {
        assertThat(observe("server s1 10.0.0.1:80 check observe layer4 error-limit 3 on-error mark-down on-marked-down shutdown-sessions"
                + " on-marked-up shutdown-backup-sessions", 0)).isEqualTo(new ServerObserve(Layer.LAYER4, 3, OnError.MARK_DOWN, true, true));
        assertThat(observe("server s1 10.0.0.1:80 observe layer7 on-error sudden-death", 0).layer()).isEqualTo(Layer.LAYER7);
        assertThat(observe("server s1 10.0.0.1:80 observe layer7 on-error sudden-death", 0).onError()).isEqualTo(OnError.SUDDEN_DEATH);
        assertThat(observe("server s1 10.0.0.1:80 on-error fastinter observe layer4 observe none", 0))
                .isEqualTo(new ServerObserve(Layer.NONE, 10, OnError.FASTINTER, false, false));
        // HAProxy reads the limit with atoi
        assertThat(observe("server s1 10.0.0.1:80 error-limit 5x", 0).errorLimit()).isEqualTo(5);
    }

    @Test
    void defaultServerPassesThemOn() {
        String lines = "default-server observe layer4 error-limit 2 on-error fail-check on-marked-down shutdown-sessions\n"
                + "server s1 10.0.0.1:80 check\nserver s2 10.0.0.2:80 check observe none error-limit 7";
        assertThat(observe(lines, 0)).isEqualTo(new ServerObserve(Layer.LAYER4, 2, OnError.FAIL_CHECK, true, false));
        assertThat(observe(lines, 1)).isEqualTo(new ServerObserve(Layer.NONE, 7, OnError.FAIL_CHECK, true, false));
    }

    /** As HAProxy, layer7 outside an HTTP proxy is an alert that does not fail the configuration: nothing is observed. */
    @Test
    void layer7OutsideHttpIsAWarningAndLeavesTheOption() {
        var r = parse(inBackend("mode tcp\nserver s1 10.0.0.1:80 check observe layer7").replace("default_backend be", "mode tcp\n    default_backend be"));
        assertThat(errors(r)).isEmpty();
        assertThat(warnings(r)).singleElement().satisfies(d -> {
            assertThat(d.line()).isEqualTo(BACKEND_LINE + 2);
            assertThat(d.message()).contains("server 's1' : 'layer7' can only be used in http proxies.");
        });
        assertThat(r.config().proxy("be").orElseThrow().servers().get(0).check().observe().layer()).isEqualTo(Layer.NONE);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "server s1 10.0.0.1:80 observe|'observe' expects <mode> as argument.",
        "server s1 10.0.0.1:80 observe foo|'observe' expects one of 'none', 'layer4', 'layer7' but got 'foo'.",
        "server s1 10.0.0.1:80 error-limit|'error-limit' expects an integer argument.",
        "server s1 10.0.0.1:80 error-limit 0|error-limit has to be > 0.",
        "server s1 10.0.0.1:80 error-limit x|error-limit has to be > 0.",
        "server s1 10.0.0.1:80 on-error|'on-error' expects one of 'fastinter', 'fail-check', 'sudden-death' or 'mark-down' but got ''",
        "server s1 10.0.0.1:80 on-error foo|'on-error' expects one of 'fastinter', 'fail-check', 'sudden-death' or 'mark-down' but got 'foo'",
        "server s1 10.0.0.1:80 on-marked-down foo|'on-marked-down' expects 'shutdown-sessions' but got 'foo'",
        "server s1 10.0.0.1:80 on-marked-up x|'on-marked-up' expects 'shutdown-backup-sessions' but got 'x'",
        "default-server on-marked-up x|'on-marked-up' expects 'shutdown-backup-sessions' but got 'x'",
    })
    void errorsSayWhatHaproxySays(String line, String message) {
        assertSingleError(parse(inBackend(line)), BACKEND_LINE, message);
    }
}

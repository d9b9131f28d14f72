package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.FRONTEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.inFrontend;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.HttpRule;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Which actions each rule set takes, and where, as HAProxy 2.6.12 has them (its messages were recorded with
 * {@code haproxy -c}).
 */
class RuleSetsTest {

    /** HAProxy 2.6's list for http-after-response, without 'ot-group' (OpenTracing, not in Sluice). */
    static final String AFTER_RESPONSE_ACTIONS = "'http-after-response' expects 'add-header', 'allow', 'capture', 'del-header', 'replace-header',"
            + " 'replace-value', 'set-header', 'set-status', 'strict-mode', 'set-var-fmt(*)', 'set-var(*)', 'unset-var(*)', but got ";

    @ParameterizedTest
    @ValueSource(strings = {"add-header x y", "allow", "del-header x", "del-header x -m beg", "replace-header x a b", "replace-value x a b",
        "set-header x y", "set-status 200", "set-status 200 reason OK", "set-var(txn.x) status", "set-var-fmt(txn.x) %[status]",
        "unset-var(txn.x)", "capture res.hdr(x) id 0"})
    void afterResponseTakesHaproxysActions(String action) {
        var r = parse(inFrontend("declare capture response len 4\nhttp-after-response " + action));
        assertThat(Configs.errors(r)).isEmpty();
        assertThat(r.config().proxy("fe").orElseThrow().httpAfterResponseRules()).hasSize(1);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
        "deny                   => 'deny'.",
        "return status 200      => 'return'.",
        "redirect location /x   => 'redirect'.",
        "tarpit                 => 'tarpit'.",
        "set-log-level info     => 'set-log-level'.",
        "sc-inc-gpc0(0)         => 'sc-inc-gpc0(0)'.",
        "sc-set-gpt0(0) 1       => 'sc-set-gpt0(0)'.",
        "track-sc0 src          => 'track-sc0'.",
        "set-timeout server 1s  => 'set-timeout'."})
    void afterResponseRefusesTheOthersInHaproxysWords(String action, String got) {
        assertSingleError(parse(inFrontend("http-after-response " + action)), FRONTEND_LINE, AFTER_RESPONSE_ACTIONS + got);
    }

    @Test
    void setTimeoutNeedsABackendAndTakesServerOrTunnel() {
        assertSingleError(parse(inFrontend("http-request set-timeout server 1s")), FRONTEND_LINE, "proxy 'fe' has no backend capability.");
        assertSingleError(parse(inBackend("http-request set-timeout client 1s")), BACKEND_LINE,
                "'set-timeout' rule supports 'server'/'tunnel' (got 'client').");
        assertSingleError(parse(inBackend("http-response set-timeout server 1s")), BACKEND_LINE, "unknown http-response action 'set-timeout'");
        var ok = parse(inBackend("http-request set-timeout server 1s\nhttp-request set-timeout tunnel 2s if { path /t }"));
        assertThat(Configs.errors(ok)).isEmpty();
        assertThat(ok.config().proxy("be").orElseThrow().httpRequestRules()).extracting(x -> ((HttpRule.Action) x).args().get(0))
                .containsExactly("server", "tunnel");
    }

    @Test
    void responseRedirectsOnlyToALocation() {
        assertSingleError(parse(inFrontend("http-response redirect prefix /p")), FRONTEND_LINE, "response only supports redirect type 'location'.");
        assertSingleError(parse(inFrontend("http-response redirect code 302 scheme https")), FRONTEND_LINE,
                "response only supports redirect type 'location'.");
        assertThat(Configs.errors(parse(inFrontend("http-response redirect location /x code 303")))).isEmpty();
    }

    @Test
    void delHeaderTakesARegexAsItsName() {
        assertThat(Configs.errors(parse(inFrontend("http-request del-header x-r[0-9] -m reg")))).isEmpty();
        assertSingleError(parse(inFrontend("http-request del-header x-r[0-9] -m beg")), FRONTEND_LINE, "invalid header name 'x-r[0-9]'.");
    }
}

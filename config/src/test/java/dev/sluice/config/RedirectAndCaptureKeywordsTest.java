package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.Captures;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code redirect} keyword, redirect options in any order, capture declarations and logging options. */
class RedirectAndCaptureKeywordsTest {

    private static Proxy fe(String body) {
        var r = Configs.parse("defaults\n    mode http\nfrontend fe\n    bind :80\n" + body);
        assertThat(Configs.errors(r)).isEmpty();
        return r.config().proxy("fe").orElseThrow();
    }

    private static List<String> args(HttpRule r) {
        return ((HttpRule.Action) r).args();
    }

    @Test
    void redirectOptionsMayComeBeforeTheType() {
        Proxy p = fe("    http-request redirect code 308 drop-query location /x if { path /a }\n");
        assertThat(args(p.httpRequestRules().get(0))).containsExactly("location", "/x", "code", "308", "drop-query");
    }

    @Test
    void redirectLinesRunAfterEveryHttpRequestRuleWithHaproxysWarning() {
        var r = Configs.parse("""
                defaults
                    mode http
                    timeout client 1s
                frontend fe
                    bind :80
                    redirect prefix /p code 301 if { path /a }
                    http-request return status 200 if { path /a }
                """);
        assertThat(Configs.errors(r)).isEmpty();
        assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message)
                .containsExactly(tuple(7, "a 'http-request' rule placed after a 'redirect' rule will still be processed before."));
        List<HttpRule> rules = r.config().proxy("fe").orElseThrow().httpRequestRules();
        assertThat(rules).extracting(x -> ((HttpRule.Action) x).name()).containsExactly("return", "redirect");
        assertThat(args(rules.get(1))).containsExactly("prefix", "/p", "code", "301");
    }

    @Test
    void captureSlotsAreNumberedInDeclarationOrder() {
        Proxy p = fe("""
                    capture request header Host len 20
                    declare capture request len 8
                    http-request capture req.hdr(x) len 6
                    capture response header Content-Type len 30
                    declare capture response len 4
                    http-response capture res.hdr(y) id 1
                    capture cookie SID len 10
                """);
        Captures c = p.logging().captures();
        assertThat(c.request()).containsExactly(new Captures.Slot("Host", 20), new Captures.Slot(null, 8), new Captures.Slot(null, 6));
        assertThat(c.response()).containsExactly(new Captures.Slot("Content-Type", 30), new Captures.Slot(null, 4));
        assertThat(c.cookie()).isEqualTo(new Captures.Cookie("SID", 10));
        // 'len' became the slot it declared
        assertThat(args(p.httpRequestRules().get(0))).containsExactly("req.hdr(x)", "id", "2");
        assertThat(args(p.httpResponseRules().get(0))).containsExactly("res.hdr(y)", "id", "1");
    }

    @Test
    void loggingOptions() {
        Proxy p = fe("""
                    option logasap
                    unique-id-format %{+X}o\\ %ci:%cp_%Ts
                    unique-id-header X-Request-ID
                    log-format "%ci %[capture.req.hdr(0)] %ID"
                """);
        assertThat(p.logging().logAsap()).isTrue();
        assertThat(p.logging().uniqueIdHeader()).isEqualTo("X-Request-ID");
        assertThat(p.logging().uniqueIdFormat().text()).isEqualTo("%{+X}o %ci:%cp_%Ts");
        assertThat(p.logging().formatWhere().line()).isEqualTo(8);
    }

    @Test
    void badCaptureLines() {
        var r = Configs.parse("""
                frontend fe
                    capture request header Host
                    capture response head X len 3
                    capture cookie A len 4
                    capture cookie B len 4
                    declare capture both len 3
                    http-request set-log-level loud
                    http-request capture path size 4
                backend be
                    capture request header Host len 3
                """);
        assertThat(Configs.errors(r)).extracting(Diagnostic::line, Diagnostic::message).contains(
                tuple(2, "'capture request' : expects 'header <name> len <length>'."),
                tuple(3, "'capture response' : expects 'header <name> len <length>'."),
                tuple(5, "'capture cookie' : only one cookie capture is allowed per frontend."),
                tuple(6, "'declare capture' : expects 'request' or 'response', then 'len <length>'."),
                tuple(7, "'http-request set-log-level' : expects one of emerg, alert, crit, err, warning, notice, info, debug, silent, not 'loud'."),
                tuple(8, "'http-request capture' : expects '<sample> len <length>' or '<sample> id <slot>'."));
        assertThat(Configs.errors(r)).extracting(Diagnostic::line).contains(10);
    }
}

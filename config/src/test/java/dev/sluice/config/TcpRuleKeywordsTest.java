package dev.sluice.config;

import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.proxy;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.TcpRules;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code tcp-request} and {@code tcp-response} rule sets: what each accepts where, the model they give, and HAProxy
 * 2.6.12's messages (checked against {@code haproxy -c}; {@code TcpConfigCheckTest} runs such files through both).
 */
class TcpRuleKeywordsTest {

    /** Lines 1-5: a named defaults section in mode tcp with every timeout; frontend 'f1' starts at line 6, its lines at 8. */
    private static final String HEAD = """
            defaults d
                mode tcp
                timeout client 5s
                timeout server 5s
                timeout connect 5s
            frontend f1
                bind :80
            """;
    private static final String BACKEND = "backend b1\n    server s1 127.0.0.1:9\n";

    private static List<String> messages(ConfigParser.Result r) {
        return r.diagnostics().stream().map(d -> d.line() + " " + d.severity().name().toLowerCase() + " " + d.message()).toList();
    }

    /** The messages of one line in frontend f1 (line 8); a backend b1 follows it. */
    private static List<String> inFrontend(String line) {
        return messages(parse(HEAD + "    " + line + "\n    default_backend b1\n" + BACKEND));
    }

    private static List<String> inBackend(String line) {
        return messages(parse(HEAD + "    default_backend b1\nbackend b1\n    " + line + "\n    server s1 127.0.0.1:9\n"));
    }

    private static String action(HttpRule r) {
        HttpRule.Action a = (HttpRule.Action) r;
        return a.name() + (a.args().isEmpty() ? "" : " " + String.join(" ", a.args())) + (a.condition() == null ? "" : " " + a.condition());
    }

    @Test
    void everyRuleSetLandsInTheModel() {
        Config c = valid(HEAD + """
                    tcp-request inspect-delay 5s
                    tcp-request connection accept if { src 10.0.0.0/8 }
                    tcp-request session track-sc0 src
                    tcp-request content capture req.payload(0,4) len 4
                    tcp-request content set-var(sess.sni) req.ssl_sni
                    tcp-request content switch-mode http proto h2 if { req.len gt 0 }
                    tcp-request content accept if { req_ssl_hello_type 1 }
                    default_backend b1
                backend b1
                    tcp-response inspect-delay 2s
                    tcp-response content close if { res.len gt 0 }
                    tcp-request content reject unless { req.payload(0,3) -m bin 160301 }
                    server s1 127.0.0.1:9
                """);
        TcpRules f = proxy(c, "f1").tcpRules();
        assertThat(f.connection()).extracting(TcpRuleKeywordsTest::action).containsExactly("accept if { src 10.0.0.0/8 }");
        assertThat(f.session()).extracting(TcpRuleKeywordsTest::action).containsExactly("track-sc0 src");
        assertThat(f.content()).extracting(TcpRuleKeywordsTest::action).containsExactly("capture req.payload(0,4) id 0",
                "set-var(sess.sni) req.ssl_sni", "switch-mode http proto h2 if { req.len gt 0 }", "accept if { req_ssl_hello_type 1 }");
        assertThat(f.inspectDelay()).isEqualTo(5000);
        assertThat(f.responseContent()).isEmpty();
        assertThat(proxy(c, "f1").logging().captures().request()).hasSize(1);
        TcpRules b = proxy(c, "b1").tcpRules();
        assertThat(b.responseContent()).extracting(TcpRuleKeywordsTest::action).containsExactly("close if { res.len gt 0 }");
        assertThat(b.responseInspectDelay()).isEqualTo(2000);
        assertThat(b.content()).extracting(TcpRuleKeywordsTest::action).containsExactly("reject unless { req.payload(0,3) -m bin 160301 }");
        assertThat(b.connection()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "tcp-request inspect-delay x => 8 error 'tcp-request inspect-delay' expects a positive delay in milliseconds, in frontend 'f1' (unexpected character 'x')",
            "tcp-request inspect-delay 2x => 8 error 'tcp-request inspect-delay' expects a positive delay in milliseconds, in frontend 'f1' (unexpected character 'x')",
            "tcp-request inspect-delay => 8 error 'tcp-request inspect-delay' expects a positive delay in milliseconds, in frontend 'f1'",
            "tcp-request inspect-delay 30d => 8 error 'tcp-request inspect-delay' expects a positive delay in milliseconds, in frontend 'f1' (timer overflow in '30d', maximum value is 2147483647 ms or ~24.8 days)",
            "tcp-request inspect-delay 10us => 8 error 'tcp-request inspect-delay' expects a positive delay in milliseconds, in frontend 'f1' (timer underflow in '10us', minimum non-null value is 1 ms)",
            "tcp-response inspect-delay 1s => 8 error tcp-response inspect-delay is only allowed in 'backend' sections or 'defaults' section with a name",
            "tcp-response content accept => 8 error tcp-response content is only allowed in 'backend' sections or 'defaults' section with a name",
            "tcp-request => 8 error missing argument for 'tcp-request' in frontend 'f1'",
            "tcp-request bogus => 8 error 'tcp-request' expects 'inspect-delay', 'connection', or 'content' in frontend 'f1' (got 'bogus')",
            "tcp-request content expect-proxy layer4 => 8 error 'expect-proxy layer4' is not allowed in 'tcp-request content' rules in frontend 'f1'",
            "tcp-request connection expect-proxy layer5 => 8 error 'tcp-request connection expect-proxy' only supports 'layer4' in frontend 'f1' (got 'layer5')",
            "tcp-request session expect-proxy layer4 => 8 error 'expect-proxy layer4' is not allowed in 'tcp-request session' rules in frontend 'f1'",
            "tcp-request connection capture req.len len 10 => 8 error 'capture req.len' is not allowed in 'tcp-request connection' rules in frontend 'f1'",
            "tcp-request content capture src => 8 error 'tcp-request content capture' : a positive 'len' argument is mandatory",
            "tcp-request content capture src len 0 => 8 error 'tcp-request content capture' : length must be > 0",
            "tcp-request content capture res.len len 4 => 8 error 'tcp-request content capture' : fetch method 'res.len' extracts information from 'response buffer', none of which is available here",
            "tcp-request connection track-sc0 req.len => 8 error 'tcp-request connection track-sc0' : fetch method 'req.len' extracts information from 'request buffer', none of which is available here",
            "tcp-request content track-sc3 src => 8 error 'tcp-request content track-sc3' : 3 track-sc number exceeding 2 (MAX_SESS_STKCTR-1) value",
            "tcp-request content track-scx src => 8 error 'tcp-request content track-scx' : Wrong track-sc number 'x'",
            "tcp-request content track-sc0 => 8 error 'tcp-request content track-sc0' : missing fetch method",
            "tcp-request content track-sc1 src table t foo => 8 error 'tcp-request content track-sc1' only accepts 'if' or 'unless', in frontend 'f1' (got 'foo')",
            "tcp-request content accept foo => 8 error 'tcp-request content accept' only accepts 'if' or 'unless', in frontend 'f1' (got 'foo')",
            "tcp-request content silent-drop foo => 8 error 'tcp-request content silent-drop' only accepts 'if' or 'unless', in frontend 'f1' (got 'foo')",
            "tcp-request content accept if nope => 8 error 'tcp-request content accept' : error detected in frontend 'f1' while parsing 'if' condition : no such ACL : 'nope'",
            "tcp-request content use-service prometheus-exporter => 8 error Prometheus exporter service only available on 'http-request' rulesets",
            "tcp-request content use-service foo => 8 error 'content' unknown service name.",
            "tcp-request content set-nice => 8 error expects exactly 1 argument (integer value)",
            "tcp-request content set-mark => 8 error expects exactly 1 argument (integer/hex value)",
            "tcp-request content set-tos => 8 error expects exactly 1 argument (integer/hex value)",
            "tcp-request content set-src => 8 error missing fetch method",
            "tcp-request content set-dst-port => 8 error missing fetch method",
            "tcp-request content set-priority-class => 8 error missing fetch method",
            "tcp-request content set-var(txn.x) => 8 error missing fetch method",
            "tcp-request content set-var(x.x) src => 8 error invalid variable name 'x.x'. A variable name must be start by its scope. The scope can be 'proc', 'sess', 'txn', 'req', 'res' or 'check'",
            "tcp-request content sc-inc-gpc0(5) => 8 error invalid stick table track ID. The max allowed ID is 2",
            "tcp-request content set-log-level => 8 error expects exactly 1 argument (log level name or 'silent')",
            "tcp-request content set-log-level foo => 8 error expects exactly 1 argument (log level name or 'silent')",
            "tcp-request content switch-mode => 8 error 'tcp-request switch-mode' expects a mode as argument.",
            "tcp-request content switch-mode tcp => 8 error 'tcp-request switch-mode' expects a valid mode (got 'tcp').",
            "tcp-request content switch-mode http proto => 8 error 'tcp-request switch-mode': 'proto' expects a protocol as argument.",
            "tcp-request content switch-mode http proto h3 => 8 error 'tcp-request switch-mode': 'proto' expects a valid MUX protocol, if specified (got 'h3')",
            "tcp-request content switch-mode http foo => 8 error 'tcp-request content switch-mode' only accepts 'if' or 'unless', in frontend 'f1' (got 'foo')",
            "tcp-request content ot-group g => 8 error 'tcp-request content ot-group' is not supported by Sluice yet: OpenTracing.",
            "tcp-request content send-spoe-group e g => 8 error 'tcp-request content send-spoe-group' is not supported by Sluice yet: SPOE/SPOA filters.",
            "tcp-request content do-resolve(txn.ip,dns) src => 8 error 'tcp-request content do-resolve' is not supported by Sluice yet: DNS resolvers.",
            "tcp-request connection expect-netscaler-cip layer4 => 8 error 'tcp-request connection expect-netscaler-cip' is not supported by Sluice yet: NetScaler client IP insertion.",
    })
    void frontendErrors(String line, String message) {
        assertThat(inFrontend(line)).containsExactly(message);
    }

    @Test
    void theActionListsAreHaproxys() {
        String content = "'tcp-request content' expects 'accept', 'reject', 'capture', 'expect-proxy', 'expect-netscaler-cip', 'track-sc0' ..."
                + " 'track-sc2', 'ot-group', 'set-log-level', 'set-nice', 'switch-mode', 'use-service', 'sc-inc-gpc(*)', 'sc-inc-gpc0(*)',"
                + " 'sc-inc-gpc1(*)', 'sc-set-gpt(*)', 'sc-set-gpt0(*)', 'send-spoe-group', 'do-resolve(*)', 'set-var-fmt(*)', 'set-var(*)',"
                + " 'unset-var(*)', 'set-src', 'set-src-port', 'set-dst', 'set-dst-port', 'set-mark', 'set-tos', 'silent-drop',"
                + " 'set-priority-class', 'set-priority-offset' in frontend 'f1' (got '%s').%s";
        assertThat(inFrontend("tcp-request content bogus")).containsExactly("8 error " + content.formatted("bogus", ""));
        assertThat(inFrontend("tcp-request content rejet")).containsExactly("8 error " + content.formatted("rejet",
                " Did you mean 'reject' maybe ?"));
        assertThat(inFrontend("tcp-request content")).containsExactly("8 error " + content.formatted("", ""));
        String connection = "'tcp-request %s' expects 'accept', 'reject', 'capture', 'expect-proxy', 'expect-netscaler-cip', 'track-sc0' ..."
                + " 'track-sc2', 'sc-inc-gpc(*)', 'sc-inc-gpc0(*)', 'sc-inc-gpc1(*)', 'sc-set-gpt(*)', 'sc-set-gpt0(*)', 'set-var-fmt(*)',"
                + " 'set-var(*)', 'unset-var(*)', 'set-dst', 'set-dst-port', 'set-mark', 'set-src', 'set-src-port', 'set-tos', 'silent-drop'"
                + " in frontend 'f1' (got 'bogus').";
        assertThat(inFrontend("tcp-request connection bogus")).containsExactly("8 error " + connection.formatted("connection"));
        assertThat(inFrontend("tcp-request session bogus")).containsExactly("8 error " + connection.formatted("session"));
        assertThat(inFrontend("tcp-request connection set-log-level info")).singleElement().asString()
                .startsWith("8 error 'tcp-request connection' expects 'accept'");
        assertThat(inBackend("tcp-response content bogus")).containsExactly("10 error 'tcp-response content' expects 'accept', 'close',"
                + " 'reject', 'ot-group', 'set-log-level', 'set-nice', 'sc-inc-gpc(*)', 'sc-inc-gpc0(*)', 'sc-inc-gpc1(*)', 'sc-set-gpt(*)',"
                + " 'sc-set-gpt0(*)', 'send-spoe-group', 'set-var-fmt(*)', 'set-var(*)', 'unset-var(*)', 'set-mark', 'set-tos', 'silent-drop'"
                + " in backend 'b1' (got 'bogus').");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "tcp-request connection accept => 10 error tcp-request connection is not allowed because backend b1 is not a frontend",
            "tcp-request session accept => 10 error tcp-request session is not allowed because backend b1 is not a frontend",
            "tcp-request content switch-mode http => 10 error 'tcp-request switch-mode' not allowed because backend 'b1' has no frontend capability",
            "tcp-request content capture src len 4 => 10 error 'tcp-request content capture' : proxy 'b1' has no frontend capability",
            "tcp-response content close foo => 10 error 'tcp-response content close' only accepts 'if' or 'unless', in backend 'b1' (got 'foo')",
            "tcp-response content reject if { req.len gt 0 } => 10 warning anonymous acl will never match in 'tcp-response content' because it uses keyword 'req.len' which is incompatible with 'backend tcp-response content rule'",
            "tcp-response => 10 error missing argument for 'tcp-response' in backend 'b1'",
            "tcp-response bogus => 10 error 'tcp-response' expects 'inspect-delay' or 'content' in backend 'b1' (got 'bogus')",
            "tcp-response inspect-delay 2x => 10 error 'tcp-response inspect-delay' expects a positive delay in milliseconds, in backend 'b1' (unexpected character 'x')",
    })
    void backendMessages(String line, String message) {
        assertThat(inBackend(line)).containsExactly(message);
    }

    /** set-tos and set-mark read their value as strtol(v, &end, 0) does (HAProxy's message for the rest); set-nice warns. */
    /** As {@link #inFrontend}, in mode http. */
    private static List<String> inHttpFrontend(String line) {
        return messages(parse(HEAD.replace("mode tcp", "mode http") + "    " + line + "\n    default_backend b1\n" + BACKEND));
    }

    @Test
    void socketValuesAndNice() {
        assertThat(inHttpFrontend("http-request set-tos 0x10")).isEmpty();
        assertThat(inHttpFrontend("http-request set-mark 017")).isEmpty();
        assertThat(inFrontend("tcp-request connection set-tos 8")).isEmpty();
        assertThat(inHttpFrontend("http-request set-tos 0x1g")).containsExactly(
                "8 error 'http-request set-tos' : invalid character starting at 'g' (integer/hex value expected)");
        assertThat(inFrontend("tcp-request content set-mark abc")).singleElement().asString()
                .endsWith("invalid character starting at 'abc' (integer/hex value expected)");
        assertThat(inHttpFrontend("http-response set-tos 08")).singleElement().asString()
                .endsWith("invalid character starting at '8' (integer/hex value expected)");
        assertThat(inHttpFrontend("http-request set-nice 5")).containsExactly("8 warning 'http-request set-nice' : " + RuleKeywords.SET_NICE);
    }

    @Test
    void anonymousDefaultsTakeNoRule() {
        var r = parse("""
                defaults
                    tcp-request inspect-delay 1s
                    tcp-request connection accept
                    tcp-request session accept
                    tcp-request content accept
                    tcp-response inspect-delay 1s
                    tcp-response content accept
                    tcp-request
                    tcp-response
                    tcp-request foo
                    tcp-response foo
                """);
        assertThat(messages(r)).containsExactly(
                "2 error tcp-request inspect-delay is not allowed in anonymous 'defaults' sections",
                "3 error tcp-request connection is not allowed in anonymous 'defaults' sections",
                "4 error tcp-request session is not allowed in anonymous 'defaults' sections",
                "5 error tcp-request content is not allowed in anonymous 'defaults' sections",
                "6 error tcp-response inspect-delay is only allowed in 'backend' sections or 'defaults' section with a name",
                "7 error tcp-response content is only allowed in 'backend' sections or 'defaults' section with a name",
                "8 error missing argument for 'tcp-request' in defaults section",
                "9 error missing argument for 'tcp-response' in defaults ''",
                "10 error 'tcp-request' expects 'inspect-delay', 'connection', or 'content' in defaults section (got 'foo')",
                "11 error 'tcp-response' expects 'inspect-delay' or 'content' in defaults '' (got 'foo')");
    }

    @Test
    void namedDefaultsRulesRunFirstAndTheirDelayIsInherited() {
        var r = parse("""
                defaults d1
                    mode tcp
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                    tcp-request inspect-delay 3s
                    tcp-request connection accept if { src 10.0.0.0/8 }
                    tcp-request content accept if { req.len gt 0 }
                frontend f1 from d1
                    bind :80
                    tcp-request connection reject
                    tcp-request inspect-delay 1s
                    default_backend b1
                frontend f2 from d1
                    bind :81
                    default_backend b1
                defaults d2
                    mode tcp
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                backend b1
                    server s1 127.0.0.1:9
                """);
        assertThat(messages(r)).containsExactly("12 warning ignoring tcp-request inspect-delay (was already defined) in frontend 'f1'");
        TcpRules f1 = proxy(r.config(), "f1").tcpRules();
        assertThat(f1.connection()).extracting(TcpRuleKeywordsTest::action).containsExactly("accept if { src 10.0.0.0/8 }", "reject");
        assertThat(f1.content()).extracting(TcpRuleKeywordsTest::action).containsExactly("accept if { req.len gt 0 }");
        assertThat(f1.inspectDelay()).isEqualTo(3000);
        assertThat(proxy(r.config(), "f2").tcpRules().connection()).hasSize(1);
        assertThat(proxy(r.config(), "b1").tcpRules()).isEqualTo(TcpRules.NONE);
    }

    @ParameterizedTest(name = "{0} from a defaults section with {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "defaults d2 from d1 => tcp-request content accept => a defaults section cannot inherit from a defaults section defining TCP/HTTP rules (defaults section at test.cfg:1).",
            "listen l from d1 => tcp-request content accept => a listen section cannot inherit from a defaults section defining TCP/HTTP rules.",
            "backend b from d1 => tcp-request connection accept => a backend section cannot inherit from a defaults section defining 'tcp-request connection' or 'tcp-request session' rules (defaults section at test.cfg:1).",
            "backend b from d1 => tcp-request session accept => a backend section cannot inherit from a defaults section defining 'tcp-request connection' or 'tcp-request session' rules (defaults section at test.cfg:1).",
            "frontend f from d1 => tcp-response content accept => a frontend section cannot inherit from a defaults section defining 'tcp-response content' rules (defaults section at test.cfg:1).",
    })
    void sectionsThatCannotUseTheRulesOfADefaultsSection(String header, String rule, String message) {
        var r = parse("defaults d1\n    " + rule + "\n" + header + "\n");
        assertThat(messages(r)).contains("3 error " + message);
    }

    @Test
    void frontendsAndBackendsCannotShareTheRulesOfADefaultsSection() {
        var r = parse("defaults d1\n    tcp-request content accept\nfrontend f from d1\n    bind :80\nbackend b from d1\n");
        assertThat(messages(r)).contains("5 error frontends and backends cannot inherit from the same defaults section if it defines TCP/HTTP"
                + " rules (defaults section at test.cfg:1).");
    }

    @Test
    void aRulePlacedAfterOneThatRunsLaterIsWarnedAbout() {
        var r = parse(HEAD + """
                    tcp-request content accept
                    tcp-request session accept
                    tcp-request connection accept
                    default_backend b1
                frontend f2
                    bind :81
                    use_backend b1 if { src 10.0.0.1 }
                    tcp-request content accept
                    http-request deny if { path /x }
                    tcp-request connection accept
                """ + BACKEND);
        assertThat(messages(r)).containsExactly(
                "9 warning a 'tcp-request' rule placed after a 'tcp-request content' rule will still be processed before.",
                "10 warning a 'tcp-request' rule placed after a 'tcp-request session' rule will still be processed before.",
                "15 warning a 'tcp-request' rule placed after a 'use_backend' rule will still be processed before.",
                "16 warning a 'http-request' rule placed after a 'use_backend' rule will still be processed before.",
                "17 warning a 'tcp-request' rule placed after a 'tcp-request content' rule will still be processed before.",
                "12 warning 'http-request' rules ignored for frontend 'f2' as they require HTTP mode.");
    }

    @Test
    void layer6FetchesWhereTheyCannotMatchAreWarnedAbout() {
        var r = parse("""
                defaults d
                    mode tcp
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend ft
                    bind :80
                    acl big req.len gt 10
                    acl resp res.len gt 10
                    acl mixed res.len gt 10
                    acl mixed src 10.0.0.1
                    tcp-request connection reject if { req.len gt 0 }
                    tcp-request connection reject if big
                    tcp-request session reject if REQ_CONTENT
                    tcp-request content reject if { res.len gt 0 }
                    tcp-request content reject if resp
                    tcp-request content reject if big resp
                    tcp-request content reject if { req_ssl_sni -m end .x }
                    tcp-request content reject if mixed
                    default_backend bt
                backend bt
                    server s1 127.0.0.1:9
                """);
        assertThat(messages(r)).containsExactly(
                "12 warning anonymous acl will never match in 'tcp-request connection' because it uses keyword 'req.len' which is incompatible"
                        + " with 'frontend tcp-request connection rule'",
                "13 warning acl 'big' will never match in 'tcp-request connection' because it only involves keywords that are incompatible with"
                        + " 'frontend tcp-request connection rule'",
                "14 warning acl 'REQ_CONTENT' will never match in 'tcp-request session' because it only involves keywords that are incompatible"
                        + " with 'frontend tcp-request session rule'",
                "15 warning anonymous acl will never match in 'tcp-request content' because it uses keyword 'res.len' which is incompatible with"
                        + " 'frontend tcp-request content rule'",
                "16 warning acl 'resp' will never match in 'tcp-request content' because it only involves keywords that are incompatible with"
                        + " 'frontend tcp-request content rule'",
                "17 warning acl 'resp' will never match in 'tcp-request content' because it only involves keywords that are incompatible with"
                        + " 'frontend tcp-request content rule'",
                "19 warning acl 'mixed' involves keyword 'res.len' which is incompatible with 'frontend tcp-request content rule'");
    }
}

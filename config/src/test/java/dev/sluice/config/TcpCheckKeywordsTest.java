package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.errors;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.warnings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.HealthChecks;
import dev.sluice.config.model.TcpCheck;
import dev.sluice.config.model.TcpCheck.Connect;
import dev.sluice.config.model.TcpCheck.Expect;
import dev.sluice.config.model.TcpCheck.ExpectKind;
import dev.sluice.config.model.TcpCheck.Send;
import dev.sluice.config.model.TcpCheck.SendKind;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** {@code option tcp-check}, the {@code tcp-check} rules and the protocol check options, with HAProxy 2.6's messages. */
class TcpCheckKeywordsTest {

    private static TcpCheck tcp(String lines) {
        return backendOf(lines).checks().tcp();
    }

    @Test
    void rulesAreKeptInOrderWithTheirOptions() {
        TcpCheck t = tcp("""
                option tcp-check
                tcp-check comment banner
                tcp-check connect port 8025 addr 127.0.0.2:81 send-proxy linger ssl sni mx.test alpn h2,http/1.1 comment first
                tcp-check expect min-recv 4 ! rstring ^5 comment not-5xx ok-status L6OK error-status l7sts tout-status L4TOUT
                tcp-check send-binary 0d0A comment crlf
                tcp-check send-lf "%[var(check.x)]\\r\\n"
                tcp-check expect string-lf "%[var(check.x)]" on-success "ok %[res.payload(0,3)]" on-error "bad" status-code int(250)
                tcp-check set-var(check.x) str(hello)
                tcp-check unset-var(check.x)
                server s1 127.0.0.1:8080 ssl verify none check
                """);
        assertThat(t.kind()).isEqualTo(TcpCheck.Kind.TCP);
        assertThat(t.rules()).hasSize(8);
        assertThat(t.rules().get(0)).isInstanceOf(TcpCheck.Comment.class);
        Connect c = (Connect) t.rules().get(1);
        assertThat(c.index()).isEqualTo(1);
        assertThat(c).extracting(Connect::port, Connect::addr, Connect::addrPort, Connect::sendProxy, Connect::linger, Connect::ssl, Connect::sni,
                Connect::alpn, Connect::comment, Connect::useDefault).containsExactly(8025, "127.0.0.2", 81, true, true, true, "mx.test", "h2,http/1.1",
                        "first", false);
        Expect e = (Expect) t.rules().get(2);
        assertThat(e).extracting(Expect::kind, Expect::inverse, Expect::pattern, Expect::minRecv, Expect::okStatus, Expect::errorStatus,
                Expect::timeoutStatus, Expect::comment).containsExactly(ExpectKind.RSTRING, true, "^5", 4, "L6OK", "L7STS", "L4TOUT", "not-5xx");
        assertThat((Send) t.rules().get(3)).extracting(Send::kind, Send::data, Send::comment).containsExactly(SendKind.BINARY, "0d0A", "crlf");
        assertThat(((Send) t.rules().get(4)).data()).isEqualTo("%[var(check.x)]\r\n");
        Expect lf = (Expect) t.rules().get(5);
        assertThat(lf).extracting(Expect::onSuccess, Expect::onError, Expect::statusCode).containsExactly("ok %[res.payload(0,3)]", "bad", "int(250)");
        assertThat((TcpCheck.SetVar) t.rules().get(6)).extracting(TcpCheck.SetVar::name, TcpCheck.SetVar::value).containsExactly("check.x", "str(hello)");
        assertThat(((TcpCheck.SetVar) t.rules().get(7)).value()).isNull();
    }

    @Test
    void theLastCheckOptionWins() {
        assertThat(backendOf("option tcp-check\noption httpchk /").checks().tcp()).isNull();
        HealthChecks h = backendOf("option httpchk /\noption redis-check").checks();
        assertThat(h.http()).isNull();
        assertThat(h.tcp().kind()).isEqualTo(TcpCheck.Kind.REDIS);
        // an option tcp-check after a protocol option runs the proxy's own (here empty) rules: a connection
        assertThat(tcp("option redis-check\noption tcp-check").rules()).isEmpty();
        // rules written before the option are used once it comes
        assertThat(tcp("tcp-check send x\noption tcp-check").rules()).hasSize(1);
    }

    @Test
    void aProxyRunsItsDefaultsRulesUnlessItHasItsOwn() {
        String defaults = Configs.DEFAULTS + """
                    option tcp-check
                    tcp-check send a
                    tcp-check expect string b
                frontend fe
                    bind :8080
                    default_backend be
                backend be
                    server s1 127.0.0.1:1 check
                backend own
                    tcp-check send c
                    server s1 127.0.0.1:1 check
                """;
        var c = Configs.valid(defaults);
        assertThat(Configs.proxy(c, "be").checks().tcp().rules()).hasSize(2);
        List<TcpCheck.Rule> own = Configs.proxy(c, "own").checks().tcp().rules();
        assertThat(own).singleElement().isInstanceOf(Send.class);
        assertThat(((Send) own.getFirst()).data()).isEqualTo("c");
        assertThat(own.getFirst().index()).isZero();
    }

    @Test
    void unusedRulesAndHttpOnlyOptionsAreWarned() {
        var r = parse(inBackend("tcp-check send x\nserver s1 127.0.0.1:1 check"));
        assertThat(warnings(r)).singleElement().extracting(Diagnostic::message)
                .isEqualTo("backend 'be' uses tcp-check rules without 'option tcp-check', so the rules are ignored.");
        r = parse(inBackend("option tcp-check\nhttp-check disable-on-404\nserver s1 127.0.0.1:1 check"));
        assertThat(warnings(r)).singleElement().extracting(Diagnostic::message)
                .isEqualTo("'disable-on-404' will be ignored for backend 'be' (requires 'option httpchk').");
        assertThat(r.config().proxy("be").orElseThrow().checks().disableOn404()).isFalse();
        r = parse(Configs.DEFAULTS + "frontend fe\n    bind :8080\n    option redis-check\n    tcp-check send x\n");
        assertThat(warnings(r)).extracting(Diagnostic::message).containsExactly(
                "'redis-check' ignored because frontend 'fe' has no backend capability.",
                "'tcp-check' ignored because frontend 'fe' has no backend capability.");
    }

    @Test
    void protocolOptionsAreBuiltInRuleSets() {
        TcpCheck redis = tcp("option redis-check");
        assertThat(redis.rules()).hasSize(2);
        assertThat(((Send) redis.rules().get(0)).data()).isEqualTo("*1\r\n$4\r\nPING\r\n");
        assertThat(((Expect) redis.rules().get(1))).extracting(Expect::pattern, Expect::errorStatus, Expect::onSuccess, Expect::index)
                .containsExactly("+PONG\r\n", "L7STS", "Redis server is ok", 1);
        TcpCheck smtp = tcp("option smtpchk EHLO mx.test");
        assertThat(smtp.vars()).containsExactly(new TcpCheck.Var("check.smtp_cmd", "EHLO mx.test", false));
        assertThat(smtp.rules()).hasSize(7);
        assertThat(((Connect) smtp.rules().get(0)).linger()).isTrue();
        assertThat(((Send) smtp.rules().get(5)).data()).isEqualTo("QUIT\r\n");
        assertThat(tcp("option smtpchk FOO x").vars().getFirst().value()).isEqualTo("HELO localhost");
        TcpCheck pg = tcp("option pgsql-check user bob");
        assertThat(pg.vars()).containsExactly(new TcpCheck.Var("check.username", "bob", false), new TcpCheck.Var("check.plen", "18", true));
        TcpCheck my = tcp("option mysql-check user bob");
        assertThat(my.vars().getFirst().value()).isEqualTo("\u0025\0\0\u0001");
        assertThat(my.rules()).hasSize(4);
        assertThat(tcp("option mysql-check").rules()).hasSize(2);
        assertThat(tcp("option mysql-check user bob pre-41").vars().getFirst().value()).isEqualTo("\n\0\0\u0001");
        assertThat(tcp("option ldap-check").rules()).hasSize(3);
        assertThat(((Send) tcp("option ssl-hello-chk").rules().getFirst()).data()).startsWith("16030000790100007503").contains("%[date(),htonl,hex]")
                .endsWith("0039003A0100");
    }

    /** Each line alone in a backend, and HAProxy 2.6.12's message for it (checked with haproxy -c). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "no option tcp-check | negation/default is not supported for option 'tcp-check'.",
        "option tcp-check foo | 'option tcp-check' cannot handle unexpected argument 'foo'.",
        "tcp-check connect port 0 | 'tcp-check connect' : expects a valid TCP port (from range 1 to 65535) or a sample expression, got 0..",
        "tcp-check connect blah | 'tcp-check connect' : expects 'comment', 'port', 'addr', 'send-proxy', 'ssl', 'sni', 'alpn' or 'via-socks4', 'linger',"
                + " 'default' but got 'blah' as argument..",
        "tcp-check connect sni | 'tcp-check connect' : 'sni' expects a string as argument..",
        "tcp-check connect alpn | 'tcp-check connect' : 'alpn' : missing the comma-delimited ALPN protocol suite.",
        "tcp-check connect proto h2 | 'tcp-check connect' : 'proto' : invalid MUX protocol 'h2' for tcp-check.",
        "tcp-check connect addr 127.0.0.1:99999 | 'tcp-check connect' : 'addr' : invalid port '99999'..",
        "tcp-check send | 'tcp-check send' : 'string' expects a send as argument.",
        "tcp-check send-binary | 'tcp-check send-binary' : 'binary string' expects a send-binary as argument.",
        "tcp-check send-binary abc | 'tcp-check send-binary' : 'abc' invalid binary string (an even number of hex digit is expected).",
        "tcp-check send-binary 4g | 'tcp-check send-binary' : '4g' invalid binary string (an hex digit is expected (found 'g')).",
        "tcp-check send x foo | 'tcp-check send' : expects 'comment' but got 'foo' as argument..",
        "tcp-check expect | 'tcp-check expect' : expects at least a matching pattern as arguments.",
        "tcp-check expect string | 'tcp-check expect' : 'string' expects a <pattern> as argument.",
        "tcp-check expect string a string b | 'tcp-check expect' : only on pattern expected.",
        "tcp-check expect status 200 | 'tcp-check expect' : 'only supports min-recv, '[!]binary', '[!]string', '[!]rstring', '[!]string-lf''[!]rbinary',"
                + " '[!]binary-lf' or comment but got 'status' as argument..",
        "tcp-check expect string x ! | 'tcp-check expect' : 'only supports min-recv, '[!]binary', '[!]string', '[!]rstring', '[!]string-lf''[!]rbinary',"
                + " '[!]binary-lf' or comment but got '' as argument..",
        "tcp-check expect min-recv -2 string a | 'tcp-check expect' : 'min-recv' expects -1 or an integer from 0 to INT_MAX.",
        "tcp-check expect min-recv | 'tcp-check expect' : 'min-recv' expects a integer as argument.",
        "tcp-check expect ! min-recv 3 string x | 'tcp-check expect' : [!] not supported with 'min-recv'.",
        "tcp-check expect ok-status L7STS string a | 'tcp-check expect' : 'ok-status' only supports 'L4OK', 'L6OK', 'L7OK' or 'L7OKC' status (got"
                + " 'L7STS')..",
        "tcp-check expect string a tout-status L7OK | 'tcp-check expect' : 'tout-status' only supports 'L4TOUT', 'L6TOUT' or 'L7TOUT' status (got"
                + " 'L7OK')..",
        "tcp-check expect string a on-success | 'tcp-check expect' : 'on-success' expects a string as argument.",
        "tcp-check expect string a status-code | 'tcp-check expect' : 'status-code' expects an expression as argument.",
        "tcp-check expect binary 0 | 'tcp-check expect' : invalid binary string (an even number of hex digit is expected).",
        "tcp-check foo | 'tcp-check' only supports 'comment', 'connect', 'send', 'send-binary', 'expect', 'set-var-fmt(*)', 'set-var(*)', 'unset-var(*)'."
                + " but got 'foo'",
        "tcp-check comment | 'tcp-check comment' : expects a string as argument.",
        "tcp-check set-var | 'tcp-check set-var' : 'set-var' : invalid or incomplete action 'set-var'. Expects 'set-var(<var-name>)',"
                + " 'set-var-fmt(<var-name>)' or 'unset-var(<var-name>)'.",
        "tcp-check set-var() int(1) | 'tcp-check set-var()' : 'set-var' : Empty variable name cannot be accepted.",
        "tcp-check set-var(x.y) int(1) | 'tcp-check set-var(x.y)' : 'set-var' : invalid variable name 'x.y'. A variable name must be start by its scope."
                + " The scope can be 'proc', 'sess', 'txn', 'req', 'res' or 'check'.",
        "tcp-check set-var(check.x) | 'tcp-check set-var(check.x)' : 'set-var' : missing fetch method.",
        "option redis-check x | 'option redis-check' cannot handle unexpected argument 'x'.",
        "option smtpchk a b c | 'option smtpchk' cannot handle unexpected argument 'c'.",
        "option pgsql-check | 'option pgsql-check' expects 'user <username>' as argument.",
        "option pgsql-check usr x | 'option pgsql-check' only supports optional values: 'user'.",
        "option mysql-check usr | 'option mysql-check' only supports optional values: 'user' (got 'usr').",
        "option mysql-check user | 'option mysql-check user' expects <username> as argument.",
        "option mysql-check user x post-42 | keyword 'user' only supports 'post-41' and 'pre-41' (got 'post-42').",
        "no option redis-check | negation/default is not supported for option 'redis-check'.",
    })
    void errorsAreHaproxys(String line, String message) {
        var r = parse(inBackend(line + "\nserver s1 127.0.0.1:1 check"));
        assertThat(errors(r)).singleElement().satisfies(d -> {
            assertThat(d.line()).isEqualTo(BACKEND_LINE);
            assertThat(d.message()).isEqualTo(message);
        });
    }

    @Test
    void theFirstConnectMustComeFirst() {
        var r = parse(inBackend("tcp-check set-var(check.x) int(1)\ntcp-check comment c\ntcp-check connect\ntcp-check send x\ntcp-check connect port 81"));
        assertThat(errors(r)).isEmpty();
        r = parse(inBackend("tcp-check send x\ntcp-check connect"));
        assertThat(errors(r)).singleElement().extracting(Diagnostic::message).isEqualTo("'tcp-check connect' : first step MUST also be a 'connect',"
                + " optionally preceded by a 'set-var', an 'unset-var' or a 'comment', when there is a 'connect' step in the tcp-check ruleset.");
    }

    @Test
    void aTlsConnectNeedsTheServersTlsSettings() {
        var r = parse(inBackend("option tcp-check\ntcp-check connect ssl\nserver s1 127.0.0.1:1 check"));
        assertThat(errors(r)).singleElement().satisfies(d -> {
            assertThat(d.line()).isEqualTo(BACKEND_LINE + 1);
            assertThat(d.message()).contains("server 'be/s1' has no 'ssl'");
        });
    }
}

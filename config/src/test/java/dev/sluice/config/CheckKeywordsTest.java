package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.HealthChecks;
import dev.sluice.config.model.HealthChecks.Expect;
import dev.sluice.config.model.ServerCheck;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Health checks: the server options, {@code option httpchk}, {@code http-check}, {@code timeout check}, {@code spread-checks}. */
class CheckKeywordsTest {

    private static ServerCheck check(String serverLine) {
        return backendOf(serverLine).servers().getFirst().check();
    }

    @Test
    void serversAreNotCheckedUnlessAsked() {
        assertThat(check("server s1 10.0.0.1:80")).isEqualTo(ServerCheck.DEFAULT);
        assertThat(ServerCheck.DEFAULT.enabled()).isFalse();
        assertThat(backendOf("server s1 10.0.0.1:80").checks()).isEqualTo(HealthChecks.NONE);
    }

    @Test
    void serverOptionsSetTheCheck() {
        ServerCheck c = check("server s1 10.0.0.1:80 check inter 5s fastinter 1s downinter 10s rise 3 fall 4 port 8081 addr 10.0.0.9 check-ssl"
                + " check-sni health.example");
        assertThat(c).isEqualTo(new ServerCheck(true, 5000, 1000, 10000, 3, 4, 8081, "10.0.0.9", true, "health.example"));
        ServerCheck p = check("server s1 10.0.0.1:80 check check-proto h2 check-alpn h2,http/1.1");
        assertThat(p.proto()).isEqualTo("h2");
        assertThat(p.alpn()).containsExactly("h2", "http/1.1");
        assertThat(check("server s1 10.0.0.1:80 check").alpn()).isEmpty();
        assertThat(c.redirected()).isTrue();
        assertThat(c.interval(true, false)).isEqualTo(5000);
        assertThat(c.interval(false, true)).isEqualTo(10000);
        assertThat(c.interval(false, false)).isEqualTo(1000);
        // fastinter and downinter fall back to inter
        ServerCheck d = check("server s1 10.0.0.1:80 check inter 3s");
        assertThat(d.interval(false, true)).isEqualTo(3000);
        assertThat(d.interval(false, false)).isEqualTo(3000);
        assertThat(d.redirected()).isFalse();
    }

    @Test
    void defaultServerPassesCheckOptionsOnAndNoCheckTakesThemBack() {
        var be = backendOf("default-server check inter 1s rise 1\nserver s1 10.0.0.1:80\nserver s2 10.0.0.2:80 no-check");
        assertThat(be.servers().get(0).check().enabled()).isTrue();
        assertThat(be.servers().get(0).check().inter()).isEqualTo(1000);
        assertThat(be.servers().get(0).check().rise()).isEqualTo(1);
        assertThat(be.servers().get(1).check().enabled()).isFalse();
    }

    @Test
    void httpchkTakesHaproxysThreeForms() {
        assertThat(backendOf("option httpchk").checks().http()).isEqualTo(HealthChecks.HttpCheck.DEFAULT);
        assertThat(backendOf("option httpchk /health").checks().http())
                .isEqualTo(new HealthChecks.HttpCheck("OPTIONS", "/health", "HTTP/1.0", List.of(), null, List.of()));
        assertThat(backendOf("option httpchk GET /health").checks().http())
                .isEqualTo(new HealthChecks.HttpCheck("GET", "/health", "HTTP/1.0", List.of(), null, List.of()));
        assertThat(backendOf("option httpchk HEAD /h HTTP/1.1").checks().http())
                .isEqualTo(new HealthChecks.HttpCheck("HEAD", "/h", "HTTP/1.1", List.of(), null, List.of()));
        assertThat(backendOf("option httpchk\nno option httpchk").checks().http()).isNull();
    }

    @Test
    void fieldsHiddenAfterTheVersionAreReadWithAWarning() {
        var r = parse(inBackend("option httpchk HEAD / HTTP/1.1\\r\\nHost:localhost\\r\\nX-A:b"));
        assertThat(Configs.warnings(r)).extracting(Diagnostic::message).containsExactly("'option httpchk' : hiding headers or body at the end of"
                + " the version string is deprecated. Please, consider to use 'http-check send' directive instead.");
        assertThat(Configs.proxy(r.config(), "be").checks().http()).isEqualTo(new HealthChecks.HttpCheck("HEAD", "/", "HTTP/1.1",
                List.of(new HealthChecks.Header("Host", "localhost"), new HealthChecks.Header("X-A", "b")), null, List.of()));
    }

    @Test
    void sendOverridesTheLineAndAddsFieldsAndABody() {
        HealthChecks.HttpCheck h = backendOf("option httpchk GET /a\nhttp-check send meth POST ver HTTP/1.1 hdr Host example.com hdr"
                + " Content-Length 9 body hello").checks().http();
        assertThat(h).isEqualTo(new HealthChecks.HttpCheck("POST", "/a", "HTTP/1.1", List.of(new HealthChecks.Header("Host", "example.com")),
                "hello", List.of()));
    }

    @Test
    void expectRulesParse() {
        List<Expect> e = backendOf("""
                option httpchk
                http-check expect status 200,201,300-310
                http-check expect ! rstatus ^5
                http-check expect comment "must say ok" string ok
                http-check expect !string stacktrace
                http-check expect rstring <!--tag:[0-9a-f]*--></html>
                http-check expect hdr name -m beg x-health value -m sub good
                http-check expect fhdr name set-cookie
                http-check expect error-status L7RSP ok-status l7okc tout-status L4TOUT min-recv 10 status 204
                http-check expect on-success up-%[res.hdr(x)] on-error "down %[status]" status-code int(299) hdr name-lf %[var(check.n)] value-lf -m beg %[var(check.v)]
                """).checks().http().expects();
        assertThat(e).hasSize(9);
        assertThat(e.get(8)).extracting(Expect::kind, Expect::nameLf, Expect::name, Expect::valueLf, Expect::valueMatch, Expect::value, Expect::onSuccess,
                Expect::onError, Expect::statusCode).containsExactly(Expect.Kind.HDR, true, "%[var(check.n)]", true, Expect.Match.BEG, "%[var(check.v)]",
                "up-%[res.hdr(x)]", "down %[status]", "int(299)");
        assertThat(e.get(0).kind()).isEqualTo(Expect.Kind.STATUS);
        assertThat(e.get(0).codes()).containsExactly(200, 200, 201, 201, 300, 310);
        assertThat(e.get(1).kind()).isEqualTo(Expect.Kind.RSTATUS);
        assertThat(e.get(1).inverse()).isTrue();
        assertThat(e.get(2).comment()).isEqualTo("must say ok");
        assertThat(e.get(2).pattern()).isEqualTo("ok");
        assertThat(e.get(3).inverse()).isTrue();
        assertThat(e.get(3).kind()).isEqualTo(Expect.Kind.STRING);
        assertThat(e.get(4).kind()).isEqualTo(Expect.Kind.RSTRING);
        assertThat(e.get(5)).extracting(Expect::kind, Expect::nameMatch, Expect::name, Expect::valueMatch, Expect::value)
                .containsExactly(Expect.Kind.HDR, Expect.Match.BEG, "x-health", Expect.Match.SUB, "good");
        assertThat(e.get(6)).extracting(Expect::kind, Expect::name, Expect::value).containsExactly(Expect.Kind.FHDR, "set-cookie", null);
        assertThat(e.get(7)).extracting(Expect::errorStatus, Expect::okStatus, Expect::timeoutStatus, Expect::minRecv)
                .containsExactly("L7RSP", "L7OKC", "L4TOUT", 10);
    }

    @Test
    void backendRulesReplaceTheDefaultsOnes() {
        var c = Configs.valid(Configs.DEFAULTS.replace("defaults\n", """
                defaults
                    option httpchk GET /d
                    option log-health-checks
                    http-check send hdr X-From defaults
                    http-check expect status 200
                    timeout check 2s
                """) + """
                backend a
                    http-check expect status 204
                backend b
                    no option log-health-checks
                """);
        HealthChecks a = Configs.proxy(c, "a").checks();
        assertThat(a.http().uri()).isEqualTo("/d");
        assertThat(a.http().headers()).isEmpty();
        assertThat(a.http().expects()).extracting(x -> x.codes()[0]).containsExactly(204);
        assertThat(a.log()).isTrue();
        HealthChecks b = Configs.proxy(c, "b").checks();
        assertThat(b.http().headers()).containsExactly(new HealthChecks.Header("X-From", "defaults"));
        assertThat(b.http().expects()).hasSize(1);
        assertThat(b.log()).isFalse();
        assertThat(Configs.proxy(c, "b").timeouts().check()).isEqualTo(2000);
    }

    @Test
    void stateAnd404Options() {
        HealthChecks h = backendOf("option httpchk\nhttp-check send-state\nhttp-check disable-on-404").checks();
        assertThat(h.sendState()).isTrue();
        assertThat(h.disableOn404()).isTrue();
    }

    @Test
    void spreadChecksIsAPercentage() {
        var c = Configs.valid("global\n    spread-checks 5\n" + Configs.DEFAULTS + "backend b\n    server s 10.0.0.1:80\n");
        assertThat(c.global().tune().spreadChecks()).isEqualTo(5);
        assertThat(parse("global\n    spread-checks 51\n").diagnostics()).extracting(Diagnostic::message)
                .anySatisfy(m -> assertThat(m).contains("spread-checks"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "server s1 10.0.0.1:80 check rise 0      => 'server' : server 's1' : 'rise' has to be > 0..",
            "server s1 10.0.0.1:80 check fall -1     => 'server' : server 's1' : 'fall' has to be > 0..",
            "server s1 10.0.0.1:80 check rise        => 'server' : server 's1' : 'rise' expects an integer argument..",
            "server s1 10.0.0.1:80 check inter 0     => 'server' : server 's1' : invalid value 0 for argument 'inter' of server s1..",
            "server s1 10.0.0.1:80 check fastinter   => 'server' : server 's1' : 'fastinter' expects a delay as argument..",
            "server s1 10.0.0.1:80 check inter abc   => 'server' : server 's1' : 'inter' :",
            "server s1 10.0.0.1:80 check port 70000  => 'server' : server 's1' : 'port' expects a valid TCP port (from 1 to 65535), got '70000'.",
            "server s1 10.0.0.1:80 check addr nope   => 'server' : server 's1' : 'addr' : invalid address: 'nope'",
            "server s1 10.0.0.1:80 check agent-check => 'server' : server s1 does not have agent port. Agent check has been disabled.",
            "server s1 10.0.0.1:80 check check-proto  => 'server' : server 's1' : 'check-proto' : missing value",
            "server s1 10.0.0.1:80 check check-proto h3 => 'server' : server 's1' : 'check-proto' :  unknown MUX protocol 'h3'",
            "server s1 10.0.0.1:80 check check-alpn h2,,x => 'server' : server 's1' : 'check-alpn' : invalid protocol list 'h2,,x'",
            "option httpchk GET / HTTP/1.1 extra     => 'option httpchk' cannot handle unexpected argument 'extra'.",
            "option httpchk GET / HTTP/2             => 'option httpchk' : invalid version 'HTTP/2'",
            "http-check expect status abc            => 'http-check expect' : invalid character 'a' in the list of status codes.",
            "http-check expect bogus 1               => 'http-check expect' : 'only supports min-recv, [!]string', '[!]rstring', '[!]string-lf', '[!]status', '[!]rstatus', [!]hdr, [!]fhdr or comment but got 'bogus' as argument..",
            "http-check expect rstatus (             => 'http-check expect' : regex '(' is invalid (error=missing closing parenthesis, erroffset=1).",
            "http-check expect rstring [a            => 'http-check expect' : regex '[a' is invalid (error=missing terminating ] for character class, erroffset=2).",
            "http-check expect rstring *a            => 'http-check expect' : regex '*a' is invalid (error=quantifier does not follow a repeatable item, erroffset=0).",
            "http-check expect rstring a{2,1}        => 'http-check expect' : regex 'a{2,1}' is invalid (error=numbers out of order in {} quantifier, erroffset=5).",
            "http-check expect hdr name -m reg a)    => 'http-check expect' : regex 'a)' is invalid (error=unmatched closing parenthesis, erroffset=1).",
            "`http-check expect rstring x\\`        => 'http-check expect' : regex 'x\\' is invalid (error=\\ at end of pattern, erroffset=2).",
            "http-check expect                       => 'http-check expect' : expects at least a matching pattern as arguments.",
            "http-check expect ok-status L7STS status 200 => 'http-check expect' : 'ok-status' only supports 'L4OK', 'L6OK', 'L7OK' or 'L7OKC' status (got 'L7STS')..",
            "http-check expect error-status L7OK status 200 => 'http-check expect' : 'error-status' only supports 'L4CON', 'L6RSP', 'L7RSP' or 'L7STS' status (got 'L7OK')..",
            "http-check expect tout-status L7RSP status 200 => 'http-check expect' : 'tout-status' only supports 'L4TOUT', 'L6TOUT' or 'L7TOUT' status (got 'L7RSP')..",
            "http-check expect hdr value x           => 'http-check expect' : 'hdr' expects at the name keyword as first argument followed by a pattern.",
            "http-check expect hdr name              => 'http-check expect' : 'hdr' expects at the name keyword as first argument followed by a pattern.",
            "http-check expect hdr name x -m         => 'http-check expect' : 'only supports min-recv, [!]string', '[!]rstring', '[!]string-lf', '[!]status', '[!]rstatus', [!]hdr, [!]fhdr or comment but got '-m' as argument..",
            "http-check expect hdr name -m           => 'http-check expect' : 'hdr' : '-m' expects at a matching pattern ('str', 'beg', 'end', 'sub' or 'reg').",
            "http-check expect fhdr name -m foo x    => 'http-check expect' : 'fhdr' : '-m' only supports 'str', 'beg', 'end', 'sub' or 'reg' (got 'foo').",
            "http-check expect hdr name-lf -m reg x  => 'http-check expect' : 'hdr': log-format string is not supported with a regex matching method.",
            "http-check expect hdr name x value      => 'http-check expect' : 'hdr' expect a pattern with the value keyword.",
            "http-check expect hdr name x value -m zz y => 'http-check expect' : 'hdr' : '-m' only supports 'str', 'beg', 'end', 'sub' or 'reg' (got 'zz').",
            "http-check expect hdr name x value-lf -m reg y => 'http-check expect' : 'hdr': log-format string is not supported with a regex matching method.",
            "http-check expect hdr name x value-lf %[var(check.x) => 'http-check expect' : 'x' invalid log-format string (missing ']' after 'var(check.x)').",
            "http-check expect ! on-success x status 200 => 'http-check expect' : [!] not supported with 'on-success'.",
            "http-check expect status 200 string x   => 'http-check expect' : only on pattern expected.",
            "http-check expect min-recv -2 status 200 => 'http-check expect' : 'min-recv' expects -1 or an integer from 0 to INT_MAX.",
            "http-check expect comment x             => 'http-check expect' : pattern not found.",
            "http-check expect status 300-200        => 'http-check expect' : invalid range of status codes '300-200'.",
            "http-check expect !                     => 'http-check expect' : 'only supports min-recv, [!]string', '[!]rstring', '[!]string-lf', '[!]status', '[!]rstatus', [!]hdr, [!]fhdr or comment but got '' as argument..",
            "http-check expect on-error %[var(check.x) status 200 => 'http-check expect' : '%[var(check.x)' invalid log-format string (missing ']' after 'var(check.x)').",
            "http-check expect on-success            => 'http-check expect' : 'on-success' expects a string as argument.",
            "http-check expect string-lf %[var(check.x) => 'http-check expect' : '%[var(check.x)' invalid log-format string (missing ']' after 'var(check.x)').",
            "http-check expect status 200 status-code => 'http-check expect' : 'status-code' expects an expression as argument.",
            "http-check send meth                    => 'http-check send' : 'meth' expects a string as argument..",
            "http-check send foo bar                 => 'http-check send' : expects 'comment', 'meth', 'uri', 'uri-lf', 'ver', 'hdr', 'body' or 'body-lf' but got 'foo' as argument..",
            "http-check send uri-lf /%[var(check.x)  => 'http-check send' : '/%[var(check.x)' invalid log-format string (missing ']' after 'var(check.x)').",
            "http-check set-var(check.x)             => 'http-check set-var(check.x)' : 'set-var' : missing fetch method.",
            "http-check set-var(foo) str(a)          => 'http-check set-var(foo)' : 'set-var' : invalid variable name 'foo'. A variable name must be start by its scope. The scope can be 'proc', 'sess', 'txn', 'req', 'res' or 'check'.",
            "http-check send-state now               => 'http-check' cannot handle unexpected argument 'now'.",
            "timeout check abc                       => 'timeout check' :",
            "server s1 10.0.0.1 check                => 'server' : server 's1' has neither service port nor check port.",
    })
    void errorsAreHaproxys(String line, String message) {
        assertThat(assertSingleError(parse(inBackend(line)), BACKEND_LINE, message).message()).startsWith(message);
    }

    @Test
    void httpCheckConnectSaysWhereAndHowTheCheckConnects() {
        var http = backendOf("option httpchk GET /s\nhttp-check comment reach\nhttp-check connect port 8081 ssl sni h.example\n"
                + "http-check send\nhttp-check comment status\nhttp-check expect status 200\nhttp-check expect ! string down").checks().http();
        assertThat(http.connect().port()).isEqualTo(8081);
        assertThat(http.connect().ssl()).isTrue();
        assertThat(http.connect().sni()).isEqualTo("h.example");
        // a comment goes to the following rules of one kind: the connect, then the two expects
        assertThat(http.connect().comment()).isEqualTo("reach");
        assertThat(http.expects()).extracting(HealthChecks.Expect::comment).containsExactly("status", "status");
        assertSingleError(parse(inBackend("option httpchk\nhttp-check connect\nhttp-check connect port 81")), BACKEND_LINE + 2,
                "'http-check connect' : unable to add http-check connect rule at step 2 (missing expect rule)..");
        assertSingleError(parse(inBackend("option httpchk\nhttp-check send uri /a\nhttp-check connect")), BACKEND_LINE + 2,
                "'http-check connect' : first step MUST also be a 'connect'");
        assertSingleError(parse(inBackend("option httpchk\nhttp-check connect\nhttp-check comment c\nhttp-check expect status 200")),
                BACKEND_LINE + 3, "'http-check expect' : unable to add http-check expect rule at step 3 (missing send rule)..");
        assertSingleError(parse(inBackend("option httpchk\nhttp-check connect proto quic")), BACKEND_LINE + 1,
                "'http-check connect' : 'proto' : invalid MUX protocol 'quic' for http-check.");
    }

    @Test
    void aConnectMayChooseHttp2() {
        var http = backendOf("option httpchk\nhttp-check connect proto h2\nhttp-check send uri /a\nhttp-check expect status 200").checks().http();
        // the rule list keeps the connection's protocol
        assertThat(http.multiStep()).isTrue();
        assertThat(http.steps().getFirst()).isInstanceOfSatisfying(HealthChecks.Connect.class, c -> assertThat(c.proto()).isEqualTo("h2"));
    }

    @Test
    void aSecondSendNeedsAConnectAsInHaproxy() {
        // HAProxy 2.6: one request per connection (haproxy -c says the same)
        assertSingleError(parse(inBackend("option httpchk\nhttp-check send uri /a\nhttp-check send uri /b")), BACKEND_LINE + 2,
                "'http-check send' : unable to add http-check send rule at step 2 (missing connect rule)..");
        assertSingleError(parse(inBackend("option httpchk\nhttp-check send uri /a\nhttp-check expect status 200\nhttp-check send uri /b")),
                BACKEND_LINE + 3, "'http-check send' : unable to add http-check send rule at step 3 (missing connect rule)..");
        assertSingleError(parse(inBackend("option httpchk\nhttp-check send uri /a\nhttp-check expect status 200\nhttp-check connect port 81")),
                BACKEND_LINE + 3, "'http-check connect' : first step MUST also be a 'connect'");
    }

    @Test
    void aMultiStepCheckIsItsRuleList() {
        var http = backendOf("option httpchk GET /opt HTTP/1.1\nhttp-check set-var(check.x) str(abc)\nhttp-check connect\n"
                + "http-check send uri-lf /a/%[var(check.x)] hdr x-v %[var(check.x)] hdr host h\nhttp-check expect status 200\n"
                + "http-check set-var-fmt(check.y) id-%[var(check.x)]\nhttp-check unset-var(check.x)\nhttp-check connect port 81\n"
                + "http-check send meth POST uri /b body-lf %[var(check.y)]\nhttp-check comment second\nhttp-check expect status 200").checks().http();
        assertThat(http.multiStep()).isTrue();
        assertThat(http.steps()).extracting(s -> s.getClass().getSimpleName()).containsExactly("Var", "Connect", "Request", "Expect", "Var", "Var",
                "Connect", "Request", "Expect");
        // the first request takes the option's method and version where its send does not say them; the second does not
        var first = (HealthChecks.Request) http.steps().get(2);
        assertThat(first.method()).isEqualTo("GET");
        assertThat(first.uri()).isEqualTo("/a/%[var(check.x)]");
        assertThat(first.uriLf()).isTrue();
        assertThat(first.version()).isEqualTo("HTTP/1.1");
        assertThat(first.headers()).extracting(HealthChecks.Header::value).containsExactly("%[var(check.x)]", "h");
        var second = (HealthChecks.Request) http.steps().get(7);
        assertThat(second.method()).isEqualTo("POST");
        assertThat(second.version()).isNull();
        assertThat(second.bodyLf()).isTrue();
        assertThat(((HealthChecks.Connect) http.steps().get(6)).rule().port()).isEqualTo(81);
        assertThat(((HealthChecks.Expect) http.steps().get(8)).comment()).isEqualTo("second");
        assertThat(((HealthChecks.Var) http.steps().get(5)).rule().value()).isNull();
    }

    @Test
    void aMultiStepCheckEndingWithASendGetsTheImplicitExpect() {
        var http = backendOf("option httpchk\nhttp-check connect\nhttp-check send uri /a\nhttp-check expect status 200\n"
                + "http-check connect port 81\nhttp-check send uri /b").checks().http();
        assertThat(http.steps().getLast()).isInstanceOfSatisfying(HealthChecks.Expect.class,
                e -> assertThat(e.codes()).containsExactly(200, 399));
        // a lone log-format value makes the single request a rule list too; the option's request is merged into it
        var lf = backendOf("option httpchk HEAD /x\nhttp-check send hdr x-a %[var(check.v)]").checks().http();
        assertThat(lf.steps()).extracting(s -> s.getClass().getSimpleName()).containsExactly("Request", "Expect");
        assertThat(((HealthChecks.Request) lf.steps().getFirst()).method()).isEqualTo("HEAD");
        // a string-lf expect renders its pattern from the check's variables: a rule list
        var slf = backendOf("option httpchk\nhttp-check set-var(check.v) str(up)\nhttp-check expect string-lf %[var(check.v)]").checks().http();
        assertThat(slf.steps()).extracting(s -> s.getClass().getSimpleName()).containsExactly("Var", "Request", "Expect");
        assertThat(((HealthChecks.Expect) slf.steps().getLast()).kind()).isEqualTo(HealthChecks.Expect.Kind.STRING_LF);
        // the single-step form stays as it was
        assertThat(backendOf("option httpchk\nhttp-check send uri /a\nhttp-check expect status 200").checks().http().multiStep()).isFalse();
    }
}

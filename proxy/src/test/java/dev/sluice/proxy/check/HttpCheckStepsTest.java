package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Backends;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.util.AsciiString;
import io.netty.channel.DefaultEventLoop;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Multi-step HTTP checks compiled: one segment per connection, the variable rules before and after each request, the
 * log-format values rendered from the check's variables, the expect rules of each response; the requests are built as
 * the single-step check builds its own (the regtest compares both with HAProxy 2.6's).
 */
class HttpCheckStepsTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    private static CheckPlan plan(String lines) {
        Backend be = Backends.of(lines + "\nserver s1 check");
        return new CheckPlan(be, "vm", 16384);
    }

    private static String render(HttpCheckSteps.Segment s, CheckSession session) {
        return new String(s.request().render(session, null), StandardCharsets.ISO_8859_1);
    }

    @Test
    void theRulesBecomeOneSegmentPerConnection() {
        CheckPlan p = plan("""
                option httpchk GET /opt HTTP/1.1
                http-check set-var(check.x) str(abc)
                http-check connect
                http-check send uri-lf /a/%[var(check.x)] hdr host h hdr x-v %[var(check.x)] hdr x-none %[var(check.nope)]
                http-check expect status 200
                http-check expect string ok
                http-check set-var-fmt(check.y) id-%[var(check.x)]
                http-check unset-var(check.x)
                http-check connect port 8081
                http-check send meth POST uri /b hdr x-x %[var(check.x)] body-lf b=%[var(check.y)]
                http-check expect status 200
                http-check connect port 8082
                http-check send
                """);
        HttpCheckSteps steps = p.httpSteps();
        assertThat(steps).isNotNull();
        assertThat(steps.size()).isEqualTo(3);
        HttpCheckSteps.Segment first = steps.segment(0);
        HttpCheckSteps.Segment second = steps.segment(1);
        assertThat(first.connect()).isNotNull();
        assertThat(first.connect().port()).isZero();
        assertThat(first.before()).extracting(TcpCheckPlan.SetVar::name).containsExactly("check.x");
        assertThat(first.after()).extracting(TcpCheckPlan.SetVar::name).containsExactly("check.y", "check.x");
        assertThat(first.expects().readsBody()).isTrue();
        assertThat(second.connect().port()).isEqualTo(8081);
        assertThat(second.before()).isEmpty();
        // the implicit expect of a list ending with a send: a 2xx or 3xx status
        assertThat(steps.segment(2).expects().evaluate(new Expectations.Response(302, "Found", List.of(), new byte[0]), true).status())
                .isEqualTo(CheckStatus.L7OK);
        assertThat(steps.segment(2).expects().evaluate(new Expectations.Response(500, "Boom", List.of(), new byte[0]), true).status())
                .isEqualTo(CheckStatus.L7STS);

        CheckSession s = new CheckSession("be", 16384);
        first.before().forEach(v -> TcpCheckRun.setVar(s, v));
        // a header whose value renders empty is left out, as HAProxy does
        assertThat(render(first, s)).isEqualTo("GET /a/abc HTTP/1.1\r\nhost: h\r\nx-v: abc\r\nconnection: close\r\n\r\n");
        first.after().forEach(v -> TcpCheckRun.setVar(s, v));
        assertThat(render(second, s)).isEqualTo("POST /b HTTP/1.0\r\ncontent-length: 8\r\n\r\nb=id-abc");
        // a later send takes HAProxy's defaults, not the option's line
        assertThat(render(steps.segment(2), s)).isEqualTo("OPTIONS / HTTP/1.0\r\n\r\n");
    }

    @Test
    void anEmptyUriIsTheRootAndTheSingleStepCheckStaysItsOwn() {
        CheckPlan p = plan("option httpchk\nhttp-check send uri-lf %[var(check.none)]");
        assertThat(render(p.httpSteps().segment(0), new CheckSession("be", 16384))).isEqualTo("OPTIONS / HTTP/1.0\r\n\r\n");
        assertThat(p.httpSteps().segment(0).connect()).isNull();
        CheckPlan single = plan("option httpchk GET /a HTTP/1.1\nhttp-check send hdr host h body x\nhttp-check expect status 200");
        assertThat(single.httpSteps()).isNull();
        HealthCheck c = new HealthCheck(single.backend().servers().getFirst(), single, loop, null, 0);
        // both ways of building a request agree
        assertThat(new String(single.request(c), StandardCharsets.ISO_8859_1)).isEqualTo(new String(CheckPlan.requestBytes("GET", "/a", "HTTP/1.1",
                List.of(new dev.sluice.config.model.HealthChecks.Header("host", "h")), "x", null), StandardCharsets.ISO_8859_1));
    }

    @Test
    void aStringLfExpectLooksForItsRenderedPatternInTheBody() {
        CheckPlan p = plan("option httpchk\nhttp-check set-var(check.v) str(up)\nhttp-check expect string-lf state=%[var(check.v)]\n"
                + "http-check expect ! string-lf %[var(check.none)] comment empty");
        HttpCheckSteps.Segment seg = p.httpSteps().segment(0);
        CheckSession s = new CheckSession("be", 16384);
        seg.before().forEach(v -> TcpCheckRun.setVar(s, v));
        assertThat(seg.expects().readsBody()).isTrue();
        Expectations.Outcome down = seg.expects().evaluate(new Expectations.Response(200, "OK", List.of(), "state=down".getBytes()), true, s);
        assertThat(down).isEqualTo(new Expectations.Outcome(CheckStatus.L7RSP, 200, "HTTP content check did not match"));
        // the pattern matched; the next one renders empty, which fails whatever the '!' says
        Expectations.Outcome up = seg.expects().evaluate(new Expectations.Response(200, "OK", List.of(), "x state=up".getBytes()), true, s);
        assertThat(up).isEqualTo(new Expectations.Outcome(CheckStatus.L7RSP, 200, "log-format string evaluated to an empty string comment: empty"));
    }

    @Test
    void samplesThatDoNotCompileAreReportedWhereTheyWereWritten() {
        var proxy = Backends.of("option httpchk\nhttp-check send hdr x-a %[nope()]\nserver s1 check").config();
        assertThat(TcpCheckPlan.problems(proxy)).singleElement().asString()
                .endsWith(": error: 'http-check send' : failed to parse sample expression <nope()]> : unknown fetch method 'nope'.");
    }

    /** Judges {@code status reason} with header fields {@code kv} in the first segment, its variables set, as CheckRun does. */
    private static String judge(CheckPlan p, int status, String reason, String... kv) {
        HttpCheckSteps.Segment seg = p.httpSteps().segment(0);
        CheckSession s = new CheckSession("be", 16384);
        seg.before().forEach(v -> TcpCheckRun.setVar(s, v));
        HttpFields f = new HttpFields();
        List<String[]> fields = new java.util.ArrayList<>();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            f.add(kv[i], kv[i + 1]);
            fields.add(new String[] {kv[i].toLowerCase(java.util.Locale.ROOT), kv[i + 1]});
        }
        s.response(new ResponseHead(HttpVersion.HTTP_1_1, status, AsciiString.of(reason), f));
        Expectations.Outcome o = seg.expects().evaluate(new Expectations.Response(status, reason, fields, new byte[0]), true, s);
        return o.status().info() + " " + o.code() + " [" + o.desc() + "]";
    }

    @Test
    void onSuccessOnErrorAndStatusCodeMakeTheChecksMessageAndCode() {
        CheckPlan p = plan("""
                option httpchk
                http-check set-var(check.app) str(shop)
                http-check expect status 200,503 on-error "not up: %[status] %[res.hdr(x-why)]" status-code int(599) comment first
                http-check expect hdr name x-state value -m beg up on-success "%[var(check.app)] is %[res.hdr(x-state)]" status-code res.hdr(x-code)
                """);
        // the last rule's on-success and status-code when all pass (res.hdr: the last value of the list)
        assertThat(judge(p, 200, "OK", "X-State", "up, fine", "X-Code", "242")).isEqualTo("L7OK 242 [shop is fine]");
        // a status-code that gives no integer leaves the response's status
        assertThat(judge(p, 503, "Busy", "X-State", "upgrading")).isEqualTo("L7OK 503 [shop is upgrading]");
        // the failing rule's on-error replaces the reason phrase, its comment follows, its status-code is the code
        assertThat(judge(p, 500, "Boom", "X-Why", "db")).isEqualTo("L7STS 599 [not up: 500 db comment: first]");
        // a failing rule without on-error: the reason phrase, and the response's status
        assertThat(judge(p, 200, "OK", "X-State", "down")).isEqualTo("L7STS 200 [OK]");
    }

    @Test
    void headerPatternsMayBeLogFormatStrings() {
        CheckPlan p = plan("""
                option httpchk
                http-check set-var(check.n) str(x-build)
                http-check set-var(check.v) str(2026)
                http-check expect hdr name-lf %[var(check.n)] value-lf -m end %[var(check.v)] error-status L7RSP on-error bad-build
                http-check expect fhdr name-lf %[var(check.none)] comment empty
                """);
        assertThat(judge(p, 200, "OK", "X-Build", "1.0-2025")).isEqualTo("L7RSP 200 [bad-build]");
        // the name matched, its value too; the next name renders empty: L7RSP with HAProxy's words, not the error-status
        assertThat(judge(p, 200, "OK", "X-Build", "1.0-2026")).isEqualTo("L7RSP 200 [log-format string evaluated to an empty string comment: empty]");
    }

    @Test
    void expectSamplesThatDoNotCompileAreReportedOnTheirLine() {
        var proxy = Backends.of("option httpchk\nhttp-check send uri /a\nhttp-check expect status 200\n"
                + "http-check expect status 200 status-code req.hdr(host)\nhttp-check expect status 200 on-success %[nope]\nserver s1 check").config();
        assertThat(TcpCheckPlan.problems(proxy)).hasSize(1).first().asString()
                .endsWith(":13: error: 'http-check expect' : error detected while parsing status-code expression :  fetch method 'req.hdr(host)'"
                        + " extracts information from 'HTTP request headers', none of which is available here.");
        var second = Backends.of("option httpchk\nhttp-check expect status 200 on-success %[nope]\nserver s1 check").config();
        assertThat(TcpCheckPlan.problems(second)).singleElement().asString()
                .endsWith(":11: error: 'http-check expect' : '%[nope]' invalid log-format string (failed to parse sample expression <nope]> :"
                        + " unknown fetch method 'nope').");
    }

    @Test
    void variablesAfterAnExpectReadTheResponse() {
        CheckPlan p = plan("option httpchk\nhttp-check send uri /a\nhttp-check expect status 200\nhttp-check set-var(check.v) res.hdr(x-v)");
        HttpCheckSteps.Segment seg = p.httpSteps().segment(0);
        CheckSession s = new CheckSession("be", 16384);
        HttpFields f = new HttpFields();
        f.add("x-v", "seen");
        s.response(new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), f));
        seg.after().forEach(v -> TcpCheckRun.setVar(s, v));
        assertThat(CheckSamples.text(s.vars().get("check.v"))).isEqualTo("seen");
    }
}

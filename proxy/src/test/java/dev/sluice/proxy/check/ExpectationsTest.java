package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Backends;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code http-check expect} rules judged as HAProxy 2.6 judges them: statuses, descriptions, comments. */
class ExpectationsTest {

    private static Expectations rules(String lines) {
        return Expectations.of(Backends.of("option httpchk\n" + lines + "\nserver s1 check").config().checks());
    }

    private static Expectations.Response response(int status, String reason, String body, String... fields) {
        List<String[]> f = new java.util.ArrayList<>();
        for (int i = 0; i + 1 < fields.length; i += 2) {
            f.add(new String[] {fields[i], fields[i + 1]});
        }
        return new Expectations.Response(status, reason, f, body.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String judge(Expectations e, Expectations.Response r) {
        Expectations.Outcome o = e.evaluate(r, true);
        return o.status().info() + " " + o.code() + " [" + o.desc() + "]";
    }

    @Test
    void withoutRulesA2xxOr3xxPasses() {
        Expectations e = rules("");
        assertThat(e.readsBody()).isFalse();
        assertThat(judge(e, response(200, "OK", ""))).isEqualTo("L7OK 200 []");
        assertThat(judge(e, response(302, "Found", ""))).isEqualTo("L7OK 302 []");
        assertThat(judge(e, response(404, "File not found", ""))).isEqualTo("L7STS 404 [File not found]");
        assertThat(judge(e, response(500, "Internal Error", ""))).isEqualTo("L7STS 500 [Internal Error]");
        assertThat(judge(e, response(199, "", ""))).isEqualTo("L7STS 199 []");
    }

    @Test
    void statusListsRangesAndRegexes() {
        Expectations e = rules("http-check expect status 200,204,300-310");
        assertThat(judge(e, response(204, "No Content", ""))).isEqualTo("L7OK 204 []");
        assertThat(judge(e, response(305, "x", ""))).isEqualTo("L7OK 305 []");
        assertThat(judge(e, response(201, "Created", ""))).isEqualTo("L7STS 201 [Created]");
        Expectations notFive = rules("http-check expect ! rstatus ^5");
        assertThat(judge(notFive, response(404, "Not Found", ""))).isEqualTo("L7OK 404 []");
        assertThat(judge(notFive, response(503, "Unavailable", ""))).isEqualTo("L7STS 503 [Unavailable]");
    }

    @Test
    void bodyRulesReadTheBody() {
        Expectations e = rules("http-check expect string statusXok");
        assertThat(e.readsBody()).isTrue();
        assertThat(judge(e, response(200, "OK", "<p>statusXok</p>"))).isEqualTo("L7OK 200 []");
        assertThat(judge(e, response(200, "OK", "nope"))).isEqualTo("L7RSP 200 [HTTP content check did not match]");
        assertThat(judge(e, response(200, "OK", ""))).isEqualTo("L7RSP 200 [HTTP content check could not find a response body]");
        Expectations unwanted = rules("http-check expect ! string fail comment another");
        assertThat(judge(unwanted, response(500, "Internal Error", "fail"))).isEqualTo("L7RSP 500 [HTTP check matched unwanted content comment: another]");
        assertThat(judge(unwanted, response(200, "OK", "fine"))).isEqualTo("L7OK 200 []");
        Expectations tag = rules("http-check expect rstring <!--tag:[0-9a-f]*--></html>");
        assertThat(judge(tag, response(200, "OK", "x\n<!--tag:00ff--></html>"))).isEqualTo("L7OK 200 []");
        assertThat(judge(tag, response(200, "OK", "<!--tag:zz--></html>"))).isEqualTo("L7RSP 200 [HTTP content check did not match]");
    }

    @Test
    void headerRulesMatchNamesWithoutCaseAndValuesAsLists() {
        Expectations e = rules("http-check expect hdr name x-health value good");
        assertThat(judge(e, response(200, "OK", "", "X-Health", "good"))).isEqualTo("L7OK 200 []");
        assertThat(judge(e, response(200, "OK", "", "x-health", "bad, good"))).isEqualTo("L7OK 200 []");
        assertThat(judge(e, response(500, "Internal Error", "", "x-other", "good"))).isEqualTo("L7STS 500 [Internal Error]");
        Expectations full = rules("http-check expect fhdr name x-health value good");
        assertThat(judge(full, response(200, "OK", "", "x-health", "bad, good"))).isEqualTo("L7STS 200 [OK]");
        Expectations present = rules("http-check expect hdr name -m beg set-");
        assertThat(judge(present, response(200, "OK", "", "set-cookie", "a=1"))).isEqualTo("L7OK 200 []");
        Expectations sub = rules("http-check expect hdr name -m reg ^x-h.*h$ value -m sub goo");
        assertThat(judge(sub, response(200, "OK", "", "x-health", "so good"))).isEqualTo("L7OK 200 []");
        assertThat(judge(sub, response(200, "OK", "", "x-health", "so bad"))).isEqualTo("L7STS 200 [OK]");
    }

    @Test
    void everyRuleMustPassAndTheFirstFailureTells() {
        Expectations e = rules("http-check expect status 200\nhttp-check expect comment \"my comment\" string ok");
        assertThat(judge(e, response(500, "Internal Error", "ok"))).isEqualTo("L7STS 500 [Internal Error]");
        assertThat(judge(e, response(200, "OK", "ko"))).isEqualTo("L7RSP 200 [HTTP content check did not match comment: my comment]");
        assertThat(judge(e, response(200, "OK", "ok"))).isEqualTo("L7OK 200 []");
    }

    @Test
    void statusOptionsReplaceTheDefaults() {
        Expectations e = rules("http-check expect error-status L4CON ok-status L7OKC status 200");
        assertThat(judge(e, response(500, "Internal Error", ""))).isEqualTo("L4CON 500 [Internal Error]");
        assertThat(judge(e, response(200, "OK", ""))).isEqualTo("L7OKC 200 []");
    }

    @Test
    void disableOn404PassesConditionallyWhileTheServerRuns() {
        Expectations e = rules("http-check disable-on-404\nhttp-check expect status 200");
        assertThat(e.evaluate(response(404, "Not Found", ""), true).status()).isEqualTo(CheckStatus.L7OKC);
        assertThat(e.evaluate(response(404, "Not Found", ""), false).status()).isEqualTo(CheckStatus.L7STS);
        assertThat(e.evaluate(response(200, "OK", ""), true).status()).isEqualTo(CheckStatus.L7OK);
    }
}

package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.AclExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fetches and matchers that read values in place ({@code hdr}, {@code hdr_cnt}, {@code base}, {@code url_param},
 * {@code -m dom|dir|reg}) give what the string-building code they replaced gave. The cookie fetches are
 * CookieFetchTest's.
 */
class ValueFetchesTest {

    static String sample(FakeTxn t, String expr) {
        Object v = RuleCompiler.sample(expr).get(t);
        return v == null ? null : Samples.str(v).toString();
    }

    static boolean acl(FakeTxn t, String fetch, List<String> flags, String... patterns) {
        return RuleCompiler.acl(new AclExpr(fetch, flags, List.of(patterns))).test(t);
    }

    @Test
    void proxyProtocolFetchesReadTheReceivedHeader() {
        FakeTxn t = new FakeTxn("GET", "/");
        assertThat(sample(t, "fc_rcvd_proxy")).isEqualTo("0");
        assertThat(sample(t, "fc_pp_authority")).isNull();
        assertThat(sample(t, "fc_pp_unique_id")).isNull();
        t.proxyHeader = new dev.sluice.proxy.listener.ProxyHeader.Received(40, null, null, "example.com",
                "id-\u00e9".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertThat(sample(t, "fc_rcvd_proxy")).isEqualTo("1");
        assertThat(sample(t, "fc_pp_authority")).isEqualTo("example.com");
        assertThat(sample(t, "fc_pp_unique_id")).isEqualTo("id-\u00e9");
        t.proxyHeader = new dev.sluice.proxy.listener.ProxyHeader.Received(16, null, null, null, null);
        assertThat(sample(t, "fc_rcvd_proxy")).isEqualTo("1");
        assertThat(sample(t, "fc_pp_unique_id")).isNull();
    }

    @Test
    void aCommaInsideAQuotedStringDoesNotSplitAValue() {
        // HAProxy's http_find_hdr_value_end: quotes, and a backslash pair inside them
        FakeTxn t = new FakeTxn("GET", "/", "x-q", "a, \"b,c\", d", "x-q", "\"e\\\",f\", g", "x-r", "\"h\\\\\",i");
        assertThat(sample(t, "req.hdr_cnt(x-q)")).isEqualTo("5");
        assertThat(sample(t, "req.hdr(x-q,2)")).isEqualTo("\"b,c\"");
        assertThat(sample(t, "req.hdr(x-q,4)")).isEqualTo("\"e\\\",f\"");
        assertThat(sample(t, "req.hdr(x-q,-1)")).isEqualTo("g");
        assertThat(sample(t, "req.hdr_cnt(x-r)")).isEqualTo("2");
        assertThat(sample(t, "req.hdr(x-r,2)")).isEqualTo("i");
        assertThat(acl(t, "req.hdr(x-q)", List.of(), "\"b,c\"")).isTrue();
        assertThat(acl(t, "req.hdr(x-q)", List.of(), "c\"")).isFalse();
    }

    @Test
    void headerOccurrencesAndCounts() {
        FakeTxn t = new FakeTxn("GET", "/", "x-m", "1, 2", "x-m", " 3 ", "X-N", "", "x-m", "4,", "accept", "a/b");
        assertThat(sample(t, "req.hdr(x-m)")).isEqualTo("");
        assertThat(sample(t, "req.hdr(x-m,1)")).isEqualTo("1");
        assertThat(sample(t, "req.hdr(x-m,3)")).isEqualTo("3");
        assertThat(sample(t, "req.hdr(x-m,-2)")).isEqualTo("4");
        assertThat(sample(t, "req.hdr(x-m,-5)")).isEqualTo("1");
        assertThat(sample(t, "req.hdr(x-m,6)")).isNull();
        assertThat(sample(t, "req.hdr(x-m,-6)")).isNull();
        assertThat(sample(t, "req.fhdr(x-m)")).isEqualTo("4,");
        assertThat(sample(t, "req.fhdr(x-m,-3)")).isEqualTo("1, 2");
        assertThat(sample(t, "req.hdr(x-n)")).isEqualTo("");
        assertThat(sample(t, "req.hdr(nope)")).isNull();
        assertThat(sample(t, "hdr_cnt(x-m)")).isEqualTo("5");
        assertThat(sample(t, "req.fhdr_cnt(x-m)")).isEqualTo("3");
        assertThat(sample(t, "hdr_cnt(nope)")).isEqualTo("0");
        assertThat(sample(t, "hdr_cnt")).isEqualTo("7");
        assertThat(acl(t, "hdr(x-m)", List.of(), "3")).isTrue();
        assertThat(acl(t, "hdr(x-m)", List.of("-m", "int"), "gt", "3")).isTrue();
    }

    @Test
    void baseIsTheHostThenThePath() {
        FakeTxn t = new FakeTxn("GET", "/a/b?x=1", "host", "Www.Example.com");
        assertThat(sample(t, "base")).isEqualTo("Www.Example.com/a/b");
        assertThat(sample(t, "base,lower")).isEqualTo("www.example.com/a/b");
        assertThat(sample(t, "base,len")).isEqualTo("19");
        assertThat(acl(t, "base_beg", List.of("-i"), "www.example.com/a")).isTrue();
        assertThat(acl(t, "base_reg", List.of(), "^Www[.]Example[.]com/a/b$")).isTrue();
        assertThat(acl(t, "base", List.of(), "Www.Example.com/a/b")).isTrue();
        assertThat(acl(t, "base_sub", List.of(), "com/a")).isTrue();
        FakeTxn noHost = new FakeTxn("GET", "/only?q");
        assertThat(sample(noHost, "base")).isEqualTo("/only");
    }

    @Test
    void urlParamOccurrences() {
        FakeTxn t = new FakeTxn("GET", "/p?a=7&b&a=9&ab=1&=z&a");
        assertThat(sample(t, "url_param(a)")).isEqualTo("7");
        assertThat(sample(t, "url_param(b)")).isEqualTo("");
        assertThat(sample(t, "url_param(ab)")).isEqualTo("1");
        assertThat(sample(t, "url_param(c)")).isNull();
        assertThat(acl(t, "url_param(a)", List.of("-m", "int"), "9")).isTrue();
        assertThat(acl(t, "url_param(a)", List.of("-m", "found"))).isTrue();
        assertThat(sample(new FakeTxn("GET", "/p;a=1;b=2"), "url_param(b,;)")).isNull();
        assertThat(sample(new FakeTxn("GET", "/p?x;a=1;b=2"), "url_param(b,;)")).isEqualTo("2");
        assertThat(sample(new FakeTxn("GET", "/p"), "url_param(a)")).isNull();
    }

    @Test
    void domainsAndDirectoriesInPlace() {
        FakeTxn t = new FakeTxn("GET", "/img/Logo/x.png?d=1", "host", "WWW.Example.COM:8080");
        assertThat(acl(t, "hdr_dom(host)", List.of("-i"), "example.com")).isTrue();
        assertThat(acl(t, "hdr_dom(host)", List.of(), "example.com")).isFalse();
        assertThat(acl(t, "hdr_dom(host)", List.of(), "Example.COM")).isTrue();
        assertThat(acl(t, "hdr_dom(host)", List.of("-i"), ".example.com.", "8080")).isTrue();
        assertThat(acl(t, "hdr_dom(host)", List.of("-i"), "ample.com")).isFalse();
        assertThat(acl(t, "hdr_dom(host)", List.of("-i"), "..")).isFalse();
        assertThat(acl(t, "path_dir", List.of(), "logo")).isFalse();
        assertThat(acl(t, "path_dir", List.of("-i"), "logo")).isTrue();
        assertThat(acl(t, "path_dir", List.of(), "/img/Logo/")).isTrue();
        assertThat(acl(t, "path_dir", List.of(), "x.png")).isTrue();
        assertThat(acl(t, "path_dir", List.of(), "img/L")).isFalse();
        assertThat(acl(t, "url_dir", List.of(), "d=1")).isTrue();
    }

    @Test
    void regexesWithAMatcherPerThread() throws Exception {
        FakeTxn t = new FakeTxn("GET", "/legacy/items/42", "user-agent", "Mozilla Googlebot/2.1");
        Acl legacy = RuleCompiler.acl(new AclExpr("path_reg", List.of(), List.of("^/(old|legacy)/[a-z]+/[0-9]+$")));
        Acl bot = RuleCompiler.acl(new AclExpr("hdr_reg(user-agent)", List.of("-i"), List.of("BOT/\\d", "crawler")));
        assertThat(legacy.test(t)).isTrue();
        assertThat(bot.test(t)).isTrue();
        assertThat(legacy.test(new FakeTxn("GET", "/legacy/items/x"))).isFalse();
        // the same compiled ACL on other threads at once
        List<Thread> threads = new ArrayList<>();
        boolean[] wrong = new boolean[1];
        for (int i = 0; i < 4; i++) {
            int n = i;
            Thread th = new Thread(() -> {
                FakeTxn yes = new FakeTxn("GET", "/old/a/" + n);
                FakeTxn no = new FakeTxn("GET", "/old/a/b" + n);
                for (int k = 0; k < 20000; k++) {
                    if (!legacy.test(yes) || legacy.test(no)) {
                        wrong[0] = true;
                    }
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertThat(wrong[0]).isFalse();
    }
}

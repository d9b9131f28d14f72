package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.AclExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fetches and matchers that read values in place ({@code cook}, {@code hdr}, {@code hdr_cnt}, {@code base},
 * {@code url_param}, {@code -m dom|dir|reg}) give what the string-building code they replaced gave: the old
 * cookie splitting is kept here as the reference and compared on random and awkward field values.
 */
class ValueFetchesTest {

    static String sample(FakeTxn t, String expr) {
        Object v = RuleCompiler.sample(expr).get(t);
        return v == null ? null : Samples.str(v).toString();
    }

    static boolean acl(FakeTxn t, String fetch, List<String> flags, String... patterns) {
        return RuleCompiler.acl(new AclExpr(fetch, flags, List.of(patterns))).test(t);
    }

    /** The values the former code found for cookie {@code name} (null: all) in request cookie fields. */
    static List<String> reference(List<String> fields, String name) {
        List<String> out = new ArrayList<>();
        for (String v : fields) {
            for (String c : v.split(";")) {
                String kv = c.trim();
                int eq = kv.indexOf('=');
                String k = eq < 0 ? kv : kv.substring(0, eq);
                if (name == null || k.equals(name)) {
                    out.add(eq < 0 ? "" : kv.substring(eq + 1));
                }
            }
        }
        return out;
    }

    static FakeTxn withCookies(List<String> fields) {
        String[] f = new String[fields.size() * 2 + 2];
        f[0] = "host";
        f[1] = "h";
        for (int i = 0; i < fields.size(); i++) {
            f[2 + 2 * i] = "cookie";
            f[3 + 2 * i] = fields.get(i);
        }
        return new FakeTxn("GET", "/", f);
    }

    static void sameAsBefore(List<String> fields) {
        FakeTxn t = withCookies(fields);
        for (String name : new String[] {null, "a", "sid", "", "b c"}) {
            List<String> ref = reference(fields, name);
            String expr = name == null ? "req.cook" : "req.cook(" + name + ")";
            if (name != null && (name.isEmpty() || name.contains(" "))) {
                // no way to write those as an argument: the fetch object is built directly
                Fetch c = new Fetches.Cookie(false, name);
                Object v = c.get(t);
                assertThat(v == null ? null : v.toString()).as("%s in %s", name, fields).isEqualTo(ref.isEmpty() ? null : ref.getLast());
                continue;
            }
            assertThat(sample(t, expr)).as("%s in %s", expr, fields).isEqualTo(ref.isEmpty() ? null : ref.getLast());
            String cnt = name == null ? "cook_cnt" : "cook_cnt(" + name + ")";
            assertThat(sample(t, cnt)).as("%s in %s", cnt, fields).isEqualTo(Integer.toString(ref.size()));
            List<String> offered = new ArrayList<>();
            RuleCompiler.sample(expr).any(t, v -> {
                offered.add(v.toString());
                return false;
            });
            assertThat(offered).as("values of %s in %s", expr, fields).isEqualTo(ref);
        }
    }

    @Test
    void requestCookiesAsTheFormerSplitting() {
        for (String v : new String[] {"a=1; sid=xyz", "a=1;sid=xyz;", "a=1;;sid=2", ";a=1", ";;", ";", "", " ", "a", "a=", "=x", "a =1; a= 2 ;a",
            "sid=1; sid=2", "a=1; ; ", " a=1 ;\tsid=x y ", "a=b=c", "x; a=1;", "\u00e9=1; a=\u00e9"}) {
            sameAsBefore(List.of(v));
        }
        sameAsBefore(List.of("a=1", "sid=2; a=3", ""));
        Random r = new Random(7);
        String alphabet = "as=; \tid=";
        for (int i = 0; i < 3000; i++) {
            List<String> fields = new ArrayList<>();
            for (int n = r.nextInt(3) + 1; n > 0; n--) {
                StringBuilder sb = new StringBuilder();
                for (int k = r.nextInt(12); k > 0; k--) {
                    sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
                }
                fields.add(sb.toString());
            }
            sameAsBefore(fields);
        }
    }

    @Test
    void responseCookieIsTheFirstSetCookieBeforeItsAttributes() {
        FakeTxn t = new FakeTxn("GET", "/");
        t.response = new dev.sluice.proxy.http.ResponseHead(dev.sluice.proxy.http.HttpVersion.HTTP_1_1, 200,
                io.netty.util.AsciiString.of("OK"), new dev.sluice.proxy.http.HttpFields());
        t.response.fields().add("set-cookie", "SRV=s1; Path=/; HttpOnly");
        t.response.fields().add("set-cookie", "sid= abc ; Max-Age=3");
        t.response.fields().add("set-cookie", "SRV=s2");
        assertThat(sample(t, "res.cook(SRV)")).isEqualTo("s1");
        // the value as it was before: spaces after "=" are kept
        assertThat(sample(t, "res.cook(sid)")).isEqualTo(" abc");
        assertThat(sample(t, "res.cook(Path)")).isNull();
        assertThat(sample(t, "res.cook")).isEqualTo("s1");
        assertThat(acl(t, "res.cook(SRV)", List.of(), "s2")).isTrue();
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

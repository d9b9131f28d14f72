package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.Status;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The persistence cookie's request and response handling, byte for byte as HAProxy 2.6 (the expected values are what
 * haproxy 2.6.12 forwarded and answered for the same cookies; the regtest CookiePersistenceTest compares live).
 */
class PersistenceCookieTest {
    /** 2026-12-04T14:43:20Z, the epoch second the dates below were taken at. */
    private static final long NOW = 1796395400L;

    private static Backend backend(String cookie) {
        return Backends.of(cookie + "\nserver s1 cookie a1\nserver s2 cookie a2\nserver s3");
    }

    private static RequestHead request(String method, String... cookies) {
        HttpFields f = new HttpFields();
        f.add("host", "t");
        for (String c : cookies) {
            f.add("cookie", c);
        }
        return new RequestHead(new AsciiString(method), new AsciiString("/"), HttpVersion.HTTP_1_1, f);
    }

    private static List<String> cookies(HttpFields f, String name) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < f.size(); i++) {
            if (f.name(i).contentEquals(name)) {
                out.add(f.value(i).toString());
            }
        }
        return out;
    }

    /** Runs the request side; returns the chosen server's name (or null) and what the server would see. */
    private static String request(Backend be, PersistenceCookie.Txn t, String... cookies) {
        RequestHead r = request("GET", cookies);
        Server s = be.cookie().request(r.fields(), t, be.servers(), NOW, false, false);
        return (s == null ? "-" : s.name()) + " " + t.clientFlag() + " " + cookies(r.fields(), "cookie");
    }

    @Test
    void insertIndirectRemovesOnlyItsCookie() {
        Backend be = backend("cookie SRV insert indirect nocache");
        assertThat(request(be, new PersistenceCookie.Txn())).isEqualTo("- N []");
        assertThat(request(be, new PersistenceCookie.Txn(), "a=1; SRV=a2; b=2")).isEqualTo("s2 V [a=1; b=2]");
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2")).isEqualTo("s2 V []");
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a1; a=1")).isEqualTo("s1 V [a=1]");
        assertThat(request(be, new PersistenceCookie.Txn(), "a=1;SRV=a1")).isEqualTo("s1 V [a=1]");
        assertThat(request(be, new PersistenceCookie.Txn(), "a = 1 ;  SRV = a1 ; b=2")).isEqualTo("s1 V [a=1; b=2]");
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=bad")).isEqualTo("- I []");
        assertThat(request(be, new PersistenceCookie.Txn(), "other=a1", "SRV=a2")).isEqualTo("s2 V [other=a1]");
        // an empty value designates nobody (a server without cookie would otherwise match it)
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=")).isEqualTo("- I []");
    }

    @Test
    void withoutIndirectTheServerSeesTheCookie() {
        Backend be = backend("cookie SRV insert");
        assertThat(request(be, new PersistenceCookie.Txn(), "a=1; SRV=a2")).isEqualTo("s2 V [a=1; SRV=a2]");
        assertThat(request(backend("cookie SRV"), new PersistenceCookie.Txn(), "SRV=a1")).isEqualTo("s1 V [SRV=a1]");
    }

    @Test
    void prefixModeStripsTheServersPart() {
        Backend be = backend("cookie JSESSIONID prefix");
        assertThat(request(be, new PersistenceCookie.Txn(), "JSESSIONID=a2~abc")).isEqualTo("s2 V [JSESSIONID=abc]");
        assertThat(request(be, new PersistenceCookie.Txn(), "x=1; JSESSIONID=a1~q; y=2")).isEqualTo("s1 V [x=1; JSESSIONID=q; y=2]");
        assertThat(request(be, new PersistenceCookie.Txn(), "JSESSIONID=abc")).isEqualTo("- I [JSESSIONID=abc]");
    }

    @Test
    void aDownServersCookieIsFlaggedAndBalanced() {
        Backend be = backend("cookie SRV insert indirect");
        Backends.server(be, "s2").setUp(false);
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2")).isEqualTo("- D []");
        Backends.server(be, "s2").setUp(true);
        // draining, weight 0, maintenance: only maintenance stops persistence
        Backends.server(be, "s2").adminState(Server.FORCED_DRAIN);
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2")).isEqualTo("s2 V []");
        Backends.server(be, "s2").adminState(Server.FORCED_MAINT);
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2")).isEqualTo("- D []");
    }

    @Test
    void datesExpireTheCookie() {
        Backend be = backend("cookie SRV insert indirect maxidle 30m maxlife 8h");
        PersistenceCookie.Txn t = new PersistenceCookie.Txn();
        // 'axLRi' is NOW rounded as HAProxy stores it; AAAAB is 4 seconds after the epoch
        assertThat(request(be, t, "SRV=a2|axLRi|axLRi")).isEqualTo("s2 V []");
        assertThat(t.lastDate).isEqualTo(1796395400L);
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2|AAAAB")).isEqualTo("- E []");
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2|axLRi|AAAAB")).isEqualTo("- O []");
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2|bxLRi")).isEqualTo("- E []");
        // a date of 0 is no date: accepted
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2|AAAAA|AAAAA")).isEqualTo("s2 V []");
        assertThat(request(be, new PersistenceCookie.Txn(), "SRV=a2|ax")).isEqualTo("s2 V []");
    }

    private static String response(Backend be, PersistenceCookie.Txn t, String server, boolean direct, String method, int status,
            String... fields) {
        HttpFields f = new HttpFields();
        for (int i = 0; i < fields.length; i += 2) {
            f.add(fields[i], fields[i + 1]);
        }
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, status, Status.reason(status), f);
        be.cookie().response(h, t, server == null ? null : Backends.server(be, server), direct, request(method), NOW, false);
        return t.serverFlag() + " " + f.toString().replace("\n", "|");
    }

    @Test
    void insertAddsTheCookieAndRemovesTheServersOwn() {
        Backend be = backend("cookie SRV insert indirect nocache");
        assertThat(response(be, new PersistenceCookie.Txn(), "s1", false, "GET", 200)).isEqualTo("I set-cookie: SRV=a1; path=/|");
        assertThat(response(be, new PersistenceCookie.Txn(), "s2", false, "GET", 200, "set-cookie", "SRV=zz", "x-a", "1"))
                .isEqualTo("I x-a: 1|set-cookie: SRV=a2; path=/|");
        // a valid cookie: nothing to insert
        assertThat(response(be, new PersistenceCookie.Txn(), "s2", true, "GET", 200)).isEqualTo("N ");
        // a cacheable response gets 'private'
        assertThat(response(be, new PersistenceCookie.Txn(), "s1", false, "GET", 200, "expires", "x"))
                .isEqualTo("I expires: x|set-cookie: SRV=a1; path=/|cache-control: private|");
        assertThat(response(be, new PersistenceCookie.Txn(), "s1", false, "GET", 200, "cache-control", "public"))
                .isEqualTo("I cache-control: public|set-cookie: SRV=a1; path=/|");
        assertThat(response(be, new PersistenceCookie.Txn(), "s3", false, "GET", 200))
                .isEqualTo("I set-cookie: SRV=; Expires=Thu, 01-Jan-1970 00:00:01 GMT; path=/|");
    }

    @Test
    void optionsShapeTheInsertedCookie() {
        Backend be = backend("cookie SRV insert postonly httponly secure domain .a.com domain .b.com attr SameSite=Lax attr x=y");
        assertThat(response(be, new PersistenceCookie.Txn(), "s1", false, "GET", 200, "set-cookie", "SRV=zz")).isEqualTo("D ");
        assertThat(response(be, new PersistenceCookie.Txn(), "s3", false, "POST", 200)).isEqualTo(
                "I set-cookie: SRV=; Expires=Thu, 01-Jan-1970 00:00:01 GMT; path=/; domain=.a.com; domain=.b.com; HttpOnly; Secure; SameSite=Lax; x=y|");
        Backend dated = backend("cookie SRV insert indirect maxidle 30m maxlife 8h");
        assertThat(response(dated, new PersistenceCookie.Txn(), "s1", false, "GET", 200)).isEqualTo("I set-cookie: SRV=a1|axLRi|axLRi; path=/|");
        PersistenceCookie.Txn t = new PersistenceCookie.Txn();
        request(dated, t, "SRV=a2|axLRh|axLRa");
        assertThat(response(dated, t, "s2", true, "GET", 200)).isEqualTo("U set-cookie: SRV=a2|axLRi|axLRa; path=/|");
    }

    @Test
    void preserveRewriteAndPrefix() {
        Backend preserve = backend("cookie SRV insert preserve");
        assertThat(response(preserve, new PersistenceCookie.Txn(), "s1", false, "GET", 200, "set-cookie", "SRV=zz")).isEqualTo("P set-cookie: SRV=zz|");
        Backend rw = backend("cookie SRV rewrite");
        assertThat(response(rw, new PersistenceCookie.Txn(), "s1", false, "GET", 200, "set-cookie", "SRV=zz; path=/x"))
                .isEqualTo("R set-cookie: SRV=a1; path=/x|");
        assertThat(response(rw, new PersistenceCookie.Txn(), "s1", false, "GET", 200)).isEqualTo("N ");
        Backend pfx = backend("cookie JSESSIONID prefix");
        assertThat(response(pfx, new PersistenceCookie.Txn(), "s2", false, "GET", 200, "set-cookie", "JSESSIONID = zz ; path=/"))
                .isEqualTo("R set-cookie: JSESSIONID=a2~zz ; path=/|");
        Backend passiveIndirect = backend("cookie SRV indirect");
        assertThat(response(passiveIndirect, new PersistenceCookie.Txn(), "s2", false, "GET", 200, "set-cookie", "SRV=q")).isEqualTo("P set-cookie: SRV=q|");
        assertThat(response(passiveIndirect, new PersistenceCookie.Txn(), "s2", true, "GET", 200, "set-cookie", "SRV=q")).isEqualTo("D ");
    }

    @Test
    void cacheabilityIsHaproxys() {
        assertThat(cacheable(200, "GET", "expires", "x")).isTrue();
        assertThat(cacheable(200, "GET")).isFalse();
        assertThat(cacheable(200, "GET", "cache-control", "public")).isFalse();
        assertThat(cacheable(302, "GET", "cache-control", "public", "cache-control", "max-age=5")).isTrue();
        assertThat(cacheable(302, "GET", "expires", "x")).isFalse();
        assertThat(cacheable(200, "POST", "cache-control", "max-age=5")).isFalse();
        assertThat(cacheable(200, "POST", "cache-control", "public, max-age=5")).isTrue();
        assertThat(cacheable(200, "GET", "cache-control", "max-age=0", "expires", "x")).isFalse();
        assertThat(cacheable(200, "GET", "cache-control", "max-age=5,private")).isFalse();
        assertThat(cacheable(200, "GET", "etag", "\"x\"")).isTrue();
        assertThat(cacheable(200, "GET", "pragma", "no-cache", "cache-control", "public", "expires", "x")).isFalse();
        assertThat(cacheable(200, "GET", "cache-control", "no-cache=\"set-cookie\"", "expires", "x")).isTrue();
        for (int st : new int[] {203, 204, 206, 300, 301, 404, 405, 410, 414, 501}) {
            assertThat(cacheable(st, "GET", "expires", "x")).as("%d", st).isTrue();
        }
        for (int st : new int[] {201, 302, 304, 500, 503}) {
            assertThat(cacheable(st, "GET", "expires", "x")).as("%d", st).isFalse();
        }
    }

    private static boolean cacheable(int status, String method, String... fields) {
        HttpFields f = new HttpFields();
        for (int i = 0; i < fields.length; i += 2) {
            f.add(fields[i], fields[i + 1]);
        }
        return PersistenceCookie.cacheable(new ResponseHead(HttpVersion.HTTP_1_1, status, Status.reason(status), f), method.equals("POST"));
    }

    @Test
    void datesInHaproxysBase64() {
        StringBuilder sb = new StringBuilder();
        PersistenceCookie.s30tob64((int) ((NOW + 3) >> 2), sb);
        assertThat(sb.toString()).isEqualTo("axLRi");
        assertThat(PersistenceCookie.b64tos30("axLRi".getBytes(), 0)).isEqualTo(449098850);
        assertThat(PersistenceCookie.b64tos30("ax#Ri".getBytes(), 0)).isEqualTo(-1);
    }

    @Test
    void valuesStartingWithSpacesAreWalkedWithoutLeavingThem() {
        // a value can start with spaces (a folded field with an empty first line): removing a cookie after a leading
        // delimiter took the spaces before it and read before the value's start (an ArrayIndexOutOfBoundsException)
        Backend be = backend("cookie SRV insert indirect nocache");
        assertThat(request(be, new PersistenceCookie.Txn(), "   ;SRV=a1; x=1")).isEqualTo("s1 V [; x=1]");
        assertThat(request(be, new PersistenceCookie.Txn(), "  ,SRV=a1, x=1")).isEqualTo("s1 V [, x=1]");
        assertThat(request(be, new PersistenceCookie.Txn(), "  ;SRV= a1")).isEqualTo("s1 V [  ]");
        assertThat(response(be, new PersistenceCookie.Txn(), "s1", false, "GET", 200, "set-cookie2", "  ,SRV=x, y=1"))
                .isEqualTo("I set-cookie2: , y=1|set-cookie: SRV=a1; path=/|");
    }
}

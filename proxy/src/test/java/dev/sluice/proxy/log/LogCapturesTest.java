package dev.sluice.proxy.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Captures;
import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code capture cookie a len 12} on odd Cookie and Set-Cookie fields: what HAProxy 2.6.12 logged as {@code %CC} and
 * {@code %CS} for the same fields, and the spaces around {@code =} it removed from them on the way (the regtest
 * CookieFetchParityTest compares live).
 */
class LogCapturesTest {

    private static LogCaptures captures(String name, int len) {
        return new LogCaptures(new Captures(List.of(), List.of(), new Captures.Cookie(name, len)), new AsciiString[0], new AsciiString[0]);
    }

    /** Fields named {@code name} with the values of {@code spec} split at '|'. */
    private static HttpFields fields(String name, String spec) {
        HttpFields f = new HttpFields();
        for (String v : spec.split("\\|", -1)) {
            f.add(name, v);
        }
        return f;
    }

    private static List<String> values(HttpFields f) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < f.size(); i++) {
            out.add(f.name(i) + ": " + f.value(i));
        }
        return out;
    }

    private static String request(String spec) {
        LogCaptures c = captures("a", 12);
        c.cookie(false, fields("cookie", spec));
        return c.requestCookie();
    }

    private static String response(String spec) {
        LogCaptures c = captures("a", 12);
        c.cookie(true, fields("set-cookie", spec));
        return c.responseCookie();
    }

    @Test
    void requestCookiesAsHaproxy() {
        assertThat(request("a=1; b=2")).isEqualTo("a=1");
        assertThat(request("a=1|a=2")).isEqualTo("a=1");
        assertThat(request("a = 1")).isEqualTo("a=1");
        assertThat(request("a =1 ; b = 2")).isEqualTo("a=1");
        assertThat(request("a")).isNull();
        assertThat(request("a; b=1")).isNull();
        assertThat(request("a;a=2")).isEqualTo("a=2");
        assertThat(request("a=1, a=2")).isEqualTo("a=1");
        assertThat(request("a=1,b=2")).isEqualTo("a=1");
        assertThat(request("a=\"x;y\"; b=1")).isEqualTo("a=\"x;y\"");
        assertThat(request("a=\"open; b=1")).isEqualTo("a=\"open; b=1");
        assertThat(request("ab=1; a=2")).isEqualTo("ab=1");
        assertThat(request("A=1")).isNull();
        assertThat(request("$a=1")).isNull();
        assertThat(request("$Version=1; a=1; $Path=/")).isEqualTo("a=1");
        assertThat(request("a=99999999999")).isEqualTo("a=9999999999");
        assertThat(request("a=")).isEqualTo("a=");
        assertThat(request("a=,")).isEqualTo("a=");
        assertThat(request("|a=1")).isEqualTo("a=1");
        assertThat(request("   ;a =2")).isEqualTo("a=2");
    }

    @Test
    void setCookiesAsHaproxy() {
        assertThat(response("a=1; Path=/")).isEqualTo("a=1");
        assertThat(response("b=1|a=2; Path=/")).isEqualTo("a=2");
        assertThat(response("a= 1 ; Path=/")).isEqualTo("a=1");
        assertThat(response("a=1, a=2")).isEqualTo("a=1");
        assertThat(response("a=x; Max-Age=3, a=4")).isEqualTo("a=x");
        assertThat(response("a=\"q;w\"; b=2")).isEqualTo("a=\"q;w\"");
        // only the first part of a Set-Cookie is its cookie
        assertThat(response("foo; a=1")).isNull();
        assertThat(response(";a=1")).isNull();
        assertThat(response("$x=1; a=2")).isNull();
        assertThat(response("Path=/; a=1")).isNull();
        assertThat(response("a")).isNull();
        assertThat(response("a=")).isEqualTo("a=");
        // Set-Cookie2 is a list, read after the Set-Cookie fields
        LogCaptures c = captures("a", 12);
        HttpFields f = fields("set-cookie2", "b=1, a = 2");
        f.add("set-cookie", "x=1");
        c.cookie(true, f);
        assertThat(c.responseCookie()).isEqualTo("a=2");
        assertThat(values(f)).containsExactly("set-cookie2: b=1, a=2", "set-cookie: x=1");
    }

    @Test
    void theSpacesAroundEqualsGoFromEveryCookieRead() {
        HttpFields f = fields("cookie", "x = 1 ; a= 2|$V = 1; b =3; c");
        f.add("host", "h = 1");
        LogCaptures c = captures("a", 12);
        c.cookie(false, f);
        assertThat(c.requestCookie()).isEqualTo("a=2");
        assertThat(values(f)).containsExactly("cookie: x=1 ; a=2", "cookie: $V = 1; b=3; c", "host: h = 1");
        HttpFields r = fields("set-cookie", "s = 1 ; Path = /|t= 2");
        c.cookie(true, r);
        assertThat(c.responseCookie()).isNull();
        assertThat(values(r)).containsExactly("set-cookie: s=1 ; Path = /", "set-cookie: t=2");
    }

    @Test
    void withoutCaptureCookieNothingIsReadNorRewritten() {
        LogCaptures c = new LogCaptures(new Captures(List.of(), List.of(), null), new AsciiString[0], new AsciiString[0]);
        HttpFields f = fields("cookie", "a = 1");
        c.cookie(false, f);
        assertThat(c.requestCookie()).isNull();
        assertThat(values(f)).containsExactly("cookie: a = 1");
    }
}

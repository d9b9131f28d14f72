package dev.sluice.proxy.fcgi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The parameters of a request as HAProxy 2.6 builds them (src/mux_fcgi.c), case by case. */
class FcgiParamsTest {
    private static final FcgiParams.App APP = new FcgiParams.App("/srv/www", "index.php", Pattern.compile("^(/.+\\.php)(/.*)?$"));
    private static final FcgiParams.Exchange X = new FcgiParams.Exchange(new InetSocketAddress("127.0.0.1", 40000),
            new InetSocketAddress("127.0.0.1", 8080), false, "Sluice 1", null, "s1");

    private static RequestHead get(String target, String... fields) {
        HttpFields f = new HttpFields();
        for (int i = 0; i < fields.length; i += 2) {
            f.add(new AsciiString(fields[i]), new AsciiString(fields[i + 1]));
        }
        return new RequestHead(new AsciiString("GET"), new AsciiString(target), HttpVersion.HTTP_1_1, f);
    }

    private static Map<String, String> map(List<String[]> pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String[] p : pairs) {
            m.put(p[0], p[1]);
        }
        return m;
    }

    @Test
    void theDefaultsOfAScriptWithPathInfoAndAQuery() {
        List<String[]> p = FcgiParams.build(APP, get("/app/run.php/a%20b/c?x=1&y", "Host", "example.com:8080", "User-Agent", "t",
                "Connection", "close"), Map.of(), Set.of("connection"), X, 0);
        assertThat(map(p)).containsExactly(Map.entry("HTTP_HOST", "example.com:8080"), Map.entry("HTTP_USER_AGENT", "t"),
                Map.entry("GATEWAY_INTERFACE", "CGI/1.1"), Map.entry("DOCUMENT_ROOT", "/srv/www"), Map.entry("SCRIPT_NAME", "/app/run.php"),
                Map.entry("PATH_INFO", "/a b/c"), Map.entry("REQUEST_URI", "/app/run.php/a%20b/c?x=1&y"), Map.entry("REQUEST_METHOD", "GET"),
                Map.entry("QUERY_STRING", "x=1&y"), Map.entry("SERVER_NAME", "example.com:8080"), Map.entry("SERVER_PORT", "8080"),
                Map.entry("SERVER_PROTOCOL", "HTTP/1.1"), Map.entry("REMOTE_ADDR", "127.0.0.1"), Map.entry("REMOTE_PORT", "40000"),
                Map.entry("SCRIPT_FILENAME", "/srv/www/app/run.php"), Map.entry("PATH_TRANSLATED", "/srv/www/a b/c"),
                Map.entry("CONTENT_LENGTH", "0"), Map.entry("SERVER_SOFTWARE", "Sluice 1"));
    }

    @Test
    void aDirectoryGetsTheIndexAndNoHostMeansTheFrontendAddress() {
        Map<String, String> m = map(FcgiParams.build(APP, get("/dir/"), Map.of(), Set.of(), X, 0));
        assertThat(m).containsEntry("SCRIPT_NAME", "/dir/index.php").containsEntry("SCRIPT_FILENAME", "/srv/www/dir/index.php")
                .containsEntry("SERVER_NAME", "127.0.0.1").doesNotContainKeys("PATH_INFO", "QUERY_STRING", "PATH_TRANSLATED", "HTTPS");
    }

    @Test
    void withoutPathInfoTheWholePathIsTheScript() {
        FcgiParams.App app = new FcgiParams.App("/d", null, null);
        Map<String, String> m = map(FcgiParams.build(app, get("/a.php/more"), Map.of(), Set.of(), X, 0));
        assertThat(m).containsEntry("SCRIPT_NAME", "/a.php/more").doesNotContainKey("PATH_INFO");
    }

    @Test
    void bodyHeadersBecomeContentParamsAndHttpsIsOn() {
        RequestHead h = get("/a.php", "Content-Type", "text/plain", "Content-Length", "5", "X-Under_score", "dropped", "X-Dash", "kept");
        FcgiParams.Exchange tls = new FcgiParams.Exchange(X.client(), X.frontend(), true, "S", null, "s1");
        Map<String, String> m = map(FcgiParams.build(APP, h, Map.of(), Set.of(), tls, 0));
        assertThat(m).containsEntry("CONTENT_TYPE", "text/plain").containsEntry("CONTENT_LENGTH", "5").containsEntry("HTTP_X_DASH", "kept")
                .containsEntry("HTTPS", "on").doesNotContainKeys("HTTP_X_UNDER_SCORE", "HTTP_CONTENT_LENGTH");
        // a body of unknown length: its length as held
        Map<String, String> chunked = map(FcgiParams.build(APP, get("/a.php"), Map.of(), Set.of(), X, 42));
        assertThat(chunked).containsEntry("CONTENT_LENGTH", "42");
    }

    @Test
    void setParamsComeAfterTheHeadersAndReplaceTheDefaults() {
        Map<String, String> set = new java.util.TreeMap<>(Map.of("document_root", "/other", "my_param", "v", "server_name", "fixed"));
        List<String[]> p = FcgiParams.build(APP, get("/a.php"), set, Set.of(), X, 0);
        Map<String, String> m = map(p);
        assertThat(m).containsEntry("DOCUMENT_ROOT", "/other").containsEntry("SCRIPT_FILENAME", "/other/a.php").containsEntry("MY_PARAM", "v")
                .containsEntry("SERVER_NAME", "fixed");
        assertThat(p.stream().filter(x -> x[0].equals("DOCUMENT_ROOT")).count()).isOne();
        assertThat(p.stream().filter(x -> x[0].equals("SERVER_NAME")).count()).isOne();
    }

    @Test
    void aScriptNameSetByRuleStopsTheDeductions() {
        Map<String, String> m = map(FcgiParams.build(APP, get("/a.php/x?q=1"), Map.of("script_name", "/forced.php"), Set.of(), X, 0));
        // as HAProxy: no PATH_INFO deduced and no SERVER_SOFTWARE (its default is set after the deductions)
        assertThat(m).containsEntry("SCRIPT_NAME", "/forced.php").containsEntry("SCRIPT_FILENAME", "/srv/www/forced.php")
                .containsEntry("QUERY_STRING", "q=1").doesNotContainKeys("PATH_INFO", "SERVER_SOFTWARE");
    }

    @Test
    void basicCredentialsGiveRemoteUserAndAuthType() {
        RequestHead h = get("/a.php", "Authorization", "Basic Ym9iOnB3");
        Map<String, String> m = map(FcgiParams.build(APP, h, Map.of(), Set.of("authorization"), X, 0));
        assertThat(m).containsEntry("REMOTE_USER", "bob").containsEntry("AUTH_TYPE", "Basic").doesNotContainKey("HTTP_AUTHORIZATION");
        Map<String, String> passed = map(FcgiParams.build(APP, h, Map.of(), Set.of(), X, 0));
        assertThat(passed).containsEntry("HTTP_AUTHORIZATION", "Basic Ym9iOnB3");
    }

    /** HAProxy's implicit {@code %[http_auth_user]} and {@code %[http_auth_type]}: the field read as those fetches read it. */
    @Test
    void authParametersAreTheAuthFetches() {
        Map<String, String> bearer = map(FcgiParams.build(APP, get("/a.php", "Authorization", "bearer tok"), Map.of(), Set.of(), X, 0));
        assertThat(bearer).containsEntry("AUTH_TYPE", "Bearer").doesNotContainKey("REMOTE_USER");
        // a scheme that is the start of "Basic" is Basic; Digest and base64 that is not whole quads give nothing
        Map<String, String> prefix = map(FcgiParams.build(APP, get("/a.php", "Authorization", "bas  Ym9iOnB3"), Map.of(), Set.of(), X, 0));
        assertThat(prefix).containsEntry("AUTH_TYPE", "Basic").containsEntry("REMOTE_USER", "bob");
        Map<String, String> digest = map(FcgiParams.build(APP, get("/a.php", "Authorization", "Digest username=\"bob\""), Map.of(), Set.of(), X, 0));
        assertThat(digest).doesNotContainKeys("AUTH_TYPE", "REMOTE_USER");
        Map<String, String> bad = map(FcgiParams.build(APP, get("/a.php", "Authorization", "Basic Ym9iOnB"), Map.of(), Set.of(), X, 0));
        assertThat(bad).doesNotContainKeys("AUTH_TYPE", "REMOTE_USER");
    }

    @Test
    void theServerNameHeaderIsSentOnceWithTheServer() {
        FcgiParams.Exchange named = new FcgiParams.Exchange(X.client(), X.frontend(), false, "S", new AsciiString("X-Server"), "s1");
        List<String[]> p = FcgiParams.build(APP, get("/a.php", "X-Server", "forged"), Map.of(), Set.of(), named, 0);
        assertThat(p.stream().filter(x -> x[0].equals("HTTP_X_SERVER")).map(x -> x[1]).toList()).containsExactly("s1");
    }

    @Test
    void anAbsoluteTargetGivesItsPathAndBadPathsFail() {
        assertThat(map(FcgiParams.build(APP, get("http://h/a.php?z"), Map.of(), Set.of(), X, 0))).containsEntry("REQUEST_URI", "/a.php?z")
                .containsEntry("SCRIPT_NAME", "/a.php");
        assertThatThrownBy(() -> FcgiParams.build(APP, get("*"), Map.of(), Set.of(), X, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FcgiParams.build(APP, get("/a%zz.php"), Map.of(), Set.of(), X, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FcgiParams.build(APP, get("/a%0a.php"), Map.of(), Set.of(), X, 0)).isInstanceOf(IllegalArgumentException.class);
        // without path-info a line feed is just a character
        FcgiParams.App plain = new FcgiParams.App("/d", null, null);
        assertThat(map(FcgiParams.build(plain, get("/a%0a.php"), Map.of(), Set.of(), X, 0))).containsEntry("SCRIPT_NAME", "/a\n.php");
    }

    @Test
    void namesAreUpperCasedWithUnderscores() {
        assertThat(FcgiParams.encodeName("http_x-my.header")).isEqualTo("HTTP_X_MY_HEADER");
    }
}

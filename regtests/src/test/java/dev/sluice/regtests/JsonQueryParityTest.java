package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code json_query}, {@code jwt_header_query} and {@code jwt_payload_query} against HAProxy 2.6's mjson
 * ({@link HaproxyParityTest#compare}): strings with escapes (\t, \u0041, \u00e9; \/ and \u0100 give nothing), numbers
 * as %g prints them and with {@code int} (an octal 010, a value past 2^53), booleans, null, arrays by index, an object
 * (nothing), a key with an escaped dot, a key that is missing, a document cut short after the key and one nested too
 * deep; and a JWT's header and payload (without a path, no sample: HAProxy 2.6 answers none there). The paths' {@code $} is escaped in the configuration, where it would start a variable.
 */
class JsonQueryParityTest {

    private static final List<String> PATHS = List.of("$.str", "$.num", "$.int", "$.big", "$.neg", "$.small", "$.t", "$.f", "$.n",
            "$.arr[1]", "$.arr[2].x", "$.obj", "$.esc", "$.uni", "$.uni2", "$.slash", "$.wide", "$.missing", "$.k\\\\.dot", "$.arr", "$");

    private static String config() {
        StringBuilder body = new StringBuilder();
        for (String p : PATHS) {
            body.append(p.replace("\\\\", "\\")).append("=%[req.fhdr(x-json),json_query('").append(p).append("')]|");
        }
        body.append("int=%[req.fhdr(x-json),json_query('$.int','int')]|oct=%[req.fhdr(x-json),json_query('$.oct','int')]|huge=%[req.fhdr(x-json),json_query('$.huge','int')]|num-int=%[req.fhdr(x-json),json_query('$.num','int')]");
        body.append("|alg=%[req.fhdr(x-jwt),jwt_header_query('$.alg')]|iat=%[req.fhdr(x-jwt),jwt_payload_query('$.iat','int')]|name=%[req.fhdr(x-jwt),jwt_payload_query('$.name')]|head=%[req.fhdr(x-jwt),jwt_header_query]");
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:@FE@
                    http-request return status 200 content-type text/plain lf-string "%s"
                """.formatted(body.toString().replace("$", "\\$"));
    }

    private static final String JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.c2ln";

    private static final List<String> DOCS = List.of(
            "{\"str\":\"hello\",\"num\":1.5,\"int\":42,\"big\":1e21,\"neg\":-0.0001,\"small\":0.00001,\"t\":true,\"f\":false,\"n\":null,"
                    + "\"arr\":[10,\"two\",{\"x\":3}],\"obj\":{\"a\":1},\"esc\":\"a\\tb\",\"uni\":\"\\u0041\",\"uni2\":\"x\\u00e9\",\"slash\":\"a\\/b\","
                    + "\"wide\":\"\\u0100\",\"k.dot\":7,\"oct\":010,\"huge\":9007199254740993}",
            "{\"str\":\"cut\",\"num\":",
            "  {\"str\" : \"spaced\" , \"arr\" : [ 1 , 2.50 , 3e2 ] }  ",
            "[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]",
            "not json");

    private static List<String> exchange(int port) {
        List<String> out = new ArrayList<>();
        for (String doc : DOCS) {
            try (RawClient c = new RawClient(port)) {
                out.add(c.send("GET / HTTP/1.1\r\nHost: x\r\nx-json: " + doc + "\r\nx-jwt: " + JWT + "\r\nConnection: close\r\n\r\n").read().bodyText());
            }
        }
        return out;
    }

    @Test
    void jsonQueriesAreHaproxys() throws Exception {
        List<String> theirs = HaproxyParityTest.compareRecording(config(), DOCS, ports -> exchange(ports[0]));
        assertThat(theirs.get(0)).startsWith("$.str=hello|$.num=1.5|$.int=42|$.big=1e+21|$.neg=-0.0001|$.small=1e-05|$.t=1|$.f=0|")
                .contains("|int=42|oct=8|huge=|", "|alg=HS256|iat=1516239022|name=John Doe|head=");
    }
}

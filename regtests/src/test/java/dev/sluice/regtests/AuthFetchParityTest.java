package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code http_auth_type}, {@code http_auth_user}, {@code http_auth_pass} and {@code http_auth_bearer} against HAProxy 2.6
 * ({@link HaproxyParityTest#compare}), over Authorization fields of every shape its parser meets: Basic and Bearer in
 * any case, a scheme that is only the start of "Basic", several spaces, base64 that is not a multiple of four, a value
 * without a colon, a NUL in the password, a second comma-separated value, no scheme, and a named field for the bearer;
 * with {@code http_auth} and {@code http_auth_group} on a userlist, as a sample and in ACLs.
 */
class AuthFetchParityTest {

    private static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            userlist ul
                group ops
                user alice insecure-password s3cret groups ops
                user bob insecure-password pa:ss
                user carol insecure-password x
                user eve insecure-password a
                user gina insecure-password y
            frontend fe
                bind 127.0.0.1:@FE@
                http-request return status 200 content-type text/plain lf-string "t=%[http_auth_type] u=%[http_auth_user] p=%[http_auth_pass,hex] b=%[http_auth_bearer] x=%[http_auth_bearer(x-token)] xl=%[http_auth_bearer(x-token),length] a=%[http_auth(ul)] g=%[http_auth_group(ul)] ops=%[str(1)] " if { http_auth_group(ul) ops }
                http-request return status 200 content-type text/plain lf-string "t=%[http_auth_type] u=%[http_auth_user] p=%[http_auth_pass,hex] b=%[http_auth_bearer] x=%[http_auth_bearer(x-token)] xl=%[http_auth_bearer(x-token),length] a=%[http_auth(ul)] g=%[http_auth_group(ul)] in=%[str(1)] " if { http_auth(ul) }
                http-request return status 200 content-type text/plain lf-string "t=%[http_auth_type] u=%[http_auth_user] p=%[http_auth_pass,hex] b=%[http_auth_bearer] x=%[http_auth_bearer(x-token)] xl=%[http_auth_bearer(x-token),length] a=%[http_auth(ul)] g=%[http_auth_group(ul)] "
            """;

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static final List<String> FIELDS = List.of(
            "Authorization: Basic " + b64("alice:s3cret"),
            "Authorization: basic   " + b64("bob:pa:ss"),
            "Authorization: B " + b64("carol:x"),
            "Authorization: Basic " + b64("dave:secret").replace("=", ""),
            "Authorization: Basic " + b64("nocolon"),
            "Authorization: Basic " + b64("eve:a\0b"),
            "Authorization: Basic " + b64("frank:1") + ", Bearer other",
            "Authorization: Bearer abc.def.ghi",
            "Authorization: bEaReR   tok",
            "Authorization: Bear tok2",
            "Authorization: Digest username=x",
            "Authorization: Basic",
            "Authorization:  Basic " + b64("gina:y"),
            "X-Token: Bearer xyz",
            "X-Token: bearer",
            "X-Token: Basic " + b64("h:i"),
            "");

    private static List<String> exchange(int port) {
        List<String> out = new ArrayList<>();
        for (String f : FIELDS) {
            try (RawClient c = new RawClient(port)) {
                String req = "GET / HTTP/1.1\r\nHost: x\r\n" + (f.isEmpty() ? "" : f + "\r\n") + "Connection: close\r\n\r\n";
                out.add(f + " -> " + c.send(req.getBytes(StandardCharsets.ISO_8859_1)).read().bodyText());
            }
        }
        return out;
    }

    @Test
    void authorizationFieldsReadAsHaproxyReadsThem() throws Exception {
        List<String> theirs = HaproxyParityTest.compareRecording(CONFIG, FIELDS.stream().map(f -> f.isEmpty() ? "(none)" : f).toList(),
                ports -> exchange(ports[0]));
        // what HAProxy answered, for a few of them: the compare above holds Sluice to every line
        assertThat(theirs.get(0)).contains("t=Basic u=alice p=733363726574 b= x= xl=0 ");
        assertThat(theirs.get(2)).contains("t=Basic u=carol p=78 b= x= xl=0 ");
        assertThat(theirs.get(3)).contains("t= u= p= b= x= xl=0 ");
        assertThat(theirs.get(5)).contains("t=Basic u=eve p=61 b= x= xl=0 ");
        assertThat(theirs.get(9)).contains("t=Bearer u= p= b=tok2 x= xl=0 ");
        assertThat(theirs.get(13)).contains("x=xyz xl=3 ");
        // http_auth and http_auth_group: the same reading; no Basic credentials is no sample, a wrong user is 0
        assertThat(theirs.get(0)).endsWith("a=1 g=alice ops=1 ");
        assertThat(theirs.get(5)).endsWith("a=1 g=eve in=1 ");
        assertThat(theirs.get(6)).endsWith("a=0 g= ");
        assertThat(theirs.get(7)).endsWith("a= g= ");
    }
}

package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The Authorization field as HAProxy 2.6's get_http_auth reads it (AuthFetchParityTest compares the fetches with HAProxy). */
class AuthFetchesTest {
    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void basicAndBearerAsHaproxyReadsThem() {
        assertThat(AuthFetches.parse("Basic " + b64("a:b:c"))).isEqualTo(new AuthFetches.Credentials("Basic", "a", "b:c", b64("a:b:c")));
        // a scheme that starts "Basic", any case, and several spaces
        assertThat(AuthFetches.parse("bA   " + b64("u:p")).user()).isEqualTo("u");
        // C strings: the password ends at a NUL; a NUL before the colon leaves no colon
        assertThat(AuthFetches.parse("Basic " + b64("u:p\0q")).password()).isEqualTo("p");
        assertThat(AuthFetches.parse("Basic " + b64("u\0:p"))).isNull();
        // HAProxy's decoder wants whole quads
        assertThat(AuthFetches.parse("Basic " + b64("ab:c").replace("=", ""))).isNull();
        assertThat(AuthFetches.parse("Basic " + b64("nocolon"))).isNull();
        assertThat(AuthFetches.parse("Bear x")).isEqualTo(new AuthFetches.Credentials("Bearer", null, null, "x"));
        assertThat(AuthFetches.parse("Digest x=1")).isNull();
        assertThat(AuthFetches.parse("Basic")).isNull();
        assertThat(AuthFetches.parse(" Basic " + b64("u:p"))).isNull();
        assertThat(AuthFetches.firstValue(" Basic x , Bearer y")).isEqualTo("Basic x");
        assertThat(AuthFetches.firstValue(null)).isNull();
    }
}

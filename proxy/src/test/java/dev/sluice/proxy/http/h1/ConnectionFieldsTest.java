package dev.sluice.proxy.http.h1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;

/**
 * HAProxy 2.6's cleaning of a Connection value (h1_parse_connection_header), each row as haproxy -db forwarded it to
 * an HTTP/1.1 server.
 */
class ConnectionFieldsTest {

    private static String cleaned(String v) {
        return ConnectionFields.cleaned(AsciiString.of(v)).toString();
    }

    @Test
    void closeAndKeepAliveGoAndNothingLeftIsEmpty() {
        assertThat(cleaned("close")).isEmpty();
        assertThat(cleaned("Keep-Alive")).isEmpty();
        assertThat(cleaned("keep-alive, CLOSE")).isEmpty();
        assertThat(cleaned("upgrade")).isEqualTo("upgrade");
    }

    @Test
    void theValueStaysAsItCameUntilATokenGoesThenKeptTokensAreAppendedTrimmed() {
        assertThat(cleaned("X-Foo, TE")).isEqualTo("X-Foo, TE");
        AsciiString same = AsciiString.of("Upgrade, X-Foo");
        assertThat((Object) ConnectionFields.cleaned(same)).isSameAs(same);
        assertThat(cleaned("keep-alive, X-Foo, TE")).isEqualTo("X-Foo,TE");
        assertThat(cleaned("X-Foo , TE, keep-alive ,X-Bar")).isEqualTo("X-Foo , TE,X-Bar");
        assertThat(cleaned("Upgrade, X-Foo, keep-alive")).isEqualTo("Upgrade, X-Foo");
        assertThat(cleaned("keep-alive, Upgrade, X-Foo")).isEqualTo("Upgrade,X-Foo");
        assertThat(cleaned("Foo, close, Bar")).isEqualTo("Foo,Bar");
        assertThat(cleaned("close, Foo , Bar")).isEqualTo("Foo,Bar");
    }

    @Test
    void emptyElementsAndQuotedCommasAsHaproxy() {
        assertThat(cleaned("X-Foo,,close,,X-Bar")).isEqualTo("X-Foo,,,X-Bar");
        // kept by the parser as "," (what req.fhdr(connection) shows), then not written: cleaning "," leaves nothing
        assertThat(cleaned(",, CLOSE ,")).isEqualTo(",");
        assertThat(cleaned(",")).isEmpty();
        assertThat(cleaned("a=\"x,close\", close, \"q\\\\\",b\" ,,X")).isEqualTo("a=\"x,close\",\"q\\\\\",b\" ,,X");
    }

    @Test
    void tokens() {
        assertThat(ConnectionFields.tokens(AsciiString.of("X, Close"))).isEqualTo(ConnectionFields.CLOSE_TOKEN);
        assertThat(ConnectionFields.tokens(AsciiString.of("keep-alive,UPGRADE")))
            .isEqualTo(ConnectionFields.KEEP_ALIVE_TOKEN | ConnectionFields.UPGRADE_TOKEN);
        assertThat(ConnectionFields.tokens(AsciiString.of("\"close\", x-close, keep-alives"))).isZero();
    }
}

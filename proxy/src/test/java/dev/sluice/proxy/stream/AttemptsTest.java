package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Retries.RetryOn;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import io.netty.util.AsciiString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Attempts} of a stream without a request (a layer-4 stream's): connection failures are retried as
 * {@code retries} and {@code retry-on} say, and nothing else is ever sent again, whatever {@code retry-on} lists;
 * beside a GET, which is.
 */
class AttemptsTest {
    private final EmbeddedProxy proxy = EmbeddedProxy.of("""
            defaults
                mode http
                timeout connect 1s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:8080
                default_backend be
            backend be
                retries 2
                retry-on conn-failure empty-response response-timeout 503
                server s1 127.0.0.1:9001
            backend none
                retry-on empty-response
                server s1 127.0.0.1:9001
            """);

    @AfterEach
    void close() {
        proxy.close();
    }

    @Test
    void withoutARequestOnlyConnectionFailuresAreRetried() {
        Backend be = proxy.backend("be");
        Attempts a = new Attempts(be, null, be.retries());
        assertThat(a.afterSending(RetryOn.EMPTY_RESPONSE, 0, true, true)).isEqualTo(Attempts.Again.NO);
        assertThat(a.afterSending(RetryOn.RESPONSE_TIMEOUT, 0, false, true)).isEqualTo(Attempts.Again.NO);
        assertThat(a.afterSending(null, 503, false, true)).isEqualTo(Attempts.Again.NO);
        assertThat(a.connectFailed()).isTrue();
        assertThat(a.connectFailed()).isTrue();
        assertThat(a.connectFailed()).isFalse();
        assertThat(a.done()).isEqualTo(2);
        a.sending(new FakeSides.FakeServer(be.servers().get(0)));
        assertThat(a.replayBody()).isNull();
    }

    @Test
    void withoutConnFailureInRetryOnAConnectionFailureIsNotRetried() {
        Backend none = proxy.backend("none");
        Attempts a = new Attempts(none, null, none.retries());
        assertThat(a.connectFailed()).isFalse();
        assertThat(a.done()).isZero();
    }

    @Test
    void aGetIsSentAgainAsRetryOnSays() {
        Backend be = proxy.backend("be");
        RequestHead get = new RequestHead(AsciiString.of("GET"), AsciiString.of("/"), HttpVersion.HTTP_1_1, new HttpFields());
        Attempts a = new Attempts(be, get, be.retries());
        assertThat(a.afterSending(RetryOn.EMPTY_RESPONSE, 0, true, true)).isEqualTo(Attempts.Again.STALE);
        assertThat(a.afterSending(RetryOn.RESPONSE_TIMEOUT, 0, false, true)).isEqualTo(Attempts.Again.RETRY);
        assertThat(a.afterSending(null, 503, false, true)).isEqualTo(Attempts.Again.RETRY);
        assertThat(a.afterSending(null, 503, false, true)).isEqualTo(Attempts.Again.NO);
    }

    @Test
    void disableL7RetryLeavesOnlyConnectionFailuresAndStaleConnections() {
        Backend be = proxy.backend("be");
        RequestHead get = new RequestHead(AsciiString.of("GET"), AsciiString.of("/"), HttpVersion.HTTP_1_1, new HttpFields());
        Attempts a = new Attempts(be, get, be.retries());
        a.disableL7Retry();
        assertThat(a.afterSending(RetryOn.EMPTY_RESPONSE, 0, true, true)).isEqualTo(Attempts.Again.STALE);
        assertThat(a.afterSending(RetryOn.RESPONSE_TIMEOUT, 0, false, true)).isEqualTo(Attempts.Again.NO);
        assertThat(a.afterSending(null, 503, false, true)).isEqualTo(Attempts.Again.NO);
        assertThat(a.connectFailed()).isTrue();
        assertThat(a.done()).isEqualTo(1);
    }
}

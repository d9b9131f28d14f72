package dev.sluice.proxy.diag;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.ssl.NotSslRecordException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** Which exceptions are the network's or a peer's (not reported) and which are faults (reported). */
class UnexpectedErrorsTest {

    @Test
    void networkAndPeerErrorsAreExpected() {
        assertThat(UnexpectedErrors.expected(new IOException("Connection reset by peer"))).isTrue();
        assertThat(UnexpectedErrors.expected(new ClosedChannelException())).isTrue();
        assertThat(UnexpectedErrors.expected(new DecoderException(new SSLHandshakeException("bad alert")))).isTrue();
        assertThat(UnexpectedErrors.expected(new NotSslRecordException("not an SSL/TLS record"))).isTrue();
        assertThat(UnexpectedErrors.expected(new DecoderException("frame too long"))).isTrue();
        assertThat(UnexpectedErrors.expected(Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR, "x"))).isTrue();
        assertThat(UnexpectedErrors.expected(new RuntimeException(new SocketException("reset")))).isTrue();
    }

    @Test
    void faultsAreNot() {
        assertThat(UnexpectedErrors.expected(new NullPointerException())).isFalse();
        assertThat(UnexpectedErrors.expected(new IllegalStateException("bad state"))).isFalse();
        // a decoder that wrapped a fault of the code it called
        assertThat(UnexpectedErrors.expected(new DecoderException(new IndexOutOfBoundsException()))).isFalse();
        assertThat(UnexpectedErrors.expected(new AssertionError("x"))).isFalse();
    }

    /** The tests' JVMs run with sluice.reportUnexpected=true (the parent pom), as the regtests' daemons do. */
    @Test
    void aFaultIsPrintedWithItsStackAndAPeerErrorIsNot() {
        PrintStream saved = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            UnexpectedErrors.report("SomeHandler", new IOException("Connection reset by peer"));
            assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
            UnexpectedErrors.report("SomeHandler", new IllegalStateException("bad state"));
        } finally {
            System.setErr(saved);
        }
        assertThat(out.toString(StandardCharsets.UTF_8))
                .startsWith(UnexpectedErrors.MARK + " SomeHandler: java.lang.IllegalStateException: bad state")
                .contains("at dev.sluice.proxy.diag.UnexpectedErrorsTest.aFaultIsPrintedWithItsStackAndAPeerErrorIsNot");
    }
}

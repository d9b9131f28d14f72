package dev.sluice.proxy.syslog;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** TCP syslog framing (RFC 6587), as HAProxy's syslog applet reads it and its ring forwarder writes it. */
class FramingTest {
    private static InputStream in(String s) {
        return new BufferedInputStream(new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void octetCountingAndLinesMix() throws IOException {
        InputStream in = in("11 <13>hello 1<14>line two\r\n<15>line three\n4 <1>x");
        assertThat(LogForwardListener.next(in)).isEqualTo("<13>hello 1");
        assertThat(LogForwardListener.next(in)).isEqualTo("<14>line two");
        assertThat(LogForwardListener.next(in)).isEqualTo("<15>line three");
        assertThat(LogForwardListener.next(in)).isEqualTo("<1>x");
        assertThat(LogForwardListener.next(in)).isNull();
    }

    @Test
    void whatIsNeitherEndsTheConnection() throws IOException {
        assertThat(LogForwardListener.next(in("0 <1>x"))).isNull();
        assertThat(LogForwardListener.next(in("hello\n"))).isNull();
        assertThat(LogForwardListener.next(in("12x <1>"))).isNull();
        // a line without its line feed, a count longer than what came
        assertThat(LogForwardListener.next(in("<1>no end"))).isNull();
        assertThat(LogForwardListener.next(in("20 <1>short"))).isNull();
    }

    @Test
    void forwarderFrames() {
        assertThat(new String(RingForwarder.frame("<13>abc".getBytes(StandardCharsets.US_ASCII), true), StandardCharsets.US_ASCII))
                .isEqualTo("7 <13>abc");
        assertThat(new String(RingForwarder.frame("<13>abc".getBytes(StandardCharsets.US_ASCII), false), StandardCharsets.US_ASCII))
                .isEqualTo("<13>abc\n");
    }
}

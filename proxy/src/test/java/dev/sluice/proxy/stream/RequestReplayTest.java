package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/** The replay copy of a request body: views of what was sent, no copy, nothing kept past its bound, no leak. */
class RequestReplayTest {

    private static ByteBuf chunk(String s) {
        return Unpooled.directBuffer().writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void keepsWhatWasSentAndGivesItBack() {
        RequestReplay r = new RequestReplay(10);
        ByteBuf a = chunk("hello");
        ByteBuf b = chunk("world");
        r.keep(a);
        r.keep(b);
        // the originals go on to the connection, which releases them
        a.release();
        b.release();
        assertThat(r.whole()).isTrue();
        assertThat(r.bytes()).isEqualTo(10);
        ArrayDeque<ByteBuf> again = r.take();
        StringBuilder sb = new StringBuilder();
        for (ByteBuf x : again) {
            sb.append(x.toString(StandardCharsets.US_ASCII));
            x.release();
        }
        assertThat(sb).hasToString("helloworld");
        assertThat(a.refCnt()).isZero();
        assertThat(b.refCnt()).isZero();
    }

    @Test
    void beyondItsBoundNothingIsKept() {
        RequestReplay r = new RequestReplay(8);
        ByteBuf a = chunk("hello");
        ByteBuf b = chunk("world");
        r.keep(a);
        r.keep(b);
        assertThat(r.whole()).isFalse();
        assertThat(r.take()).isEmpty();
        // what was kept of the first chunk was let go at once
        assertThat(a.refCnt()).isEqualTo(1);
        a.release();
        b.release();
        r.release();
    }

    @Test
    void idempotentMethodsAreRfc9110s() {
        for (String m : new String[] {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
            assertThat(Attempts.idempotent(io.netty.util.AsciiString.of(m))).as(m).isTrue();
        }
        for (String m : new String[] {"POST", "PATCH", "CONNECT", "get"}) {
            assertThat(Attempts.idempotent(io.netty.util.AsciiString.of(m))).as(m).isFalse();
        }
    }
}

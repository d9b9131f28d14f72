package dev.sluice.proxy.h3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.quic.QuicStreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link H3StreamWrites}: what a response writes is held until a flush and goes down as one write, the FIN travels
 * with the last bytes (or with an empty DATA frame), and nothing held leaks when the stream goes away.
 */
class H3StreamWritesTest {
    /** The transport's side: records what reaches it, in order, and completes each write at once. */
    static final class Transport extends ChannelOutboundHandlerAdapter {
        final java.util.ArrayDeque<Object> written = new java.util.ArrayDeque<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            written.add(msg);
            promise.trySuccess();
        }

        @SuppressWarnings("unchecked")
        <T> T next() {
            return (T) written.poll();
        }
    }

    private final H3StreamWrites writes = new H3StreamWrites();
    private final Transport transport = new Transport();
    private final EmbeddedChannel ch = new EmbeddedChannel(transport, writes);

    private static ByteBuf direct(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return Unpooled.directBuffer(b.length).writeBytes(b);
    }

    private static String text(ByteBuf b) {
        return b.toString(StandardCharsets.US_ASCII);
    }

    @Test
    void writesAreHeldUntilTheFlushAndGoDownAsOne() {
        ByteBuf headers = direct("HEADERS");
        ByteBuf data = direct("DATA");
        ch.write(headers, ch.voidPromise());
        ch.write(data, ch.voidPromise());
        assertThat((Object) transport.next()).isNull();
        assertThat(writes.heldBytes()).isEqualTo(11);

        ch.flush();
        ByteBuf out = transport.next();
        assertThat(text(out)).isEqualTo("HEADERSDATA");
        assertThat(out.isDirect()).isTrue();
        out.release();
        assertThat((Object) transport.next()).isNull();
        // small writes were copied into one buffer: the originals are released
        assertThat(headers.refCnt()).isZero();
        assertThat(data.refCnt()).isZero();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void theFinGoesWithTheHeldBytesInOneStreamFrame() {
        ch.write(direct("HEADERS"), ch.voidPromise());
        ch.write(direct("DATA"), ch.voidPromise());
        writes.finish(true);
        QuicStreamFrame f = transport.next();
        assertThat(f.hasFin()).isTrue();
        assertThat(text(f.content())).isEqualTo("HEADERSDATA");
        f.release();
        assertThat((Object) transport.next()).isNull();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void withNothingHeldTheFinRidesOnAnEmptyDataFrameWhereDataMayCome() {
        ch.writeAndFlush(direct("HEADERS+DATA"), ch.voidPromise());
        ByteBuf first = transport.next();
        assertThat(text(first)).isEqualTo("HEADERS+DATA");
        first.release();

        writes.finish(true);
        QuicStreamFrame f = transport.next();
        assertThat(f.hasFin()).isTrue();
        // an HTTP/3 DATA frame with no payload: type 0, length 0 (stream bytes quiche retransmits with the FIN)
        assertThat(ByteBufUtil.getBytes(f.content())).containsExactly(0, 0);
        f.release();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void withNothingHeldAndNoDataAllowedTheFinGoesAlone() {
        ch.writeAndFlush(direct("HEADERS"), ch.voidPromise());
        ((ByteBuf) transport.next()).release();
        writes.finish(false);
        QuicStreamFrame f = transport.next();
        assertThat(f.hasFin()).isTrue();
        assertThat(f.content().isReadable()).isFalse();
        // once finished, a second finish sends nothing
        writes.finish(true);
        assertThat((Object) transport.next()).isNull();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void pastTheHoldLimitBytesGoDownWithoutAFlushAsAComposite() {
        byte[] big = new byte[H3StreamWrites.HOLD_LIMIT / 2 + 1];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) i;
        }
        ch.write(Unpooled.directBuffer(big.length).writeBytes(big), ch.voidPromise());
        assertThat((Object) transport.next()).isNull();
        ch.write(Unpooled.directBuffer(big.length).writeBytes(big), ch.voidPromise());
        ByteBuf out = transport.next();
        assertThat(out).isInstanceOf(CompositeByteBuf.class);
        assertThat(out.readableBytes()).isEqualTo(2 * big.length);
        byte[] got = ByteBufUtil.getBytes(out);
        for (int i = 0; i < got.length; i++) {
            assertThat(got[i]).isEqualTo(big[i % big.length]);
        }
        out.release();
        assertThat(writes.heldBytes()).isZero();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void otherMessagesKeepTheirPlaceAfterTheHeldBytes() {
        ch.write(direct("A"), ch.voidPromise());
        ch.write(QuicStreamFrame.EMPTY_FIN, ch.voidPromise());
        ByteBuf a = transport.next();
        assertThat(text(a)).isEqualTo("A");
        a.release();
        assertThat((Object) transport.next()).isSameAs(QuicStreamFrame.EMPTY_FIN);
        ch.checkException();
        ch.finishAndReleaseAll();
    }

    @Test
    void promisesCompleteWithTheMergedWriteAndFailWithIt() {
        ChannelFuture a = ch.write(direct("A"));
        ChannelFuture b = ch.write(direct("B"));
        assertThat(a.isDone()).isFalse();
        ch.flush();
        assertThat(a.isSuccess()).isTrue();
        assertThat(b.isSuccess()).isTrue();
        ((ByteBuf) transport.next()).release();

        // a transport that refuses writes (the client stopped the stream): every held write fails
        EmbeddedChannel failing = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(new java.io.IOException("STOP_SENDING"));
            }
        }, new H3StreamWrites());
        ChannelFuture c = failing.write(direct("C"));
        ChannelFuture d = failing.write(direct("D"));
        failing.flush();
        assertThat(c.cause()).hasMessage("STOP_SENDING");
        assertThat(d.cause()).hasMessage("STOP_SENDING");
        failing.finishAndReleaseAll();
    }

    @Test
    void whatIsHeldIsReleasedWhenTheStreamGoesAway() {
        ByteBuf held = direct("HELD");
        ChannelFuture f = ch.write(held);
        ch.close();
        assertThat(held.refCnt()).isZero();
        assertThat(f.isSuccess()).isFalse();
        assertThat(f.cause()).isInstanceOf(java.nio.channels.ClosedChannelException.class);

        H3StreamWrites other = new H3StreamWrites();
        EmbeddedChannel reset = new EmbeddedChannel(other);
        ByteBuf b = direct("RESET");
        reset.write(b, reset.voidPromise());
        other.discard();
        assertThat(b.refCnt()).isZero();
        assertThat(other.heldBytes()).isZero();
        reset.finishAndReleaseAll();
    }
}

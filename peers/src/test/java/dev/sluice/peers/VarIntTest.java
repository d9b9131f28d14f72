package dev.sluice.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** HAProxy's varint: the boundaries of doc/peers-v2.0.txt and values seen on the wire from HAProxy 2.6. */
class VarIntTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource({
            "0, 00", "239, ef", "240, f000", "2287, ff7f", "2288, f08000", "264431, ffff7f", "264432, f0808000",
            "33818863, ffffff7f", "33818864, f080808000", "4660, f49401", "1536, f051", "60000, f0971c", "10000, f0e203",
            "5000, f8a901", "300, fc03", "25698371, f3f58261"
    })
    void encodesAndDecodes(long v, String hex) {
        ByteBuf b = Unpooled.buffer();
        try {
            VarInt.encode(v, b);
            assertThat(ByteBufUtil.hexDump(b)).isEqualTo(hex);
            assertThat(VarInt.size(v)).isEqualTo(hex.length() / 2);
            if (v >= 0) {
                assertThat(VarInt.decode(b)).isEqualTo(v);
                assertThat(b.isReadable()).isFalse();
            }
        } finally {
            b.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"'', -1", "f0, -1", "f080, -1", "f080808080808080808080, -2", "ffffffffff0f, -2"})
    void truncatedOrAbsurd(String hex, long expected) {
        ByteBuf b = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex));
        try {
            long v = hex.equals("ffffffffff0f") ? VarInt.decodeInt(b) : VarInt.decode(b);
            assertThat(v).isEqualTo(expected);
            assertThat(b.readerIndex()).isZero();
        } finally {
            b.release();
        }
    }
}

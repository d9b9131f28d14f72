package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.rules.ClientHelloCapture;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The recorder on an {@link EmbeddedChannel}: a hello in pieces and across records, bytes passed on untouched. */
class ClientHelloRecorderTest {

    /** A ClientHello message of ciphers 1301 1302 and one supported-groups extension, then split into records. */
    private static byte[] message() {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(HexFormat.of().parseHex("0303"));
        body.writeBytes(new byte[32]);
        body.writeBytes(HexFormat.of().parseHex(("00" + "0004 1301 1302" + "0100" + "000a" + "000a 0006 0004 001d 0017").replace(" ", "")));
        byte[] b = body.toByteArray();
        ByteArrayOutputStream m = new ByteArrayOutputStream();
        m.writeBytes(new byte[] {1, 0, (byte) (b.length >> 8), (byte) b.length});
        m.writeBytes(b);
        return m.toByteArray();
    }

    private static byte[] records(byte[] msg, int split) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int from = 0; from < msg.length; from += split) {
            int n = Math.min(split, msg.length - from);
            out.writeBytes(new byte[] {22, 3, 1, (byte) (n >> 8), (byte) n});
            out.write(msg, from, n);
        }
        return out.toByteArray();
    }

    private static EmbeddedChannel feed(byte[] wire, int piece) {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientHelloRecorder(64));
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        for (int from = 0; from < wire.length; from += piece) {
            ch.writeInbound(Unpooled.wrappedBuffer(wire, from, Math.min(piece, wire.length - from)));
            for (ByteBuf b; (b = ch.readInbound()) != null; b.release()) {
                byte[] got = new byte[b.readableBytes()];
                b.getBytes(b.readerIndex(), got);
                passed.writeBytes(got);
            }
        }
        assertThat(passed.toByteArray()).as("every byte passed on as it came").isEqualTo(wire);
        return ch;
    }

    @Test
    void aHelloInPiecesAndRecordsIsCaptured() {
        for (int split : new int[] {1000, 10}) {
            for (int piece : new int[] {1, 7, 1000}) {
                EmbeddedChannel ch = feed(records(message(), split), piece);
                ClientHelloCapture c = ch.attr(ClientHelloCapture.ATTRIBUTE).get();
                assertThat(c).as("records of %d, reads of %d", split, piece).isNotNull();
                assertThat(c.ciphers(false)).isEqualTo(HexFormat.of().parseHex("13011302"));
                assertThat(c.groups(false)).isEqualTo(HexFormat.of().parseHex("001d0017"));
                assertThat(ch.pipeline().get(ClientHelloRecorder.class)).as("gone once read").isNull();
                assertThat(ch.finishAndReleaseAll()).isFalse();
            }
        }
    }

    @Test
    void notAHandshakeRecordLeavesNoCapture() {
        EmbeddedChannel ch = feed("GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 5);
        assertThat(ch.attr(ClientHelloCapture.ATTRIBUTE).get()).isNull();
        assertThat(ch.pipeline().get(ClientHelloRecorder.class)).isNull();
        ch.finishAndReleaseAll();
    }
}

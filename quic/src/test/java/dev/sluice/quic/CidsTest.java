package dev.sluice.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.quic.QuicConnectionAddress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The CID layout, the generator and reading a CID out of a datagram. */
class CidsTest {

    @Test
    void everyCidOfAConnectionSharesItsPrefixAndCarriesServerAndSocket() {
        CidGenerator g = new CidGenerator(9, 3, p -> false);
        ByteBuffer first = g.newId(ByteBuffer.allocate(8), ByteBuffer.allocate(8), Cids.LENGTH);
        byte[] f = bytes(first);
        assertThat(f).hasSize(16);
        assertThat(f[0] & 0xff).isEqualTo(15);
        assertThat(f[1] & 0xff).isEqualTo(9);
        assertThat(f[2] & 0xff).isEqualTo(3);
        long prefix = Cids.prefix(f, 0);
        assertThat(Cids.socketIndex(prefix)).isEqualTo(3);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            byte[] later = bytes(g.newId(ByteBuffer.wrap(f), Cids.LENGTH));
            assertThat(Cids.prefix(later, 0)).isEqualTo(prefix);
            assertThat(seen.add(java.util.HexFormat.of().formatHex(later))).isTrue();
        }
    }

    @Test
    void newConnectionsGetNewPrefixesAndATakenOneIsDrawnAgain() {
        Set<Long> taken = new HashSet<>();
        CidGenerator g = new CidGenerator(0, 0, taken::contains);
        for (int i = 0; i < 1000; i++) {
            long p = Cids.prefix(bytes(g.newId(Cids.LENGTH)), 0);
            assertThat(taken.add(p)).as("prefix %x drawn twice", p).isTrue();
        }
    }

    @Test
    void aForeignCidGetsAFreshPrefix() {
        CidGenerator g = new CidGenerator(1, 2, p -> false);
        byte[] foreign = new byte[16];
        byte[] id = bytes(g.newId(ByteBuffer.wrap(foreign), Cids.LENGTH));
        assertThat(id[0] & 0xff).isEqualTo(15);
        assertThat(Cids.prefix(id, 0)).isNotEqualTo(Cids.prefix(foreign, 0));
        // another length than Sluice's: plain random bytes
        assertThat(bytes(g.newId(8))).hasSize(8);
    }

    @Test
    void datagramPrefixOfShortAndLongHeaders() {
        byte[] cid = bytes(new CidGenerator(0, 0, p -> false).newId(Cids.LENGTH));
        long prefix = Cids.prefix(cid, 0);
        ByteBuf shortHdr = Unpooled.buffer().writeByte(0x41).writeBytes(cid).writeBytes(new byte[20]);
        assertThat(Cids.hasOurCid(shortHdr)).isTrue();
        assertThat(Cids.datagramPrefix(shortHdr)).isEqualTo(prefix);
        ByteBuf longHdr = Unpooled.buffer().writeByte(0xc0).writeInt(1).writeByte(16).writeBytes(cid).writeByte(8).writeBytes(new byte[30]);
        assertThat(Cids.hasOurCid(longHdr)).isTrue();
        assertThat(Cids.datagramPrefix(longHdr)).isEqualTo(prefix);
        ByteBuf clientChosen = Unpooled.buffer().writeByte(0xc0).writeInt(1).writeByte(8).writeBytes(new byte[8]).writeBytes(new byte[30]);
        assertThat(Cids.hasOurCid(clientChosen)).isFalse();
        assertThat(Cids.hasOurCid(Unpooled.buffer().writeByte(0x40).writeBytes(new byte[5]))).isFalse();
        assertThat(Cids.hasOurCid(Unpooled.EMPTY_BUFFER)).isFalse();
        shortHdr.release();
        longHdr.release();
        clientChosen.release();
    }

    @Test
    void theBytesOfAConnectionAddress() {
        byte[] cid = bytes(new CidGenerator(0, 0, p -> false).newId(Cids.LENGTH));
        assertThat(Cids.bytes(new QuicConnectionAddress(cid))).isEqualTo(cid);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}

package dev.sluice.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Retry tokens: sealed, bound to the client's address and its DCID, expiring, under rotating keys. */
class RetryTokensTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final QuicCounters counters = new QuicCounters();
    private final InetSocketAddress client = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000);

    private RetryTokens tokens(Secrets s, boolean force, int threshold) {
        return new RetryTokens(new TokenKeys(s, 60_000, now::get), force, threshold, counters);
    }

    private static ByteBuf dcid() {
        return Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    }

    private ByteBuf mint(RetryTokens t, InetSocketAddress to) {
        ByteBuf out = Unpooled.buffer(t.maxTokenLength());
        assertThat(t.writeToken(out, dcid(), to)).isTrue();
        return out;
    }

    @Test
    void aTokenValidatesForItsAddressAndCarriesTheOriginalDcid() {
        RetryTokens t = tokens(Secrets.of(null), true, 100);
        ByteBuf token = mint(t, client);
        assertThat(token.readableBytes()).isEqualTo(RetryTokens.ODCID_OFFSET + 8).isLessThanOrEqualTo(t.maxTokenLength());
        int offset = t.validateToken(token, client);
        assertThat(offset).isEqualTo(RetryTokens.ODCID_OFFSET);
        assertThat(token.slice(offset, token.readableBytes() - offset)).isEqualTo(dcid());
        assertThat(counters.retries()).isEqualTo(1);
        assertThat(counters.tokensValid()).isEqualTo(1);
    }

    @Test
    void anotherAddressOrPortIsRefused() throws Exception {
        RetryTokens t = tokens(Secrets.of(null), true, 100);
        ByteBuf token = mint(t, client);
        assertThat(t.validateToken(token, new InetSocketAddress(client.getAddress(), 40001))).isEqualTo(-1);
        assertThat(t.validateToken(token, new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 40000))).isEqualTo(-1);
        assertThat(counters.tokensInvalid()).isEqualTo(2);
    }

    @Test
    void anyChangedByteIsRefused() {
        RetryTokens t = tokens(Secrets.of(null), true, 100);
        ByteBuf token = mint(t, client);
        for (int i = 0; i < token.readableBytes(); i++) {
            ByteBuf copy = token.copy();
            copy.setByte(i, copy.getByte(i) ^ 0x01);
            assertThat(t.validateToken(copy, client)).as("byte %d changed", i).isEqualTo(-1);
        }
        assertThat(t.validateToken(token.slice(0, 20), client)).isEqualTo(-1);
        assertThat(t.validateToken(Unpooled.EMPTY_BUFFER, client)).isEqualTo(-1);
    }

    @Test
    void tokensExpire() {
        RetryTokens t = tokens(Secrets.of(null), true, 100);
        ByteBuf token = mint(t, client);
        now.addAndGet(RetryTokens.LIFETIME_MS);
        assertThat(t.validateToken(token.duplicate(), client)).isEqualTo(RetryTokens.ODCID_OFFSET);
        now.incrementAndGet();
        assertThat(t.validateToken(token.duplicate(), client)).isEqualTo(-1);
    }

    @Test
    void theKeyRotatesAndThePreviousOneStillValidates() {
        TokenKeys keys = new TokenKeys(Secrets.of(null), 60_000, now::get);
        RetryTokens t = new RetryTokens(keys, true, 100, counters);
        // a token minted just before the epoch ends, checked just after it
        now.set((now.get() / 60_000 + 1) * 60_000 - 1);
        keys.rotate();
        ByteBuf token = mint(t, client);
        now.addAndGet(2);
        assertThat(keys.untilNextRotation()).isEqualTo(60_000 - 1);
        keys.rotate();
        assertThat(t.validateToken(token.duplicate(), client)).isEqualTo(RetryTokens.ODCID_OFFSET);
        // two epochs later its key is gone (it would have expired long before anyway)
        now.addAndGet(120_000);
        keys.rotate();
        assertThat(t.validateToken(token.duplicate(), client)).isEqualTo(-1);
    }

    @Test
    void processesSharingTheClusterSecretAcceptEachOthersTokens() {
        RetryTokens a = tokens(Secrets.of("s3cr3t"), true, 100);
        RetryTokens b = tokens(Secrets.of("s3cr3t"), true, 100);
        RetryTokens other = tokens(Secrets.of("other"), true, 100);
        ByteBuf token = mint(a, client);
        assertThat(b.validateToken(token.duplicate(), client)).isEqualTo(RetryTokens.ODCID_OFFSET);
        assertThat(other.validateToken(token.duplicate(), client)).isEqualTo(-1);
    }

    @Test
    void retryStartsAtTheHalfOpenThresholdUnlessForced() {
        RetryTokens t = tokens(Secrets.of(null), false, 2);
        ByteBuf out = Unpooled.buffer(t.maxTokenLength());
        assertThat(t.writeToken(out, dcid(), client)).isFalse();
        counters.halfOpen.set(1);
        assertThat(t.writeToken(out, dcid(), client)).isFalse();
        counters.halfOpen.set(2);
        assertThat(t.writeToken(out, dcid(), client)).isTrue();
        assertThat(tokens(Secrets.of(null), true, 1000).retryNow()).isTrue();
    }

    @Test
    void resetTokensAreDerivedFromTheSecretAndTheCid() {
        java.nio.ByteBuffer cid = java.nio.ByteBuffer.wrap(new byte[] {9, 9, 9, 9, 1, 2, 3, 4});
        byte[] a = bytes(new ResetTokens(Secrets.of("k")).newResetToken(cid));
        byte[] again = bytes(new ResetTokens(Secrets.of("k")).newResetToken(cid));
        byte[] other = bytes(new ResetTokens(Secrets.of("k2")).newResetToken(cid));
        byte[] otherCid = bytes(new ResetTokens(Secrets.of("k")).newResetToken(java.nio.ByteBuffer.wrap(new byte[] {1})));
        assertThat(a).hasSize(16).isEqualTo(again).isNotEqualTo(other).isNotEqualTo(otherCid);
        assertThat(cid.remaining()).isEqualTo(8);
    }

    private static byte[] bytes(java.nio.ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}

package dev.sluice.quic;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.quic.QuicTokenHandler;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Address validation with Retry for one QUIC socket. A Retry is sent when the bind forces it or when the
 * bind's half-open connections reach the threshold. The token is sealed with AES-128-GCM under the current
 * {@link TokenKeys} key:
 *
 * <pre>
 *   epoch (1) | nonce (12) | sealed expiry time (8) + tag (16) | original DCID (0-20, in clear)
 * </pre>
 *
 * with the client's IP address, port and the original DCID as additional data, so a token only validates for
 * the address it was sent to, with its own DCID, before it expires ({@link #LIFETIME_MS}). Netty reads the
 * original DCID at the returned offset. Owned by the socket's event loop: its {@link Cipher} instance and
 * random source are its own, initialised per token with a new nonce only (the key object stays the same, so
 * no per-token key lookup or shared cipher).
 */
public final class RetryTokens implements QuicTokenHandler {
    /** How long a Retry token validates (HAProxy: 10 s). */
    public static final long LIFETIME_MS = 10_000;
    private static final int NONCE = 12;
    private static final int SEALED = 8 + 16;
    static final int ODCID_OFFSET = 1 + NONCE + SEALED;
    private static final int MAX_CID = 20;

    private final TokenKeys keys;
    private final boolean force;
    private final int threshold;
    private final QuicCounters counters;
    private final Cipher cipher;
    private final SecureRandom random = CidGenerator.newRandom();
    private final byte[] nonce = new byte[NONCE];
    private final byte[] block = new byte[SEALED];
    private final byte[] aad = new byte[16 + 2 + MAX_CID];

    public RetryTokens(TokenKeys keys, boolean force, int threshold, QuicCounters counters) {
        this.keys = keys;
        this.force = force;
        this.threshold = threshold;
        this.counters = counters;
        try {
            this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    /** Whether a client without a token gets a Retry now. */
    boolean retryNow() {
        return force || counters.halfOpen.get() >= threshold;
    }

    @Override
    public boolean writeToken(ByteBuf out, ByteBuf dcid, InetSocketAddress address) {
        if (!retryNow() || dcid.readableBytes() > MAX_CID) {
            return false;
        }
        TokenKeys.Key k = keys.pair().current();
        random.nextBytes(nonce);
        long expiry = keys.now() + LIFETIME_MS;
        for (int i = 0; i < 8; i++) {
            block[i] = (byte) (expiry >>> (56 - 8 * i));
        }
        int aadLen = aad(address, dcid, dcid.readerIndex(), dcid.readableBytes());
        try {
            cipher.init(Cipher.ENCRYPT_MODE, k.key(), new GCMParameterSpec(128, nonce));
            cipher.updateAAD(aad, 0, aadLen);
            cipher.doFinal(block, 0, 8, block, 0);
        } catch (GeneralSecurityException e) {
            return false;
        }
        out.writeByte((int) (k.epoch() & 0xff)).writeBytes(nonce).writeBytes(block, 0, SEALED)
                .writeBytes(dcid, dcid.readerIndex(), dcid.readableBytes());
        counters.retries.increment();
        return true;
    }

    @Override
    public int validateToken(ByteBuf token, InetSocketAddress address) {
        int r = token.readerIndex();
        int n = token.readableBytes();
        if (n < ODCID_OFFSET || n > ODCID_OFFSET + MAX_CID) {
            counters.tokensInvalid.increment();
            return -1;
        }
        TokenKeys.Key k = keys.pair().find(token.getUnsignedByte(r));
        if (k == null) {
            counters.tokensInvalid.increment();
            return -1;
        }
        token.getBytes(r + 1, nonce);
        token.getBytes(r + 1 + NONCE, block);
        int aadLen = aad(address, token, r + ODCID_OFFSET, n - ODCID_OFFSET);
        long expiry = 0;
        try {
            cipher.init(Cipher.DECRYPT_MODE, k.key(), new GCMParameterSpec(128, nonce));
            cipher.updateAAD(aad, 0, aadLen);
            int len = cipher.doFinal(block, 0, SEALED, block, 0);
            if (len != 8) {
                throw new GeneralSecurityException("bad length");
            }
            for (int i = 0; i < 8; i++) {
                expiry = expiry << 8 | (block[i] & 0xff);
            }
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            // a forged, damaged or foreign token, or one sent from another address
            counters.tokensInvalid.increment();
            return -1;
        }
        if (keys.now() > expiry) {
            counters.tokensInvalid.increment();
            return -1;
        }
        counters.tokensValid.increment();
        return ODCID_OFFSET;
    }

    /** Address bytes, port, then the CID: the additional data a token is bound to. */
    private int aad(InetSocketAddress address, ByteBuf cid, int from, int len) {
        byte[] ip = address.getAddress().getAddress();
        System.arraycopy(ip, 0, aad, 0, ip.length);
        int p = ip.length;
        aad[p++] = (byte) (address.getPort() >>> 8);
        aad[p++] = (byte) address.getPort();
        cid.getBytes(from, aad, p, len);
        return p + len;
    }

    @Override
    public int maxTokenLength() {
        return ODCID_OFFSET + MAX_CID;
    }
}

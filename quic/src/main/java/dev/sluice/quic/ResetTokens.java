package dev.sluice.quic;

import io.netty.handler.codec.quic.QuicResetTokenGenerator;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Stateless-reset tokens (RFC 9000 10.3.2) for the CIDs of one QUIC socket: HMAC-SHA256 of the CID under a
 * key derived from {@link Secrets}, cut to 16 bytes, so the token of a CID can be recomputed from the CID
 * alone by any process sharing {@code cluster-secret}. Owned by the socket's event loop (its own keyed
 * {@link Mac}).
 */
public final class ResetTokens implements QuicResetTokenGenerator {
    private final Mac mac;

    public ResetTokens(Secrets secrets) {
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secrets.derive("sluice quic stateless reset", 0), "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public ByteBuffer newResetToken(ByteBuffer cid) {
        mac.update(cid.duplicate());
        byte[] full = mac.doFinal();
        return ByteBuffer.wrap(full, 0, 16).slice();
    }
}

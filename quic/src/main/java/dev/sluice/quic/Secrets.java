package dev.sluice.quic;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The process's QUIC secret and what is derived from it: Retry-token keys (one per rotation epoch) and the
 * stateless-reset key. From {@code cluster-secret} every process of a cluster derives the same keys, so a
 * token minted by one is accepted by another and survives a restart; without it the secret is random.
 * Derivation is HMAC-SHA256(secret, label || epoch), HKDF-Expand's single-block case. Immutable.
 */
public final class Secrets {
    private final byte[] master;

    private Secrets(byte[] master) {
        this.master = master;
    }

    /** From {@code cluster-secret}, or a random secret when it is null. */
    public static Secrets of(String clusterSecret) {
        if (clusterSecret == null) {
            byte[] b = new byte[32];
            CidGenerator.newRandom().nextBytes(b);
            return new Secrets(b);
        }
        try {
            return new Secrets(MessageDigest.getInstance("SHA-256").digest(clusterSecret.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** 16 bytes for {@code label} and {@code epoch}. */
    byte[] derive(String label, long epoch) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(master, "HmacSHA256"));
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            for (int i = 7; i >= 0; i--) {
                mac.update((byte) (epoch >>> (i * 8)));
            }
            byte[] out = new byte[16];
            System.arraycopy(mac.doFinal(), 0, out, 0, 16);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}

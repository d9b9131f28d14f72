package dev.sluice.quic;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Builds a 1-RTT (short header) packet as a client would, from the client's traffic secret (TLS key log line
 * {@code CLIENT_TRAFFIC_SECRET_0}): RFC 9001's key derivation, AEAD protection and header protection, for the
 * AES-GCM suites. The tests use it to send the server frames a well-behaved client library never sends, so
 * that the QUIC stack itself detects a protocol error.
 */
final class Forge1Rtt {
    private final byte[] key;
    private final byte[] iv;
    private final byte[] hp;

    /**
     * @param secret the client's 1-RTT traffic secret
     * @param suite  the negotiated TLS 1.3 suite ({@code TLS_AES_128_GCM_SHA256} or {@code TLS_AES_256_GCM_SHA384})
     */
    Forge1Rtt(byte[] secret, String suite) throws Exception {
        boolean aes256 = suite.contains("AES_256");
        if (!aes256 && !suite.contains("AES_128")) {
            throw new IllegalArgumentException("suite not supported by the test: " + suite);
        }
        String hmac = aes256 ? "HmacSHA384" : "HmacSHA256";
        int keyLen = aes256 ? 32 : 16;
        key = expandLabel(secret, "quic key", keyLen, hmac);
        iv = expandLabel(secret, "quic iv", 12, hmac);
        hp = expandLabel(secret, "quic hp", keyLen, hmac);
    }

    /** The secret of a key log line {@code CLIENT_TRAFFIC_SECRET_0 <random> <secret>}, or null for another line. */
    static byte[] clientTrafficSecret(String keyLogLine) {
        String[] w = keyLogLine.trim().split(" ");
        return w.length == 3 && w[0].equals("CLIENT_TRAFFIC_SECRET_0") ? HexFormat.of().parseHex(w[2]) : null;
    }

    /** A protected short-header packet to {@code dcid} carrying {@code frames}, with packet number {@code pn}. */
    byte[] packet(byte[] dcid, long pn, byte[] frames) throws Exception {
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        h.write(0x40 | 0x03); // fixed bit, key phase 0, 4-byte packet number
        h.write(dcid);
        int pnOffset = h.size();
        h.write(ByteBuffer.allocate(4).putInt((int) pn).array());
        byte[] header = h.toByteArray();
        byte[] nonce = iv.clone();
        for (int i = 0; i < 8; i++) {
            nonce[nonce.length - 1 - i] ^= (byte) (pn >>> (8 * i));
        }
        Cipher aead = Cipher.getInstance("AES/GCM/NoPadding");
        aead.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        aead.updateAAD(header);
        byte[] sealed = aead.doFinal(frames);
        // header protection: the sample starts 4 bytes after the start of the packet number
        byte[] sample = new byte[16];
        System.arraycopy(sealed, 0, sample, 0, 16);
        Cipher ecb = Cipher.getInstance("AES/ECB/NoPadding");
        ecb.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(hp, "AES"));
        byte[] mask = ecb.doFinal(sample);
        header[0] ^= (byte) (mask[0] & 0x1f);
        for (int i = 0; i < 4; i++) {
            header[pnOffset + i] ^= mask[1 + i];
        }
        byte[] out = new byte[header.length + sealed.length];
        System.arraycopy(header, 0, out, 0, header.length);
        System.arraycopy(sealed, 0, out, header.length, sealed.length);
        return out;
    }

    /** TLS 1.3's HKDF-Expand-Label with an empty context. */
    static byte[] expandLabel(byte[] secret, String label, int length, String hmac) throws Exception {
        byte[] full = ("tls13 " + label).getBytes(StandardCharsets.US_ASCII);
        ByteBuffer info = ByteBuffer.allocate(4 + full.length);
        info.putShort((short) length).put((byte) full.length).put(full).put((byte) 0);
        Mac mac = Mac.getInstance(hmac);
        mac.init(new SecretKeySpec(secret, hmac));
        ByteArrayOutputStream okm = new ByteArrayOutputStream();
        byte[] t = new byte[0];
        for (int i = 1; okm.size() < length; i++) {
            mac.update(t);
            mac.update(info.array());
            mac.update((byte) i);
            t = mac.doFinal();
            okm.write(t);
        }
        byte[] out = new byte[length];
        System.arraycopy(okm.toByteArray(), 0, out, 0, length);
        return out;
    }
}

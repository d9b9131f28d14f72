package dev.sluice.proxy.tls;

import io.netty.handler.ssl.OpenSslPrivateKeyMethod;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLEngine;

/**
 * The private-key operations of one RSA certificate's TLS context, done by {@link SystemRsa} (the system's OpenSSL 3)
 * instead of BoringSSL, which runs the rest of the handshake. BoringSSL gives the whole message to sign and the
 * scheme; the schemes TLS 1.2 and 1.3 use with RSA (PKCS#1 v1.5 and PSS over SHA-1/256/384/512) are OpenSSL's, the
 * MD5+SHA-1 signature of TLS 1.0 and 1.1 is the JDK's. Called on the event loop of the handshake; stateless.
 */
final class RsaKeyMethod implements OpenSslPrivateKeyMethod {
    /** TLS SignatureScheme code points (RFC 8446 4.2.3; BoringSSL's SSL_SIGN_*), and BoringSSL's MD5+SHA-1. */
    private static final int PKCS1_SHA1 = 0x0201;
    private static final int PKCS1_SHA256 = 0x0401;
    private static final int PKCS1_SHA384 = 0x0501;
    private static final int PKCS1_SHA512 = 0x0601;
    private static final int PSS_SHA256 = 0x0804;
    private static final int PSS_SHA384 = 0x0805;
    private static final int PSS_SHA512 = 0x0806;
    private static final int MD5_SHA1 = 0xff01;

    /** Signatures made here since start (tests read it: the contexts of RSA certificates must come here). */
    static final LongAdder SIGNATURES = new LongAdder();

    private final RSAPrivateCrtKey key;
    private final SystemRsa.Key signer;

    RsaKeyMethod(SystemRsa lib, RSAPrivateCrtKey key) {
        this.key = key;
        this.signer = lib.importKey(key);
    }

    @Override
    public byte[] sign(SSLEngine engine, int algorithm, byte[] input) throws Exception {
        SIGNATURES.increment();
        return switch (algorithm) {
            case PSS_SHA256 -> signer.sign(256, true, input);
            case PSS_SHA384 -> signer.sign(384, true, input);
            case PSS_SHA512 -> signer.sign(512, true, input);
            case PKCS1_SHA256 -> signer.sign(256, false, input);
            case PKCS1_SHA384 -> signer.sign(384, false, input);
            case PKCS1_SHA512 -> signer.sign(512, false, input);
            case PKCS1_SHA1 -> signer.sign(1, false, input);
            case MD5_SHA1 -> md5Sha1(input);
            default -> throw new GeneralSecurityException("signature scheme 0x" + Integer.toHexString(algorithm) + " with an RSA key");
        };
    }

    /** TLS 1.0/1.1's RSA signature: PKCS#1 v1.5 padding over MD5 and SHA-1 side by side, no DigestInfo. */
    private byte[] md5Sha1(byte[] input) throws GeneralSecurityException {
        byte[] digests = new byte[36];
        System.arraycopy(MessageDigest.getInstance("MD5").digest(input), 0, digests, 0, 16);
        System.arraycopy(MessageDigest.getInstance("SHA-1").digest(input), 0, digests, 16, 20);
        Signature s = Signature.getInstance("NONEwithRSA");
        s.initSign(key);
        s.update(digests);
        return s.sign();
    }

    @Override
    public byte[] decrypt(SSLEngine engine, byte[] input) throws Exception {
        return signer.decrypt(input);
    }
}

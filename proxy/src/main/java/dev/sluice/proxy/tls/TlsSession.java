package dev.sluice.proxy.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.CipherSuiteConverter;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.internal.tcnative.SSL;
import io.netty.util.AttributeKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.interfaces.DSAPublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.List;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

/**
 * What a completed handshake settled, for choosing the HTTP version and for logs: the protocol
 * ({@code TLSv1.3}), the cipher, the ALPN protocol (null when none was agreed), the server name the client
 * sent (null when none) and whether the session was resumed (known with BoringSSL; always false with the
 * JDK provider, which does not tell). {@code session} is the engine's session, for what is rarely asked and read
 * only then (the certificate this side presented); null when not kept. {@link TlsHandshakeHandler} stores it on the
 * channel under {@link #ATTRIBUTE}. Immutable.
 */
public record TlsSession(String protocol, String cipher, String alpn, String sni, boolean resumed, SSLSession session) {

    public TlsSession(String protocol, String cipher, String alpn, String sni, boolean resumed) {
        this(protocol, cipher, alpn, sni, resumed, null);
    }

    public static final AttributeKey<TlsSession> ATTRIBUTE = AttributeKey.valueOf(TlsSession.class, "session");

    /** The session of a channel whose handshake completed, or null. */
    public static TlsSession of(Channel ch) {
        return ch.attr(ATTRIBUTE).get();
    }

    /** Reads the session of {@code handler}, whose handshake has completed; on the channel's event loop. */
    public static TlsSession of(SslHandler handler) {
        SSLEngine engine = handler.engine();
        SSLSession s = engine.getSession();
        return new TlsSession(s.getProtocol(), s.getCipherSuite(), handler.applicationProtocol(), serverName(s), resumed(engine), s);
    }

    /** The OpenSSL name of a cipher suite given by its Java (IANA) name, as HAProxy's logs and PROXY headers write it. */
    public static String openSslCipher(String cipher) {
        if (cipher == null || cipher.startsWith("TLS_") && !cipher.contains("_WITH_")) {
            // TLS 1.3's suites have one name in OpenSSL and Java (BoringSSL's own names, AEAD-..., are not OpenSSL's)
            return cipher;
        }
        String name = CipherSuiteConverter.toOpenSsl(cipher, true);
        return name != null ? name : cipher;
    }

    /** The certificate this side presented in the handshake, or null. */
    private X509Certificate localCertificate() {
        Certificate[] chain = session == null ? null : session.getLocalCertificates();
        return chain != null && chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
    }

    /**
     * The key of the certificate this side presented, as HAProxy's cert_get_pkey_algo writes it ({@code RSA2048},
     * {@code EC256}, {@code DSA1024}); null when there is none or of another type.
     */
    public String localKeyAlgorithm() {
        X509Certificate c = localCertificate();
        if (c == null) {
            return null;
        }
        return switch (c.getPublicKey()) {
            case RSAPublicKey k -> "RSA" + k.getModulus().bitLength();
            case ECPublicKey k -> "EC" + k.getParams().getCurve().getField().getFieldSize();
            case DSAPublicKey k -> "DSA" + k.getParams().getP().bitLength();
            default -> null;
        };
    }

    /**
     * The signature algorithm of the certificate this side presented, by OpenSSL's short name as HAProxy writes it
     * ({@code ecdsa-with-SHA256}, {@code RSA-SHA256}); null when there is none.
     */
    public String localSignatureAlgorithm() {
        X509Certificate c = localCertificate();
        if (c == null) {
            return null;
        }
        return switch (c.getSigAlgOID()) {
            case "1.2.840.10045.4.1" -> "ecdsa-with-SHA1";
            case "1.2.840.10045.4.3.1" -> "ecdsa-with-SHA224";
            case "1.2.840.10045.4.3.2" -> "ecdsa-with-SHA256";
            case "1.2.840.10045.4.3.3" -> "ecdsa-with-SHA384";
            case "1.2.840.10045.4.3.4" -> "ecdsa-with-SHA512";
            case "1.2.840.113549.1.1.4" -> "RSA-MD5";
            case "1.2.840.113549.1.1.5" -> "RSA-SHA1";
            case "1.2.840.113549.1.1.10" -> "RSASSA-PSS";
            case "1.2.840.113549.1.1.11" -> "RSA-SHA256";
            case "1.2.840.113549.1.1.12" -> "RSA-SHA384";
            case "1.2.840.113549.1.1.13" -> "RSA-SHA512";
            case "1.2.840.113549.1.1.14" -> "RSA-SHA224";
            case "1.3.101.112" -> "ED25519";
            case "1.3.101.113" -> "ED448";
            default -> c.getSigAlgName();
        };
    }

    private static String serverName(SSLSession s) {
        if (s instanceof ExtendedSSLSession x) {
            List<SNIServerName> names = x.getRequestedServerNames();
            if (names != null) {
                for (SNIServerName n : names) {
                    if (n instanceof SNIHostName h) {
                        return h.getAsciiName();
                    }
                }
            }
        }
        return null;
    }

    private static boolean resumed(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine e) {
            long ssl = e.sslPointer();
            return ssl != 0 && SSL.isSessionReused(ssl);
        }
        return false;
    }
}

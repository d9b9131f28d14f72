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
 * only then (the certificates of both sides, for the ssl_c_* and ssl_f_* fetches: read and parsed at their first use,
 * then kept in {@code certs}); null when not kept. {@link TlsHandshakeHandler} stores it on the channel under
 * {@link #ATTRIBUTE}. Immutable but for that cache.
 */
public record TlsSession(String protocol, String cipher, String alpn, String sni, boolean resumed, SSLSession session, Certificates certs) {

    public TlsSession(String protocol, String cipher, String alpn, String sni, boolean resumed) {
        this(protocol, cipher, alpn, sni, resumed, null);
    }

    public TlsSession(String protocol, String cipher, String alpn, String sni, boolean resumed, SSLSession session) {
        this(protocol, cipher, alpn, sni, resumed, session, session == null ? null : new Certificates(session, null));
    }

    /**
     * The certificates of a session, read from it at their first use: the peer's (a client certificate on a bind) and this
     * side's. Fields of immutable objects written at most once each; a race reads them twice, nothing worse.
     */
    public static final class Certificates {
        private static final X509Certificate[] NONE = new X509Certificate[0];
        private final SSLSession session;
        /** The engine, for what only BoringSSL tells (the randoms); null with the JDK provider. */
        private final ReferenceCountedOpenSslEngine engine;
        private X509Certificate[] peer;
        private CertFields peerFields;
        private CertFields localFields;

        Certificates(SSLSession session, ReferenceCountedOpenSslEngine engine) {
            this.session = session;
            this.engine = engine;
        }

        /**
         * The ClientHello's ({@code client} true) or ServerHello's random, 32 bytes; null once the connection is closed or
         * without BoringSSL. On the connection's event loop.
         */
        public byte[] random(boolean client) {
            long ssl = ssl();
            return ssl == 0 ? null : nonEmpty(client ? SSL.getClientRandom(ssl) : SSL.getServerRandom(ssl));
        }

        /**
         * The session's master secret (SSL_SESSION_get_master_key: TLS 1.2's master secret, TLS 1.3's resumption secret);
         * null once the connection is closed or without BoringSSL. On the connection's event loop.
         */
        public byte[] masterKey() {
            long ssl = ssl();
            return ssl == 0 ? null : nonEmpty(SSL.getMasterKey(ssl));
        }

        /** BoringSSL's SSL pointer of the connection, 0 once it is closed or without BoringSSL. */
        private long ssl() {
            return engine == null ? 0 : engine.sslPointer();
        }

        private static byte[] nonEmpty(byte[] b) {
            return b == null || b.length == 0 ? null : b;
        }

        /** The chain the peer sent, its own certificate first; empty when it sent none. */
        public X509Certificate[] peerChain() {
            X509Certificate[] p = peer;
            if (p == null) {
                p = NONE;
                try {
                    Certificate[] c = session.getPeerCertificates();
                    if (c != null && c.length > 0) {
                        List<X509Certificate> xs = new java.util.ArrayList<>(c.length);
                        for (Certificate x : c) {
                            if (x instanceof X509Certificate xc) {
                                xs.add(xc);
                            }
                        }
                        p = xs.toArray(NONE);
                    }
                } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
                    // no certificate from the peer
                }
                peer = p;
            }
            return p;
        }

        /** The peer's certificate's fields, or null when it sent none (or one that cannot be read). */
        public CertFields peer() {
            CertFields f = peerFields;
            if (f == null) {
                X509Certificate[] chain = peerChain();
                f = chain.length == 0 ? null : fields(chain[0]);
                peerFields = f;
            }
            return f;
        }

        /** The fields of the certificate this side presented, or null. */
        public CertFields local() {
            CertFields f = localFields;
            if (f == null) {
                Certificate[] chain = session.getLocalCertificates();
                f = chain != null && chain.length > 0 && chain[0] instanceof X509Certificate x ? fields(x) : null;
                localFields = f;
            }
            return f;
        }

        private static CertFields fields(X509Certificate c) {
            try {
                return CertFields.of(c);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    /** The secret bits of the cipher ({@code ssl_fc_use_keysize}), from its name; 0 when unknown. */
    public int cipherBits() {
        return cipherBits(cipher, false);
    }

    /** The bits of the cipher's algorithm ({@code ssl_fc_alg_keysize}): 168 for 3DES, else as {@link #cipherBits()}. */
    public int cipherAlgorithmBits() {
        return cipherBits(cipher, true);
    }

    static int cipherBits(String cipher, boolean algorithm) {
        if (cipher == null) {
            return 0;
        }
        String c = cipher.toUpperCase(java.util.Locale.ROOT);
        if (c.contains("AES_128") || c.contains("AES128")) {
            return 128;
        }
        if (c.contains("AES_256") || c.contains("AES256") || c.contains("CHACHA20")) {
            return 256;
        }
        if (c.contains("3DES") || c.contains("DES_EDE") || c.contains("DES-CBC3")) {
            return algorithm ? 168 : 112;
        }
        return 0;
    }

    /** The session id ({@code ssl_fc_session_id}), or null when there is none. */
    public byte[] sessionId() {
        byte[] id = session == null ? null : session.getId();
        return id == null || id.length == 0 ? null : id;
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
        return new TlsSession(s.getProtocol(), s.getCipherSuite(), handler.applicationProtocol(), serverName(s), resumed(engine), s,
                new Certificates(s, engine instanceof ReferenceCountedOpenSslEngine e ? e : null));
    }

    /**
     * The verification of the client's certificate in this handshake, as HAProxy's fetches give it: {@code ssl_c_err}
     * ({@link #CRT_ERROR}), {@code ssl_c_ca_err} ({@link #CA_ERROR}), {@code ssl_c_ca_err_depth} ({@link #CA_ERROR_DEPTH}),
     * {@code ssl_c_verify} ({@link #VERIFY}): OpenSSL's X509 error codes that {@code ca-ignore-err}/{@code crt-ignore-err}
     * let through (0: none). On a resumed session the first three are 0 (HAProxy's verify callback did not run) and
     * {@code ssl_c_verify} the first handshake's ({@link ClientCertVerifier#resumedVerify}).
     */
    public int verification(int which) {
        if (resumed) {
            // HAProxy keeps the first three per connection, set by its verify callback, which a resumed handshake does not
            // call; ssl_c_verify is OpenSSL's result kept in the session
            return which != VERIFY || session == null ? 0 : ClientCertVerifier.resumedVerify(session);
        }
        ClientCertVerifier.Result r = ClientCertVerifier.resultOf(session);
        return switch (which) {
            case CRT_ERROR -> r.crtError();
            case CA_ERROR -> r.caError();
            case CA_ERROR_DEPTH -> r.caErrorDepth();
            default -> r.verify();
        };
    }

    /**
     * HAProxy's reason for a handshake that failed on the client's certificate ({@code SSL client certificate not trusted},
     * or {@code SSL client CA chain cannot be verified} when the error was on a CA), or null when {@code cause} is another.
     */
    public static String verifyFailure(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ClientCertVerifier.Failure f) {
                return f.onCa() ? "SSL client CA chain cannot be verified" : "SSL client certificate not trusted";
            }
            for (Throwable s : t.getSuppressed()) {
                if (s instanceof ClientCertVerifier.Failure f) {
                    return f.onCa() ? "SSL client CA chain cannot be verified" : "SSL client certificate not trusted";
                }
            }
        }
        return null;
    }

    public static final int CRT_ERROR = 0;
    public static final int CA_ERROR = 1;
    public static final int CA_ERROR_DEPTH = 2;
    public static final int VERIFY = 3;

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
        return CertFields.SIG_NAMES.getOrDefault(c.getSigAlgOID(), c.getSigAlgName());
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

package dev.sluice.proxy.tls;

import io.netty.handler.ssl.OpenSslCertificateException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.X509ExtendedTrustManager;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;

/**
 * The verification of a client certificate on a {@code bind ... verify optional|required ca-file <pem>}, done as OpenSSL
 * 3.0's {@code X509_verify_cert} does it for HAProxy 2.6, so that the same certificates fail or pass with the same X509
 * error codes, in the same order, through the same {@code ca-ignore-err}/{@code crt-ignore-err} lists: the chain is built
 * from the client's certificate, the CA file's certificates first, then those the client sent; an untrusted top is
 * {@code X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT} (18, the client's own certificate alone), {@code
 * X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN} (19) or {@code X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY} (20) at the top's
 * depth; then each CA must be one ({@code X509_V_ERR_INVALID_CA}, 24) and the client's certificate fit for a TLS
 * client ({@code X509_V_ERR_INVALID_PURPOSE}, 26); then, from the top down, each signature ({@code
 * X509_V_ERR_CERT_SIGNATURE_FAILURE}, 7; {@code X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE}, 21, for a lone certificate
 * whose issuer is unknown) and validity period ({@code X509_V_ERR_CERT_NOT_YET_VALID}, 9, {@code
 * X509_V_ERR_CERT_HAS_EXPIRED}, 10). Each error goes through HAProxy's verify callback ({@code ssl_sock_bind_verifycbk}):
 * the first at depth 0 is {@code ssl_c_err}, the first above {@code ssl_c_ca_err} with its depth, the last {@code
 * ssl_c_verify} (OpenSSL's verify result); one the bind's lists do not ignore fails the handshake with its code (BoringSSL
 * sends OpenSSL's alert for it). The result of a handshake that went through is kept in its session ({@link #RESULT}).
 * Not modelled (no such keyword in Sluice): CRLs, policies, name constraints, path lengths, critical extensions.
 * Immutable; used on the event loops.
 */
final class ClientCertVerifier extends X509ExtendedTrustManager {
    /** The session value holding a handshake's {@link Result}. */
    static final String RESULT = "dev.sluice.tls.verify";

    static final int UNABLE_TO_GET_ISSUER_CERT = 2;
    static final int CERT_SIGNATURE_FAILURE = 7;
    static final int CERT_NOT_YET_VALID = 9;
    static final int CERT_HAS_EXPIRED = 10;
    static final int DEPTH_ZERO_SELF_SIGNED_CERT = 18;
    static final int SELF_SIGNED_CERT_IN_CHAIN = 19;
    static final int UNABLE_TO_GET_ISSUER_CERT_LOCALLY = 20;
    static final int UNABLE_TO_VERIFY_LEAF_SIGNATURE = 21;
    static final int INVALID_CA = 24;
    static final int INVALID_PURPOSE = 26;
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final String ANY_EKU = "2.5.29.37.0";
    /** OpenSSL's default verify depth (100) bounds the chain. */
    private static final int MAX_CHAIN = 101;

    /**
     * What HAProxy's fetches read of a verification: {@code ssl_c_err}, {@code ssl_c_ca_err}, {@code ssl_c_ca_err_depth}
     * and {@code ssl_c_verify}; all 0 when it found nothing.
     */
    public record Result(int crtError, int caError, int caErrorDepth, int verify) {
        public static final Result OK = new Result(0, 0, 0, 0);
    }

    /** The verification failed on an error the bind does not ignore: {@code depth} 0 is the client's certificate. */
    static final class Failure extends CertificateException {
        private final int error;
        private final int depth;

        Failure(int error, int depth) {
            super("client certificate verification failed: X509 error " + error + " at depth " + depth);
            this.error = error;
            this.depth = depth;
        }

        int error() {
            return error;
        }

        /** What Netty hands BoringSSL: its code picks the alert (itself without netty-tcnative: the JDK provider's engine). */
        CertificateException forOpenSsl() {
            try {
                return new OpenSslCertificateException(getMessage(), this, error);
            } catch (LinkageError | IllegalArgumentException e) {
                return this;
            }
        }

        /** Whether the error was on a CA of the chain (HAProxy logs "SSL client CA chain cannot be verified"). */
        boolean onCa() {
            return depth > 0;
        }
    }

    private final X509Certificate[] anchors;
    private final Set<Integer> caIgnore;
    private final Set<Integer> crtIgnore;

    ClientCertVerifier(List<X509Certificate> anchors, Set<Integer> caIgnore, Set<Integer> crtIgnore) {
        this.anchors = anchors.toArray(new X509Certificate[0]);
        this.caIgnore = Set.copyOf(caIgnore);
        this.crtIgnore = Set.copyOf(crtIgnore);
    }

    /** HAProxy's verify callback state over one verification. */
    private final class Callback {
        int crtError;
        int caError;
        int caDepth;
        int last;

        void error(int depth, int err) throws Failure {
            last = err;
            if (depth > 0) {
                if (caError == 0) {
                    caError = err;
                    caDepth = Math.min(depth, 15);
                }
                if (!caIgnore.contains(err)) {
                    throw new Failure(err, depth);
                }
                return;
            }
            if (crtError == 0) {
                crtError = err;
            }
            if (!crtIgnore.contains(err)) {
                throw new Failure(err, depth);
            }
        }

        Result result() {
            return last == 0 ? Result.OK : new Result(crtError, caError, caDepth, last);
        }
    }

    /** Verifies {@code peer} (the client's certificate first, then what it sent) at {@code now}. */
    Result verify(X509Certificate[] peer, Date now) throws Failure {
        Callback cb = new Callback();
        List<X509Certificate> chain = new ArrayList<>();
        chain.add(peer[0]);
        List<X509Certificate> untrusted = new ArrayList<>(Arrays.asList(peer).subList(1, peer.length));
        int trustedFrom = -1;
        while (chain.size() < MAX_CHAIN) {
            X509Certificate cur = chain.getLast();
            X509Certificate t = issuer(cur, Arrays.asList(anchors));
            if (t != null) {
                if (trustedFrom < 0) {
                    trustedFrom = t.equals(cur) ? chain.size() - 1 : chain.size();
                }
                if (t.equals(cur) || selfIssued(t)) {
                    if (!t.equals(cur)) {
                        chain.add(t);
                    }
                    break;
                }
                chain.add(t);
                continue;
            }
            if (selfIssued(cur) || trustedFrom >= 0) {
                break;
            }
            X509Certificate u = issuer(cur, untrusted);
            if (u == null) {
                break;
            }
            untrusted.remove(u);
            chain.add(u);
        }
        int num = chain.size();
        X509Certificate top = chain.getLast();
        boolean complete = trustedFrom >= 0 && selfIssued(top);
        if (!complete) {
            if (trustedFrom >= 0) {
                cb.error(num - 1, UNABLE_TO_GET_ISSUER_CERT);
            } else if (selfIssued(top)) {
                cb.error(num - 1, num == 1 ? DEPTH_ZERO_SELF_SIGNED_CERT : SELF_SIGNED_CERT_IN_CHAIN);
            } else {
                cb.error(num - 1, UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
            }
        }
        // check_chain_extensions: the CAs, and the client's certificate for the "SSL client" purpose
        for (int i = 0; i < num; i++) {
            X509Certificate x = chain.get(i);
            if (i > 0 && !isCa(x)) {
                cb.error(i, INVALID_CA);
            }
            if (i == 0 && !sslClient(x)) {
                cb.error(0, INVALID_PURPOSE);
            }
        }
        // internal_verify: from the top down, signatures then validity
        int n = num - 1;
        X509Certificate xi = chain.get(n);
        X509Certificate xs = xi;
        boolean checkSignature = true;
        if (!selfIssued(xi)) {
            if (n == 0) {
                cb.error(0, UNABLE_TO_VERIFY_LEAF_SIGNATURE);
                checkSignature = false;
            } else {
                n--;
                xs = chain.get(n);
            }
        }
        while (n >= 0) {
            if (checkSignature && xs != xi && !signedBy(xs, xi)) {
                cb.error(n, CERT_SIGNATURE_FAILURE);
            }
            checkSignature = true;
            if (now.before(xs.getNotBefore())) {
                cb.error(n, CERT_NOT_YET_VALID);
            }
            if (now.after(xs.getNotAfter())) {
                cb.error(n, CERT_HAS_EXPIRED);
            }
            if (--n >= 0) {
                xi = xs;
                xs = chain.get(n);
            }
        }
        return cb.result();
    }

    /** The first of {@code candidates} named as {@code x}'s issuer, whose key id matches {@code x}'s authority key id. */
    private static X509Certificate issuer(X509Certificate x, List<X509Certificate> candidates) {
        for (X509Certificate c : candidates) {
            if (c.getSubjectX500Principal().equals(x.getIssuerX500Principal()) && keyIdsMatch(x, c)) {
                return c;
            }
        }
        return null;
    }

    /** OpenSSL's EXFLAG_SI with a matching key id: issued by its own subject. */
    private static boolean selfIssued(X509Certificate x) {
        return x.getSubjectX500Principal().equals(x.getIssuerX500Principal()) && keyIdsMatch(x, x);
    }

    private static boolean keyIdsMatch(X509Certificate x, X509Certificate issuer) {
        byte[] akid = keyId(x, "2.5.29.35");
        byte[] skid = keyId(issuer, "2.5.29.14");
        return akid == null || skid == null || Arrays.equals(akid, skid);
    }

    /** The key identifier of the authority (2.5.29.35) or subject (2.5.29.14) key identifier extension; null when none. */
    private static byte[] keyId(X509Certificate x, String oid) {
        byte[] ext = x.getExtensionValue(oid);
        if (ext == null) {
            return null;
        }
        try {
            byte[] value = ASN1OctetString.getInstance(ext).getOctets();
            if (oid.equals("2.5.29.14")) {
                return SubjectKeyIdentifier.getInstance(value).getKeyIdentifier();
            }
            ASN1OctetString id = AuthorityKeyIdentifier.getInstance(value).getKeyIdentifierObject();
            return id == null ? null : id.getOctets();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** OpenSSL's check_ca: basicConstraints CA:TRUE, or without it a v1 self-issued certificate or keyCertSign. */
    private static boolean isCa(X509Certificate x) {
        if (x.getExtensionValue("2.5.29.19") != null) {
            return x.getBasicConstraints() >= 0;
        }
        boolean[] ku = x.getKeyUsage();
        return x.getVersion() == 1 && selfIssued(x) || ku != null && ku.length > 5 && ku[5];
    }

    /** OpenSSL's check_purpose_ssl_client on the client's certificate: its key usages and extended key usages allow it. */
    private static boolean sslClient(X509Certificate x) {
        try {
            List<String> eku = x.getExtendedKeyUsage();
            if (eku != null && !eku.contains(CLIENT_AUTH) && !eku.contains(ANY_EKU)) {
                return false;
            }
        } catch (java.security.cert.CertificateParsingException e) {
            return false;
        }
        boolean[] ku = x.getKeyUsage();
        // digitalSignature or keyAgreement
        return ku == null || ku.length > 0 && ku[0] || ku.length > 4 && ku[4];
    }

    private static boolean signedBy(X509Certificate x, X509Certificate issuer) {
        try {
            x.verify(issuer.getPublicKey());
            return true;
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        Result r;
        try {
            r = verify(chain, new Date());
        } catch (Failure f) {
            throw f.forOpenSsl();
        }
        SSLSession s = engine == null ? null : engine.getHandshakeSession();
        if (s != null && r != Result.OK) {
            s.putValue(RESULT, r);
            remember(s.getSessionContext(), chain[0], r.verify());
        }
    }

    /**
     * The verify results of the certificates whose errors were let through, by the session context (one per bind context)
     * that verified them: a resumed session reads its {@code ssl_c_verify} there, as OpenSSL keeps the result in the
     * session (Netty's object of a TLS 1.3 resumed session is a new one, without the first's values). A few hundred
     * entries per context, the oldest dropped.
     */
    private static final Map<SSLSessionContext, Map<X509Certificate, Integer>> RESUMABLE = new WeakHashMap<>();
    private static final int REMEMBERED = 512;

    private static void remember(SSLSessionContext context, X509Certificate leaf, int verify) {
        if (context == null) {
            return;
        }
        synchronized (RESUMABLE) {
            RESUMABLE.computeIfAbsent(context, k -> new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<X509Certificate, Integer> eldest) {
                    return size() > REMEMBERED;
                }
            }).put(leaf, verify);
        }
    }

    /** The verify result of a resumed session: the one its first handshake left, 0 when it had none (or it is forgotten). */
    static int resumedVerify(SSLSession session) {
        Object v = session.getValue(RESULT);
        if (v instanceof Result r) {
            return r.verify();
        }
        try {
            java.security.cert.Certificate[] peer = session.getPeerCertificates();
            if (peer.length == 0 || !(peer[0] instanceof X509Certificate leaf)) {
                return 0;
            }
            synchronized (RESUMABLE) {
                Map<X509Certificate, Integer> m = RESUMABLE.get(session.getSessionContext());
                Integer known = m == null ? null : m.get(leaf);
                return known == null ? 0 : known;
            }
        } catch (javax.net.ssl.SSLPeerUnverifiedException | RuntimeException e) {
            return 0;
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkClientTrusted(chain, authType, (SSLEngine) null);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        checkClientTrusted(chain, authType, (SSLEngine) null);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        throw new CertificateException("a bind verifies clients only");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        throw new CertificateException("a bind verifies clients only");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a bind verifies clients only");
    }

    /** The CA file's certificates: their names are the CertificateRequest's list, as HAProxy sends them. */
    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return anchors.clone();
    }

    /** The verification result a handshake left in {@code session}: {@link Result#OK} when none. */
    static Result resultOf(SSLSession session) {
        Object v = session == null ? null : session.getValue(RESULT);
        return v instanceof Result r ? r : Result.OK;
    }
}

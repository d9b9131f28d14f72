package dev.sluice.proxy.tls;

import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.TrustManagerFactory;

/**
 * The CAs a {@code ca-file} names: a PEM bundle, or {@code @system-ca} for the JDK's trust store (the
 * {@code cacerts} of the running JVM, which distributions fill from the system's CA bundle). Loaded once
 * at start-up; immutable.
 */
final class TrustSource {
    static final String SYSTEM_CA = "@system-ca";

    private final List<X509Certificate> certificates;
    private final TrustManagerFactory system;

    private TrustSource(List<X509Certificate> certificates, TrustManagerFactory system) {
        this.certificates = certificates;
        this.system = system;
    }

    static TrustSource load(String caFile) {
        if (caFile.equals(SYSTEM_CA)) {
            try {
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init((KeyStore) null);
                return new TrustSource(null, tmf);
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException("unable to load the system CA store (@system-ca): " + e.getMessage(), e);
            }
        }
        if (caFile.startsWith("@")) {
            throw new IllegalArgumentException("unknown CA store '" + caFile + "' (only @system-ca is supported)");
        }
        return new TrustSource(PemLoader.loadCertificates(Path.of(caFile)), null);
    }

    /** The trusted certificates: the file's, or those of the JDK's store. */
    List<X509Certificate> anchors() {
        if (certificates != null) {
            return certificates;
        }
        for (var tm : system.getTrustManagers()) {
            if (tm instanceof javax.net.ssl.X509TrustManager x) {
                return List.of(x.getAcceptedIssuers());
            }
        }
        return List.of();
    }

    /**
     * A bind's verification of client certificates: as OpenSSL does it for HAProxy ({@link ClientCertVerifier}), with the
     * X509 errors it ignores on CAs and on the client's own certificate.
     */
    void applyToBind(SslContextBuilder b, java.util.Set<Integer> caIgnore, java.util.Set<Integer> crtIgnore) {
        b.trustManager(new ClientCertVerifier(anchors(), caIgnore, crtIgnore));
    }

    void applyTo(SslContextBuilder b) {
        if (system != null) {
            b.trustManager(system);
        } else {
            b.trustManager(certificates);
        }
    }
}

package dev.sluice.proxy.tls;

import dev.sluice.config.model.TlsTune;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * What completes a {@code crt} file besides its own content, from the global section: the companion files looked for
 * beside it ({@code ssl-load-extra-files}: {@code <crt>.key} for a file without its private key, {@code <crt>.rsa},
 * {@code .dsa}, {@code .ecdsa} for a certificate bundle named by its base name; {@code ssl-load-extra-del-ext} names
 * them without a {@code .crt} extension) and the issuer chains of {@code issuers-chain-path}, which complete a
 * certificate given without its chain. Immutable; built once per configuration, at start-up.
 */
public record CertFiles(boolean keyFiles, boolean bundles, boolean dropCrtExtension, List<List<X509Certificate>> issuerChains) {
    /** HAProxy's defaults: every companion file, no issuers directory. */
    public static final CertFiles DEFAULT = new CertFiles(true, true, false, List.of());

    /** The bundle suffixes HAProxy looks for when a {@code crt} file does not exist. */
    static final List<String> BUNDLE_SUFFIXES = List.of(".rsa", ".dsa", ".ecdsa");

    public CertFiles {
        issuerChains = List.copyOf(issuerChains);
    }

    /**
     * The files of {@code tls}: the issuers directory is read now, each regular file one chain (its first certificate the
     * issuer); a file without a certificate is reported to {@code warn} with HAProxy's words and skipped.
     */
    public static CertFiles of(TlsTune tls, Consumer<String> warn) {
        List<List<X509Certificate>> chains = new ArrayList<>();
        if (tls.issuersChainPath() != null) {
            List<Path> files;
            try (Stream<Path> s = Files.list(Path.of(tls.issuersChainPath()))) {
                files = s.filter(Files::isRegularFile).sorted().toList();
            } catch (IOException e) {
                files = List.of();
                warn.accept("global statement 'issuers-chain-path': unable to scan directory '" + tls.issuersChainPath() + "' : "
                        + e.getMessage() + ".");
            }
            for (Path f : files) {
                try {
                    chains.add(PemLoader.loadCertificates(f));
                } catch (IllegalArgumentException e) {
                    warn.accept("unable to load issuers-chain " + f + " : pem certificate not found.");
                }
            }
        }
        return new CertFiles(tls.loadsKeyFiles(), tls.extraFiles().contains("bundle"), tls.extraDelExt(), chains);
    }

    /** The companion file {@code ext} (".key") of {@code crt}. */
    Path companion(Path crt, String ext) {
        String name = crt.toString();
        if (dropCrtExtension && name.endsWith(".crt")) {
            name = name.substring(0, name.length() - 4);
        }
        return Path.of(name + ext);
    }

    /**
     * {@code chain} completed from the issuers directory when it is the certificate alone: the chain whose first
     * certificate is the certificate's issuer (by name and signature) follows it. Otherwise {@code chain} as it is.
     */
    List<X509Certificate> complete(List<X509Certificate> chain) {
        if (chain.size() != 1 || issuerChains.isEmpty()) {
            return chain;
        }
        X509Certificate leaf = chain.get(0);
        for (List<X509Certificate> issuers : issuerChains) {
            X509Certificate issuer = issuers.get(0);
            if (!issuer.getSubjectX500Principal().equals(leaf.getIssuerX500Principal())) {
                continue;
            }
            try {
                leaf.verify(issuer.getPublicKey());
            } catch (GeneralSecurityException | RuntimeException e) {
                continue;
            }
            List<X509Certificate> out = new ArrayList<>(chain);
            out.addAll(issuers);
            return out;
        }
        return chain;
    }
}

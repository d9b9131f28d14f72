package dev.sluice.proxy.tls;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.X509TrustedCertificateBlock;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads certificates and private keys from PEM files the way HAProxy does: a {@code crt} file holds the
 * server certificate, its chain and the private key in any order (the first certificate is the server's);
 * a file without a key takes it from {@code <file>.key} (what {@link CertFiles} allows: {@code ssl-load-extra-files},
 * {@code ssl-load-extra-del-ext}, bundles, {@code issuers-chain-path}); a {@code crt} directory loads every file in
 * lexical order except the companions ({@code .key .ocsp .issuer .sctl .ckch}) and hidden files. Keys may
 * be PKCS#1 ({@code RSA PRIVATE KEY}), SEC1 ({@code EC PRIVATE KEY}) or PKCS#8 ({@code PRIVATE KEY});
 * encrypted keys are refused (there is nobody to ask for a pass phrase). Blocks of other types (EC or DH
 * parameters, CRLs, requests) are ignored.
 * <p>
 * Every problem is an {@link IllegalArgumentException} whose message names the file and the reason.
 * Stateless; used at start-up (and by {@code -c}) only, never on an event loop.
 */
public final class PemLoader {
    private PemLoader() {
    }

    /** File name endings of the companion files of a certificate, skipped when loading a directory. */
    private static final List<String> COMPANIONS = List.of(".key", ".ocsp", ".issuer", ".sctl", ".ckch");

    /** What one PEM file held. */
    private record Contents(List<X509Certificate> certificates, List<PrivateKey> keys) {
    }

    /** True when {@code fileName} is a companion file that a {@code crt} directory does not load as a certificate. */
    public static boolean isCompanion(String fileName) {
        for (String c : COMPANIONS) {
            if (fileName.endsWith(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Loads what one {@code crt} argument names: a PEM file (one certificate) or a directory (one
     * certificate per file, in lexical order of the file names).
     */
    public static List<CertifiedKey> loadCrt(Path path) {
        return loadCrt(path, CertFiles.DEFAULT);
    }

    /**
     * The same, completing each certificate with what {@code files} allows: its key from a companion file, its chain
     * from the issuers directory; a file that does not exist may name a bundle ({@code <crt>.rsa}, {@code .dsa},
     * {@code .ecdsa}: each one a certificate, as HAProxy loads them).
     */
    public static List<CertifiedKey> loadCrt(Path path, CertFiles files) {
        if (Files.isDirectory(path)) {
            List<Path> certs = certificateFiles(path);
            List<CertifiedKey> out = new ArrayList<>(certs.size());
            for (Path f : certs) {
                out.add(loadCertifiedKey(f, files));
            }
            return out;
        }
        if (!Files.exists(path) && files.bundles()) {
            List<CertifiedKey> out = new ArrayList<>();
            for (String suffix : CertFiles.BUNDLE_SUFFIXES) {
                Path p = Path.of(path + suffix);
                if (Files.exists(p)) {
                    out.add(loadCertifiedKey(p, files));
                }
            }
            if (!out.isEmpty()) {
                return out;
            }
        }
        return List.of(loadCertifiedKey(path, files));
    }

    /** The certificate files of a {@code crt} directory, in the order they are loaded. */
    public static List<Path> certificateFiles(Path dir) {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> {
                String n = p.getFileName().toString();
                return !n.startsWith(".") && !isCompanion(n) && Files.isRegularFile(p);
            }).sorted(Comparator.comparing(p -> p.getFileName().toString())).toList();
        } catch (IOException e) {
            throw fail("unable to read certificate directory '" + dir + "'", e);
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("unable to load certificates from directory '" + dir + "': no certificate file in it");
        }
        return files;
    }

    /**
     * Loads one certificate with its chain and key. The key comes from the file itself or, when the file
     * has none, from {@code <file>.key}; it must match the first certificate of the file.
     */
    public static CertifiedKey loadCertifiedKey(Path file) {
        return loadCertifiedKey(file, CertFiles.DEFAULT);
    }

    /** The same, the key from a companion file only when {@code files} allows it, the chain completed from its issuers. */
    public static CertifiedKey loadCertifiedKey(Path file, CertFiles files) {
        Contents c = read(file, "certificate");
        if (c.certificates().isEmpty()) {
            throw new IllegalArgumentException("unable to load certificate from '" + file + "': no certificate found in the file");
        }
        if (c.keys().size() > 1) {
            throw new IllegalArgumentException("unable to load certificate from '" + file + "': the file holds " + c.keys().size()
                    + " private keys (expected one)");
        }
        PrivateKey key;
        Path keySource = file;
        if (c.keys().isEmpty()) {
            if (!files.keyFiles()) {
                throw new IllegalArgumentException("unable to load certificate from '" + file + "': no private key in the file (and"
                        + " 'ssl-load-extra-files' does not include 'key')");
            }
            keySource = files.companion(file, ".key");
            if (!Files.exists(keySource)) {
                throw new IllegalArgumentException("unable to load certificate from '" + file + "': no private key in the file and no '"
                        + keySource + "' next to it");
            }
            Contents k = read(keySource, "private key");
            if (k.keys().size() != 1) {
                throw new IllegalArgumentException("unable to load private key from '" + keySource + "': "
                        + (k.keys().isEmpty() ? "no private key found in the file" : "the file holds " + k.keys().size() + " private keys"));
            }
            key = k.keys().get(0);
        } else {
            key = c.keys().get(0);
        }
        List<X509Certificate> chain = files.complete(c.certificates());
        if (!matches(key, chain.get(0).getPublicKey())) {
            for (int i = 1; i < chain.size(); i++) {
                if (matches(key, chain.get(i).getPublicKey())) {
                    throw new IllegalArgumentException("unable to load certificate from '" + file + "': the private key"
                            + (keySource == file ? "" : " from '" + keySource + "'") + " matches certificate #" + (i + 1) + " ("
                            + chain.get(i).getSubjectX500Principal().getName() + "), not the first one: the server certificate must come "
                            + "before its chain");
                }
            }
            throw new IllegalArgumentException("unable to load certificate from '" + file + "': the private key"
                    + (keySource == file ? "" : " from '" + keySource + "'") + " does not match the certificate ("
                    + chain.get(0).getSubjectX500Principal().getName() + ")");
        }
        return new CertifiedKey(file, key, chain);
    }

    /** Loads a bundle of CA certificates ({@code ca-file}); private keys in it are ignored. */
    public static List<X509Certificate> loadCertificates(Path file) {
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException("unable to load CA file '" + file + "': is a directory");
        }
        Contents c = read(file, "CA file");
        if (c.certificates().isEmpty()) {
            throw new IllegalArgumentException("unable to load CA file '" + file + "': no certificate found in the file");
        }
        return c.certificates();
    }

    private static Contents read(Path file, String what) {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(head(what, file) + ": No such file or directory");
        }
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException(head(what, file) + ": is a directory");
        }
        List<X509Certificate> certs = new ArrayList<>();
        List<PrivateKey> keys = new ArrayList<>();
        JcaX509CertificateConverter certConverter = new JcaX509CertificateConverter();
        JcaPEMKeyConverter keyConverter = new JcaPEMKeyConverter();
        // PEM is ASCII; Latin-1 never fails on stray bytes in the text around the blocks
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1); PEMParser parser = new PEMParser(r)) {
            while (true) {
                Object o;
                try {
                    o = parser.readObject();
                } catch (IOException e) {
                    String m = String.valueOf(e.getMessage());
                    if (m.startsWith("unrecognised object: ")) {
                        // DH PARAMETERS and other blocks PEMParser has no parser for: the block was consumed, go on
                        continue;
                    }
                    throw new IllegalArgumentException(head(what, file) + ": malformed PEM data (" + m + ")", e);
                }
                if (o == null) {
                    break;
                }
                switch (o) {
                    case X509CertificateHolder h -> certs.add(certConverter.getCertificate(h));
                    case X509TrustedCertificateBlock t -> certs.add(certConverter.getCertificate(t.getCertificateHolder()));
                    case PEMKeyPair kp -> keys.add(keyConverter.getPrivateKey(kp.getPrivateKeyInfo()));
                    case PrivateKeyInfo pki -> keys.add(keyConverter.getPrivateKey(pki));
                    case PEMEncryptedKeyPair e -> throw encrypted(file, what);
                    case PKCS8EncryptedPrivateKeyInfo e -> throw encrypted(file, what);
                    default -> {
                        // EC PARAMETERS, CRLs, requests, public keys: not needed here
                    }
                }
            }
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(head(what, file) + ": No such file or directory", e);
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException(head(what, file) + ": Permission denied", e);
        } catch (IOException e) {
            throw fail(head(what, file), e);
        } catch (CertificateException e) {
            throw fail(head(what, file) + ": invalid certificate", e);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("unable to load ")) {
                throw e;
            }
            throw fail(head(what, file) + ": invalid content", e);
        } catch (RuntimeException e) {
            // Bouncy Castle reports some malformed DER content with unchecked exceptions
            throw fail(head(what, file) + ": invalid content", e);
        }
        return new Contents(certs, keys);
    }

    private static IllegalArgumentException encrypted(Path file, String what) {
        return new IllegalArgumentException(head(what, file) + ": the private key is encrypted "
                + "(Sluice cannot ask for a pass phrase: store it decrypted, e.g. with 'openssl pkey -in KEY -out KEY.clear')");
    }

    private static IllegalArgumentException fail(String head, Exception e) {
        String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new IllegalArgumentException(head + ": " + why, e);
    }

    /** "unable to load certificate from 'f'", "unable to load CA file 'f'". */
    private static String head(String what, Path file) {
        return what.equals("CA file") ? "unable to load CA file '" + file + "'" : "unable to load " + what + " from '" + file + "'";
    }

    /** True when {@code key} is the private half of {@code pub}. */
    static boolean matches(PrivateKey key, PublicKey pub) {
        if (key instanceof RSAPrivateKey rk) {
            if (!(pub instanceof RSAPublicKey rp) || !rk.getModulus().equals(rp.getModulus())) {
                return false;
            }
            return !(key instanceof RSAPrivateCrtKey crt) || crt.getPublicExponent().equals(rp.getPublicExponent());
        }
        String alg = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> "EdDSA";
            case "DSA" -> "SHA256withDSA";
            default -> null;
        };
        if (alg == null || !sameFamily(key.getAlgorithm(), pub.getAlgorithm())) {
            return false;
        }
        // no shortcut for these: sign a random challenge and verify it with the certificate's key
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature s = Signature.getInstance(alg);
            s.initSign(key);
            s.update(challenge);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(alg);
            v.initVerify(pub);
            v.update(challenge);
            return v.verify(sig);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    private static boolean sameFamily(String a, String b) {
        if (a.equals(b)) {
            return true;
        }
        boolean edA = a.startsWith("Ed");
        boolean edB = b.startsWith("Ed");
        return edA && edB;
    }
}

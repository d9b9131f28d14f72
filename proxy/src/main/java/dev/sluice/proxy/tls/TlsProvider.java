package dev.sluice.proxy.tls;

import dev.sluice.config.model.TlsVersion;
import io.netty.handler.ssl.CipherSuiteConverter;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslPrivateKeyMethod;
import io.netty.handler.ssl.SslProvider;
import io.netty.internal.tcnative.SSL;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The TLS implementation contexts are built with, and the translation of HAProxy's TLS settings for it.
 * BoringSSL through netty-tcnative when it loads ({@link SslProvider#OPENSSL}, always set explicitly: Netty
 * would otherwise fall back to the JDK silently); the JDK's provider otherwise, with a warning that the
 * caller logs once. Immutable; shared by every context of a {@link TlsContexts}; start-up only.
 */
public final class TlsProvider {
    /** The TLS 1.3 suites BoringSSL always enables (it offers no way to choose them). */
    /** Starts a message of the warning consumers that is only a notice. */
    public static final String NOTICE = "notice: ";
    static final List<String> BORINGSSL_TLS13 = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");
    private static final Set<String> TLS13_SUITES = Set.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256");

    private final SslProvider provider;
    private final String warning;
    private final boolean boringSsl;

    private TlsProvider(SslProvider provider, String warning) {
        this.provider = provider;
        this.warning = warning;
        this.boringSsl = provider == SslProvider.OPENSSL && OpenSsl.versionString() != null && OpenSsl.versionString().startsWith("BoringSSL");
    }

    /** BoringSSL when netty-tcnative loads on this machine, else the JDK provider with a warning. */
    public static TlsProvider detect() {
        if (OpenSsl.isAvailable()) {
            return new TlsProvider(SslProvider.OPENSSL, null);
        }
        Throwable why = OpenSsl.unavailabilityCause();
        return new TlsProvider(SslProvider.JDK, "TLS: BoringSSL (netty-tcnative) is not available ("
                + (why == null ? "unknown reason" : why.toString()) + "); using the JDK's TLS provider instead: cipher expressions, "
                + "tune.ssl.cachesize 0 and no-tls-tickets are approximated, and TLS is slower.");
    }

    /** The JDK provider, whatever is available (tests of the fallback). */
    static TlsProvider jdk(String warning) {
        return new TlsProvider(SslProvider.JDK, warning);
    }

    public SslProvider sslProvider() {
        return provider;
    }

    public boolean isOpenSsl() {
        return provider == SslProvider.OPENSSL;
    }

    /** Why the JDK provider is used, to be logged once; null with BoringSSL. */
    public String warning() {
        return warning;
    }

    /** "BoringSSL" (with OpenSSL's version string) or "JDK". */
    public String name() {
        return isOpenSsl() ? OpenSsl.versionString() : "JDK";
    }

    /**
     * Who makes the signatures of RSA certificates: with BoringSSL, the system's OpenSSL 3 when its libcrypto loads
     * ({@link SystemRsa}), e.g. "OpenSSL 3.0.19 27 Jan 2026"; else {@link #name()}.
     */
    public String rsaSigner() {
        return boringSsl && SystemRsa.INSTANCE != null ? SystemRsa.INSTANCE.version() : name();
    }

    /** The key operations of {@code key}'s contexts when another library makes them faster, else null. */
    public OpenSslPrivateKeyMethod keyMethod(PrivateKey key) {
        SystemRsa lib = SystemRsa.INSTANCE;
        return boringSsl && lib != null && key instanceof RSAPrivateCrtKey rsa ? new RsaKeyMethod(lib, rsa) : null;
    }

    /**
     * The protocol names from {@code min} to {@code max}. Unset bounds mean TLS 1.2 and TLS 1.3 (HAProxy's
     * defaults); a version the provider lacks (SSLv3) is dropped with a warning.
     */
    String[] protocols(TlsVersion min, TlsVersion max, Consumer<String> warn) {
        TlsVersion hi = max == null ? TlsVersion.TLSV13 : max;
        TlsVersion lo = min != null ? min : (hi.ordinal() < TlsVersion.TLSV12.ordinal() ? hi : TlsVersion.TLSV12);
        if (lo.ordinal() > hi.ordinal()) {
            throw new IllegalArgumentException("ssl-min-ver " + lo.keyword() + " is above ssl-max-ver " + hi.keyword());
        }
        List<String> out = new ArrayList<>();
        for (TlsVersion v : TlsVersion.values()) {
            if (v.ordinal() < lo.ordinal() || v.ordinal() > hi.ordinal()) {
                continue;
            }
            if (v == TlsVersion.SSLV3 || (v == TlsVersion.TLSV13 && !SslProvider.isTlsv13Supported(provider))) {
                warn.accept(v.keyword() + " is not supported by " + name() + ": ignored");
                continue;
            }
            out.add(v.protocol());
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no TLS version between " + lo.keyword() + " and " + hi.keyword() + " is supported by " + name());
        }
        return out.toArray(new String[0]);
    }

    /**
     * The cipher list to give Netty for {@code ciphers} (TLS 1.2 and below, OpenSSL syntax) and
     * {@code ciphersuites} (TLS 1.3), or null for the library's defaults.
     */
    List<String> ciphers(String ciphers, String ciphersuites, Consumer<String> warn) {
        if (ciphers == null && ciphersuites == null) {
            return null;
        }
        List<String> tls13 = null;
        if (ciphersuites != null) {
            tls13 = new ArrayList<>();
            for (String s : split(ciphersuites)) {
                if (!TLS13_SUITES.contains(s)) {
                    throw new IllegalArgumentException("'ciphersuites' : unknown TLS 1.3 cipher suite '" + s + "' (expected some of "
                            + String.join(":", new TreeSet<>(TLS13_SUITES)) + ")");
                }
                tls13.add(s);
            }
            if (boringSsl) {
                // a list of exactly what BoringSSL offers (Mozilla's intermediate profile, for one) changes nothing: no warning
                if (!new java.util.HashSet<>(tls13).equals(new java.util.HashSet<>(BORINGSSL_TLS13))) {
                    warn.accept("'ciphersuites' has no effect with BoringSSL, which always offers " + String.join(":", BORINGSSL_TLS13));
                }
                tls13 = null;
            }
        }
        if (isOpenSsl()) {
            if (ciphers == null && tls13 == null) {
                return null;
            }
            List<String> out = new ArrayList<>(ciphers == null ? defaultTls12() : usable(ciphers, warn));
            // Netty disables TLS 1.3 on a context whose list has no TLS 1.3 suite: always give some
            out.addAll(tls13 != null ? tls13 : BORINGSSL_TLS13);
            return out;
        }
        return jdkCiphers(ciphers, tls13, warn);
    }

    /** The TLS 1.2 cipher list an OpenSSL cipher string selects, in preference order (BoringSSL evaluates it). */
    static List<String> expand(String spec) {
        long ctx = 0;
        long ssl = 0;
        try {
            ctx = io.netty.internal.tcnative.SSLContext.make(SSL.SSL_PROTOCOL_TLSV1 | SSL.SSL_PROTOCOL_TLSV1_1 | SSL.SSL_PROTOCOL_TLSV1_2,
                    SSL.SSL_MODE_SERVER);
            if (!io.netty.internal.tcnative.SSLContext.setCipherSuite(ctx, spec, false)) {
                throw new IllegalArgumentException("'ciphers' : invalid cipher list '" + spec + "'");
            }
            ssl = SSL.newSSL(ctx, true);
            String[] names = SSL.getCiphers(ssl);
            List<String> out = new ArrayList<>();
            if (names != null) {
                for (String n : names) {
                    if (!TLS13_SUITES.contains(n)) {
                        out.add(n);
                    }
                }
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException("'ciphers' : '" + spec + "' selects no cipher");
            }
            return out;
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            if (why.contains("NO_CIPHER_MATCH")) {
                throw new IllegalArgumentException("'ciphers' : '" + spec + "' selects no cipher", e);
            }
            throw new IllegalArgumentException("'ciphers' : invalid cipher list '" + spec + "' (" + why + ")", e);
        } finally {
            if (ssl != 0) {
                SSL.freeSSL(ssl);
            }
            if (ctx != 0) {
                io.netty.internal.tcnative.SSLContext.free(ctx);
            }
        }
    }

    /**
     * The TLS 1.2 ciphers of {@code spec} that can be used, with OpenSSL's cipher-list semantics (what HAProxy users
     * expect): a named cipher that cannot be used is left out, with a warning naming it (a typo silently narrows
     * the list), and only a list left with nothing is an error. A name is left out for one of two reasons:
     * <ul>
     * <li>BoringSSL does not know it, and its cipher-list parser skips it, as OpenSSL's does: it dropped the CBC
     * suites with SHA-256 and SHA-384 MACs (ECDHE-ECDSA-AES128-SHA256, ECDHE-RSA-AES256-SHA384 ...), DHE,
     * CAMELLIA, ...;</li>
     * <li>BoringSSL knows it but keeps it out of its {@code ALL} (ECDHE-RSA-AES128-SHA256, kept for old clients
     * only), and Netty refuses a whole list with such a name ("failed to set cipher suite"): it accepts only what
     * {@code ALL} selects ({@link OpenSsl#isCipherSuiteAvailable}).</li>
     * </ul>
     * Ciphers a keyword selects ({@code HIGH}) are filtered the same way, without a warning: none was named.
     */
    private List<String> usable(String spec, Consumer<String> warn) {
        List<String> selected = expand(spec);
        List<String> out = new ArrayList<>();
        Set<String> unavailable = new LinkedHashSet<>();
        for (String c : selected) {
            if (OpenSsl.isCipherSuiteAvailable(c)) {
                out.add(c);
            } else {
                unavailable.add(c);
            }
        }
        List<String> ignored = new ArrayList<>();
        for (String t : split(spec)) {
            char c = t.charAt(0);
            // explicit cipher names have dashes; keywords (HIGH, ECDHE, aNULL), removals and operators are not checked
            if (c == '!' || c == '-' || c == '+' || c == '@' || t.indexOf('+') >= 0 || t.indexOf('-') < 0 || TLS13_SUITES.contains(t)) {
                continue;
            }
            if (unavailable.contains(t) || !selected.contains(t) && !known(t)) {
                ignored.add(t);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("'ciphers' : '" + spec + "' selects no cipher " + name() + " can use");
        }
        // finite-field Diffie-Hellman suites (DHE-, EDH-), which OpenSSL has and BoringSSL dropped, are in common lists
        // (Mozilla's intermediate profile): OpenSSL would skip a name it does not have without a word, so leaving these
        // out is a notice, not a warning that 'zero-warning' makes fatal; any other name is a warning (a typo?)
        List<String> dhe = ignored.stream().filter(t -> t.startsWith("DHE-") || t.startsWith("EDH-")).toList();
        ignored.removeAll(dhe);
        if (!dhe.isEmpty()) {
            warn.accept(NOTICE + "'ciphers' : leaving out the finite-field DHE cipher(s) " + name() + " does not have: "
                    + String.join(":", dhe));
        }
        if (!ignored.isEmpty()) {
            warn.accept("'ciphers' : ignoring cipher name(s) " + name() + " cannot use: " + String.join(":", ignored));
        }
        return out;
    }

    /** Whether BoringSSL knows the cipher {@code name} (a list of it alone selects something). */
    private static boolean known(String name) {
        try {
            expand(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Netty's default TLS 1.2 list (what a context gets without {@code ciphers}). */
    private static List<String> defaultTls12() {
        return expand("ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
                + "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA:AES128-GCM-SHA256:"
                + "AES128-SHA:AES256-SHA");
    }

    /** The JDK understands cipher names, not OpenSSL expressions: names are converted, the rest ignored with a warning. */
    private static List<String> jdkCiphers(String ciphers, List<String> tls13, Consumer<String> warn) {
        List<String> defaults;
        try {
            defaults = List.of(javax.net.ssl.SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no default TLS context in this JVM", e);
        }
        List<String> out = new ArrayList<>();
        if (ciphers != null) {
            List<String> ignored = new ArrayList<>();
            for (String c : split(ciphers)) {
                String java = c.startsWith("TLS_") ? c : CipherSuiteConverter.toJava(c, "TLS");
                if (java == null) {
                    ignored.add(c);
                } else {
                    out.add(java);
                }
            }
            if (!ignored.isEmpty()) {
                warn.accept("'ciphers' : the JDK provider ignores " + String.join(":", ignored) + " (only cipher names are understood)");
            }
            if (out.isEmpty()) {
                warn.accept("'ciphers' : nothing usable by the JDK provider in '" + ciphers + "': using its defaults");
                defaults.stream().filter(s -> !TLS13_SUITES.contains(s)).forEach(out::add);
            }
        } else {
            defaults.stream().filter(s -> !TLS13_SUITES.contains(s)).forEach(out::add);
        }
        if (tls13 != null) {
            out.addAll(tls13);
        } else {
            defaults.stream().filter(TLS13_SUITES::contains).forEach(out::add);
        }
        return out;
    }

    /**
     * The groups of a {@code curves} list ({@code X25519:P-256}), for {@code OpenSslContextOption.GROUPS}
     * with BoringSSL (which validates them when the context is built) or the JDK's named groups.
     */
    String[] groups(String curves) {
        if (curves == null) {
            return null;
        }
        List<String> names = split(curves);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("'curves' : empty list");
        }
        if (isOpenSsl()) {
            return names.toArray(new String[0]);
        }
        Set<String> out = new LinkedHashSet<>();
        for (String n : names) {
            out.add(switch (n.toUpperCase(Locale.ROOT)) {
                case "P-256", "PRIME256V1", "SECP256R1" -> "secp256r1";
                case "P-384", "SECP384R1" -> "secp384r1";
                case "P-521", "SECP521R1" -> "secp521r1";
                case "X25519" -> "x25519";
                case "X448" -> "x448";
                default -> n;
            });
        }
        return out.toArray(new String[0]);
    }

    /** Splits an OpenSSL list: elements are separated by colons (commas and spaces are accepted too). */
    static List<String> split(String list) {
        List<String> out = new ArrayList<>();
        for (String s : list.split("[:, ]+")) {
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return out;
    }
}

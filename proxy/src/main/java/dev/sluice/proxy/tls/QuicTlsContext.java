package dev.sluice.proxy.tls;

import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.Verify;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The TLS side of a QUIC bind: contexts of Netty's QUIC codec (quiche with its own BoringSSL, not
 * netty-tcnative's), one per certificate, chosen by SNI as TCP binds choose theirs ({@link SniMapping}). QUIC
 * always runs TLS 1.3 with BoringSSL's cipher suites, so the version, cipher and curve options of the line
 * do not apply (a warning says so); client certificates are not offered on QUIC binds yet. Built once at
 * start-up.
 */
public final class QuicTlsContext {
    private QuicTlsContext() {
    }

    /** Builds the context of a QUIC bind; throws {@link IllegalArgumentException} naming what is wrong. */
    static QuicSslContext build(BindTls tls, Global global, Consumer<String> warn) {
        return build(tls, global, CertFiles.DEFAULT, warn);
    }

    /** The same, the certificate files completed as {@code files} says. */
    static QuicSslContext build(BindTls tls, Global global, CertFiles files, Consumer<String> warn) {
        if (tls.certificates().isEmpty()) {
            throw new IllegalArgumentException("'ssl' needs at least one certificate ('crt')");
        }
        if (tls.verify() != Verify.NONE) {
            throw new IllegalArgumentException("client certificate verification ('verify') is not supported on QUIC binds yet");
        }
        String ignored = ignoredOptions(tls);
        if (ignored != null) {
            warn.accept(ignored);
        }
        List<CertifiedKey> certs = new ArrayList<>();
        for (String crt : tls.certificates()) {
            certs.addAll(PemLoader.loadCrt(Path.of(crt), files));
        }
        String[] alpn = tls.alpn().toArray(new String[0]);
        long cacheSize = Math.max(0, global.sslCacheSize());
        long timeoutSeconds = Math.max(1, (global.sslLifetimeMs() + 999) / 1000);
        List<QuicSslContext> contexts = new ArrayList<>();
        for (CertifiedKey ck : certs) {
            try {
                contexts.add(QuicSslContextBuilder.forServer(ck.key(), null, ck.chainArray())
                        .applicationProtocols(alpn)
                        .earlyData(tls.earlyData())
                        .sessionCacheSize(cacheSize)
                        .sessionTimeout(timeoutSeconds)
                        .build());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("unable to use certificate '" + ck.source() + "' for QUIC: "
                        + ServerTlsContext.rootMessage(e), e);
            }
        }
        if (contexts.size() == 1 && !tls.strictSni()) {
            return contexts.get(0);
        }
        return QuicSslContextBuilder.buildForServerWithSni(new SniMapping<>(certs, contexts, tls.strictSni()));
    }

    /**
     * The warning for the TLS options of a QUIC bind that would make its handshake differ from HAProxy's, or null. QUIC runs
     * TLS 1.3 only, so 'ciphers' (TLS 1.2 and below), version bounds that allow 1.3 and the cipher preference change
     * nothing there, in HAProxy either (they often come from ssl-default-bind-*, meant for the TCP binds); what differs is a
     * 'ciphersuites' list other than the suites BoringSSL always offers, 'curves', and a maximum below TLS 1.3.
     */
    static String ignoredOptions(BindTls tls) {
        List<String> differ = new ArrayList<>();
        if (tls.ciphersuites() != null && !new java.util.HashSet<>(List.of(tls.ciphersuites().split(":")))
                .equals(new java.util.HashSet<>(TlsProvider.BORINGSSL_TLS13))) {
            differ.add("'ciphersuites'");
        }
        if (tls.curves() != null) {
            differ.add("'curves'");
        }
        if (tls.maxVersion() != null && tls.maxVersion().compareTo(dev.sluice.config.model.TlsVersion.TLSV13) < 0) {
            differ.add("a maximum version below TLSv1.3");
        }
        if (differ.isEmpty()) {
            return null;
        }
        return String.join(" and ", differ) + (differ.size() == 1 ? " does" : " do") + " not apply to QUIC binds (QUIC always runs"
                + " TLS 1.3 with BoringSSL's suites and groups)";
    }
}

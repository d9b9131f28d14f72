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
        if (tls.ciphers() != null || tls.ciphersuites() != null || tls.curves() != null || tls.minVersion() != null
                || tls.maxVersion() != null || tls.preferClientCiphers()) {
            warn.accept("TLS version, cipher and curve options do not apply to QUIC binds (QUIC always runs TLS 1.3 with BoringSSL's suites)");
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
}

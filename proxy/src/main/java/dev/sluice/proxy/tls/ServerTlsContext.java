package dev.sluice.proxy.tls;

import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.Verify;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslPrivateKeyMethod;
import io.netty.handler.ssl.OpenSslServerSessionContext;
import io.netty.handler.ssl.OpenSslX509KeyManagerFactory;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSessionContext;

/**
 * The TLS side of a {@code bind ... ssl}: one Netty context per certificate, built once at start-up with
 * everything a handshake needs already computed (key material converted, cipher lists expanded, session
 * cache and ticket keys installed), and the SNI table that picks among them. {@link #newHandler} gives
 * each accepted connection the handler to put first in its pipeline: an {@link SslHandler} when the bind
 * has one certificate and no {@code strict-sni}, else an SNI selector that becomes the {@code SslHandler}
 * of the matching context once the ClientHello is read. Immutable and shared by every event loop; the
 * session caches inside the contexts are thread-safe.
 * <p>
 * Session resumption: each context has its own session cache ({@code tune.ssl.cachesize} entries,
 * 0 disables it; {@code tune.ssl.lifetime}) for TLS 1.2 session ids, and, unless {@code no-tls-tickets},
 * tickets encrypted with the process-wide {@link SessionTicketKeys} (BoringSSL resumes TLS 1.3 only with
 * tickets). Each context has its own session id context (a digest of the bind's TLS settings and the
 * certificate), so a session never resumes under another certificate or another client-certificate policy.
 */
public final class ServerTlsContext {
    /** Netty's default, used when the caller gives no handshake timeout. */
    public static final long DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

    private final BindTls tls;
    private final List<CertifiedKey> certificates;
    private final List<SslContext> contexts;
    private final SniMapping<SslContext> sni;
    private final List<OpenSslServerSessionContext> ticketed;

    /** {@code tune.ssl.hard-maxrecord}: the most plaintext per TLS record (0: the library's 16384). */
    private int maxRecord;

    private ServerTlsContext(BindTls tls, List<CertifiedKey> certificates, List<SslContext> contexts, List<OpenSslServerSessionContext> ticketed) {
        this.tls = tls;
        this.certificates = List.copyOf(certificates);
        this.contexts = List.copyOf(contexts);
        this.sni = contexts.size() > 1 || tls.strictSni() ? new SniMapping<>(certificates, contexts, tls.strictSni()) : null;
        this.ticketed = List.copyOf(ticketed);
    }

    /**
     * Loads the certificates of {@code tls} and builds their contexts. Throws {@link IllegalArgumentException}
     * with the reason (naming the file at fault); reports lesser problems to {@code warn}.
     */
    static ServerTlsContext build(BindTls tls, Global global, TlsProvider provider, SessionTicketKeys keys, Consumer<String> warn) {
        return build(tls, global, CertFiles.DEFAULT, provider, keys, warn);
    }

    /** The same, the certificate files completed as {@code files} says. */
    static ServerTlsContext build(BindTls tls, Global global, CertFiles files, TlsProvider provider, SessionTicketKeys keys,
            Consumer<String> warn) {
        if (tls.certificates().isEmpty()) {
            throw new IllegalArgumentException("'ssl' needs at least one certificate ('crt')");
        }
        List<CertifiedKey> certs = new ArrayList<>();
        for (String crt : tls.certificates()) {
            certs.addAll(PemLoader.loadCrt(Path.of(crt), files));
        }
        TrustSource trust = null;
        if (tls.verify() != Verify.NONE) {
            if (tls.caFile() == null) {
                throw new IllegalArgumentException("verify is enabled but no CA file specified ('ca-file')");
            }
            trust = TrustSource.load(tls.caFile());
        }
        String[] protocols = provider.protocols(tls.minVersion(), tls.maxVersion(), warn);
        List<String> ciphers = provider.ciphers(tls.ciphers(), tls.ciphersuites(), warn);
        String[] groups = provider.groups(tls.curves());
        // no protocol: no ALPN (a TCP frontend's bind without 'alpn', as HAProxy)
        ApplicationProtocolConfig apn = tls.alpn().isEmpty() ? ApplicationProtocolConfig.DISABLED
                : new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN, ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, tls.alpn());
        int cacheSize = Math.max(0, global.sslCacheSize());
        long timeoutSeconds = Math.max(1, (global.sslLifetimeMs() + 999) / 1000);
        if (!provider.isOpenSsl()) {
            if (cacheSize == 0) {
                warn.accept("tune.ssl.cachesize 0 cannot disable the JDK provider's session cache: one session is kept");
            }
            if (!tls.tickets()) {
                warn.accept("'no-tls-tickets' is not applied by the JDK provider (its tickets follow jdk.tls.server.enableSessionTicketExtension)");
            }
        }

        List<SslContext> contexts = new ArrayList<>();
        List<OpenSslServerSessionContext> ticketed = new ArrayList<>();
        try {
            for (int i = 0; i < certs.size(); i++) {
                CertifiedKey ck = certs.get(i);
                // an RSA key signed by another library: BoringSSL gets the chain alone (with the key it would sign itself)
                OpenSslPrivateKeyMethod keyMethod = provider.keyMethod(ck.key());
                SslContextBuilder b = (keyMethod != null ? SslContextBuilder.forServer(keyless(ck)) : SslContextBuilder.forServer(ck.key(), ck.chainArray()))
                        .sslProvider(provider.sslProvider())
                        .protocols(protocols)
                        .applicationProtocolConfig(apn)
                        .sessionTimeout(timeoutSeconds);
                if (cacheSize > 0) {
                    b.sessionCacheSize(cacheSize);
                }
                if (ciphers != null) {
                    b.ciphers(ciphers, provider.isOpenSsl() ? IdentityCipherSuiteFilter.INSTANCE : SupportedCipherSuiteFilter.INSTANCE);
                }
                if (groups != null && provider.isOpenSsl()) {
                    b.option(OpenSslContextOption.GROUPS, groups);
                }
                if (keyMethod != null) {
                    b.option(OpenSslContextOption.PRIVATE_KEY_METHOD, keyMethod);
                }
                if (trust != null) {
                    trust.applyToBind(b, tls.caIgnoreErr(), tls.crtIgnoreErr());
                    b.clientAuth(tls.verify() == Verify.REQUIRED ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
                }
                SslContext ctx;
                try {
                    ctx = b.build();
                } catch (SSLException | RuntimeException e) {
                    throw new IllegalArgumentException(buildFailure(ck.source(), tls.curves(), e), e);
                }
                SSLSessionContext sessions = ctx.sessionContext();
                if (sessions instanceof OpenSslServerSessionContext os) {
                    os.setSessionIdContext(sessionIdContext(tls, i, ck));
                    if (cacheSize == 0) {
                        os.setSessionCacheEnabled(false);
                    }
                    if (tls.tickets()) {
                        keys.install(os);
                        ticketed.add(os);
                    }
                } else if (sessions != null && cacheSize == 0) {
                    sessions.setSessionCacheSize(1);
                }
                ctx = TunedSslContext.wrap(ctx, provider.isOpenSsl(), !tls.tickets(), tls.preferClientCiphers(), groups);
                probe(ctx, ck.source());
                contexts.add(ctx);
            }
        } catch (RuntimeException e) {
            for (OpenSslServerSessionContext os : ticketed) {
                keys.remove(os);
            }
            throw e;
        }
        ServerTlsContext c = new ServerTlsContext(tls, certs, contexts, ticketed);
        c.maxRecord = global.tls().maxRecord();
        return c;
    }

    /** A key manager with {@code ck}'s chain and no key, for contexts whose key operations a key method makes. */
    static KeyManagerFactory keyless(CertifiedKey ck) {
        try {
            return OpenSslX509KeyManagerFactory.newKeyless(ck.chainArray());
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("unable to use certificate '" + ck.source() + "': " + rootMessage(e), e);
        }
    }

    private static String buildFailure(Path source, String curves, Exception e) {
        String why = rootMessage(e);
        if (curves != null && why.contains("curves")) {
            return "'curves' : unsupported curve list '" + curves + "' (" + why + ")";
        }
        return "unable to use certificate '" + source + "': " + why;
    }

    static String rootMessage(Throwable e) {
        String m = e.getMessage();
        Throwable c = e.getCause();
        while ((m == null || m.isEmpty()) && c != null) {
            m = c.getMessage();
            c = c.getCause();
        }
        return m == null ? e.getClass().getSimpleName() : m;
    }

    /** Creates and frees one engine so that what Netty checks per engine (protocols, ciphers) fails now, not per connection. */
    static void probe(SslContext ctx, Object what) {
        SSLEngine engine = null;
        try {
            engine = ctx.newEngine(ByteBufAllocator.DEFAULT);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("unable to create a TLS engine for '" + what + "': " + rootMessage(e), e);
        } finally {
            ReferenceCountUtil.release(engine);
        }
    }

    /** 32 bytes (BoringSSL's maximum) naming the bind's TLS settings and the certificate. */
    private static byte[] sessionIdContext(BindTls tls, int index, CertifiedKey ck) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(tls.toString().getBytes(StandardCharsets.UTF_8));
            d.update((byte) index);
            d.update(ck.leaf().getEncoded());
            return d.digest();
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The handler to put first in an accepted connection's pipeline, with Netty's default handshake timeout. */
    public ChannelHandler newHandler(ByteBufAllocator alloc) {
        return newHandler(alloc, DEFAULT_HANDSHAKE_TIMEOUT_MS);
    }

    /**
     * The handler to put first in an accepted connection's pipeline: an {@link SslHandler}, or an SNI
     * selector that replaces itself with one (named {@code SslHandler.class.getName()}) when the ClientHello
     * has arrived. The handshake fails and the connection closes after {@code handshakeTimeoutMillis}
     * (0: never). Follow it with a {@link TlsHandshakeHandler} to learn the ALPN protocol and SNI.
     */
    public ChannelHandler newHandler(ByteBufAllocator alloc, long handshakeTimeoutMillis) {
        if (sni != null) {
            return new SniSelector(sni, handshakeTimeoutMillis, maxRecord);
        }
        SslHandler h = contexts.get(0).newHandler(alloc);
        h.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
        if (maxRecord > 0) {
            h.setWrapDataSize(maxRecord);
        }
        return h;
    }

    /** The context SNI {@code serverName} selects (null: no name sent); null when strict-sni refuses it. */
    public SslContext contextFor(String serverName) {
        return sni == null ? contexts.get(0) : sni.map(serverName == null ? null : serverName.toLowerCase(Locale.ROOT));
    }

    /** The certificates in load order, the first being the default one. */
    public List<CertifiedKey> certificates() {
        return certificates;
    }

    /** The certificate a context returned by {@link #contextFor} serves. */
    public CertifiedKey certificateOf(SslContext ctx) {
        int i = contexts.indexOf(ctx);
        return i < 0 ? null : certificates.get(i);
    }

    /** Whether connections go through SNI selection first (several certificates or strict-sni). */
    public boolean selectsBySni() {
        return sni != null;
    }

    public BindTls settings() {
        return tls;
    }

    /** Configurations that use these contexts (an in-process reload hands unchanged ones on). */
    private int users = 1;

    /** One configuration more uses these contexts. */
    synchronized void retain() {
        users++;
    }

    /** Stops rotating ticket keys into these contexts once no configuration uses them (when the bind is discarded). */
    synchronized void close(SessionTicketKeys keys) {
        if (--users > 0) {
            return;
        }
        for (OpenSslServerSessionContext os : ticketed) {
            keys.remove(os);
        }
    }
}

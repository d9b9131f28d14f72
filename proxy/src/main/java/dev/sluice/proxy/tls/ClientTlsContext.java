package dev.sluice.proxy.tls;

import dev.sluice.config.model.Global;
import dev.sluice.config.model.ServerTls;
import dev.sluice.config.model.Verify;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslPrivateKeyMethod;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSessionContext;

/**
 * TLS towards a server ({@code server ... ssl}): built once per distinct {@link ServerTls} at start-up and
 * shared by every server and event loop using those settings; {@link #newHandler} makes the
 * {@link SslHandler} of one connection.
 * <p>
 * Verification: {@code verify none} accepts any certificate. {@code verify required} checks the chain
 * against {@code ca-file} (a PEM bundle, or {@code @system-ca}) and, when the connection sends an SNI, that
 * the certificate covers that name (HAProxy checks against {@code verifyhost} when set, else the SNI; the
 * model has no {@code verifyhost} yet, so the SNI is the name checked). Without SNI only the chain is
 * checked, as in HAProxy. Two Netty contexts exist for that reason: one with HTTPS endpoint identification
 * (connections with an SNI), one without.
 * <p>
 * Session reuse ({@code no-ssl-reuse} turns it off): sessions are cached per (SNI or server address,
 * port), so a connection resumes only a session made for the same name; servers sharing an SNI and a port
 * share one slot. Immutable; {@link #newHandler} is called on event loops and costs one engine.
 */
public final class ClientTlsContext {
    private final ServerTls tls;
    private final SslContext plain;
    private final SslContext verifying;
    /** Builds the same contexts offering other ALPN protocols (a check's {@code connect ... alpn}); null: cannot. */
    private java.util.function.Function<List<String>, ClientTlsContext> withAlpn;
    private final java.util.Map<List<String>, ClientTlsContext> alpnVariants = new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code tune.ssl.hard-maxrecord}: the most plaintext per TLS record (0: the library's 16384). */
    private int maxRecord;

    private ClientTlsContext(ServerTls tls, SslContext plain, SslContext verifying) {
        this.tls = tls;
        this.plain = plain;
        this.verifying = verifying;
    }

    /** Builds the contexts; throws {@link IllegalArgumentException} with the reason, naming the file at fault. */
    static ClientTlsContext build(ServerTls tls, Global global, TlsProvider provider, Consumer<String> warn) {
        return build(tls, global, CertFiles.DEFAULT, provider, warn);
    }

    /** The same, the client certificate completed as {@code files} says. */
    static ClientTlsContext build(ServerTls tls, Global global, CertFiles files, TlsProvider provider, Consumer<String> warn) {
        TrustSource trust = null;
        if (tls.verify() == Verify.REQUIRED) {
            if (tls.caFile() == null) {
                throw new IllegalArgumentException("verify is enabled by default but no CA file specified. If you're running on a LAN "
                        + "where you're certain to trust the server's certificate, please set an explicit 'verify none' statement on the "
                        + "'server' line, or use 'ssl-server-verify none' in the global section to disable server-side verifications by default.");
            }
            trust = TrustSource.load(tls.caFile());
        }
        CertifiedKey clientCert = null;
        if (tls.crt() != null) {
            Path p = Path.of(tls.crt());
            if (Files.isDirectory(p)) {
                throw new IllegalArgumentException("client certificate '" + p + "' is a directory (a server's 'crt' names one PEM file)");
            }
            clientCert = PemLoader.loadCertifiedKey(p, files);
        }
        String[] protocols = provider.protocols(tls.minVersion(), tls.maxVersion(), warn);
        List<String> ciphers = provider.ciphers(tls.ciphers(), tls.ciphersuites(), warn);
        if (!tls.sessionReuse() && !provider.isOpenSsl()) {
            warn.accept("'no-ssl-reuse' is not applied by the JDK provider");
        }
        long timeoutSeconds = Math.max(1, (global.sslLifetimeMs() + 999) / 1000);
        TrustSource t = trust;
        CertifiedKey k = clientCert;
        java.util.function.Function<List<String>, ClientTlsContext> make = alpn -> {
            SslContext plain = context(tls, alpn, provider, t, k, protocols, ciphers, timeoutSeconds, false);
            SslContext verifying = t == null ? null : context(tls, alpn, provider, t, k, protocols, ciphers, timeoutSeconds, true);
            ClientTlsContext c = new ClientTlsContext(tls, plain, verifying);
            c.maxRecord = global.tls().maxRecord();
            return c;
        };
        ClientTlsContext c = make.apply(tls.alpn());
        c.withAlpn = make;
        return c;
    }

    /**
     * These settings offering {@code alpn} through ALPN instead of the server's protocols (a health check's
     * {@code connect ... alpn}: the TLS library takes them per context, not per connection); built once per list.
     */
    public ClientTlsContext offering(List<String> alpn) {
        if (alpn.isEmpty() || alpn.equals(tls.alpn()) || withAlpn == null) {
            return this;
        }
        return alpnVariants.computeIfAbsent(List.copyOf(alpn), withAlpn);
    }

    private static SslContext context(ServerTls tls, List<String> alpn, TlsProvider provider, TrustSource trust, CertifiedKey clientCert,
            String[] protocols, List<String> ciphers, long timeoutSeconds, boolean checkName) {
        SslContextBuilder b = SslContextBuilder.forClient()
                .sslProvider(provider.sslProvider())
                .protocols(protocols)
                .sessionTimeout(timeoutSeconds)
                // Netty 4.2 turns HTTPS endpoint identification on by default; it is wanted only with a name to check
                .endpointIdentificationAlgorithm(checkName ? "HTTPS" : null);
        if (trust != null) {
            trust.applyTo(b);
        } else {
            b.trustManager(InsecureTrustManagerFactory.INSTANCE);
        }
        if (clientCert != null) {
            OpenSslPrivateKeyMethod keyMethod = provider.keyMethod(clientCert.key());
            if (keyMethod != null) {
                b.keyManager(ServerTlsContext.keyless(clientCert)).option(OpenSslContextOption.PRIVATE_KEY_METHOD, keyMethod);
            } else {
                b.keyManager(clientCert.key(), clientCert.chainArray());
            }
        }
        if (ciphers != null) {
            b.ciphers(ciphers, provider.isOpenSsl() ? IdentityCipherSuiteFilter.INSTANCE : SupportedCipherSuiteFilter.INSTANCE);
        }
        if (!alpn.isEmpty()) {
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
        }
        SslContext ctx;
        try {
            ctx = b.build();
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException("unable to set up TLS towards the server: " + ServerTlsContext.rootMessage(e), e);
        }
        SSLSessionContext sessions = ctx.sessionContext();
        if (!tls.sessionReuse() && sessions instanceof OpenSslSessionContext os) {
            os.setSessionCacheEnabled(false);
        }
        ServerTlsContext.probe(ctx, "server TLS settings");
        return ctx;
    }

    /**
     * The handler of one connection to {@code peer}, to put first in its pipeline before connecting (it
     * starts the handshake when the channel becomes active). {@code sni} is the evaluated {@code sni}
     * expression, or null to send none. After {@link SslHandler#handshakeFuture()} succeeds,
     * {@link SslHandler#applicationProtocol()} tells what ALPN chose (null: none), to pick HTTP/1.1 or h2.
     */
    public SslHandler newHandler(ByteBufAllocator alloc, String sni, InetSocketAddress peer) {
        boolean named = sni != null && !sni.isEmpty();
        // Netty sends the peer host as SNI when it is a host name, and keys the session cache on it: an IP
        // literal sends no SNI and gives each server its own cache slot
        String host = named ? sni : peer.getAddress() != null ? peer.getAddress().getHostAddress() : peer.getHostString();
        SslContext ctx = named && verifying != null ? verifying : plain;
        SslHandler h = ctx.newHandler(alloc, host, peer.getPort());
        if (maxRecord > 0) {
            h.setWrapDataSize(maxRecord);
        }
        return h;
    }

    /** The protocols offered through ALPN (empty: no ALPN). */
    public List<String> alpn() {
        return tls.alpn();
    }

    public ServerTls settings() {
        return tls;
    }
}

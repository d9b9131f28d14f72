package dev.sluice.proxy.tls;

import io.netty.handler.ssl.DelegatingSslContext;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.internal.tcnative.SSL;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * A context whose engines get the settings Netty's builder has no option for, applied as each engine is
 * created: with BoringSSL, option bits on the native {@code SSL} (one JNI call, no allocation): clearing
 * {@code SSL_OP_CIPHER_SERVER_PREFERENCE} for {@code prefer-client-ciphers}, setting
 * {@code SSL_OP_NO_TICKET} for {@code no-tls-tickets} (Netty turns tickets back on per engine for TLS 1.3);
 * with the JDK, named groups and cipher order through {@link SSLParameters}. Immutable; engines are made on
 * event loops.
 */
final class TunedSslContext extends DelegatingSslContext {
    private final int setOptions;
    private final int clearOptions;
    private final String[] jdkGroups;
    private final boolean jdkPreferClient;

    private TunedSslContext(SslContext ctx, int setOptions, int clearOptions, String[] jdkGroups, boolean jdkPreferClient) {
        super(ctx);
        this.setOptions = setOptions;
        this.clearOptions = clearOptions;
        this.jdkGroups = jdkGroups;
        this.jdkPreferClient = jdkPreferClient;
    }

    /** Wraps {@code ctx} when something is to be tuned, else returns it as is. */
    static SslContext wrap(SslContext ctx, boolean openSsl, boolean noTickets, boolean preferClientCiphers, String[] groups) {
        if (openSsl) {
            int set = noTickets ? SSL.SSL_OP_NO_TICKET : 0;
            int clear = preferClientCiphers ? SSL.SSL_OP_CIPHER_SERVER_PREFERENCE : 0;
            return set == 0 && clear == 0 ? ctx : new TunedSslContext(ctx, set, clear, null, false);
        }
        return groups == null && !preferClientCiphers ? ctx : new TunedSslContext(ctx, 0, 0, groups, preferClientCiphers);
    }

    @Override
    protected void initEngine(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine e) {
            long ssl = e.sslPointer();
            if (ssl != 0) {
                if (setOptions != 0) {
                    SSL.setOptions(ssl, setOptions);
                }
                if (clearOptions != 0) {
                    SSL.clearOptions(ssl, clearOptions);
                }
            }
            return;
        }
        SSLParameters p = engine.getSSLParameters();
        if (jdkGroups != null) {
            p.setNamedGroups(jdkGroups);
        }
        if (jdkPreferClient) {
            p.setUseCipherSuitesOrder(false);
        }
        engine.setSSLParameters(p);
    }
}

package dev.sluice.proxy.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.internal.tcnative.SSL;
import io.netty.util.AttributeKey;
import java.util.List;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

/**
 * What a completed handshake settled, for choosing the HTTP version and for logs: the protocol
 * ({@code TLSv1.3}), the cipher, the ALPN protocol (null when none was agreed), the server name the client
 * sent (null when none) and whether the session was resumed (known with BoringSSL; always false with the
 * JDK provider, which does not tell). {@link TlsHandshakeHandler} stores it on the channel under
 * {@link #ATTRIBUTE}. Immutable.
 */
public record TlsSession(String protocol, String cipher, String alpn, String sni, boolean resumed) {

    public static final AttributeKey<TlsSession> ATTRIBUTE = AttributeKey.valueOf(TlsSession.class, "session");

    /** The session of a channel whose handshake completed, or null. */
    public static TlsSession of(Channel ch) {
        return ch.attr(ATTRIBUTE).get();
    }

    /** Reads the session of {@code handler}, whose handshake has completed; on the channel's event loop. */
    public static TlsSession of(SslHandler handler) {
        SSLEngine engine = handler.engine();
        SSLSession s = engine.getSession();
        return new TlsSession(s.getProtocol(), s.getCipherSuite(), handler.applicationProtocol(), serverName(s), resumed(engine));
    }

    private static String serverName(SSLSession s) {
        if (s instanceof ExtendedSSLSession x) {
            List<SNIServerName> names = x.getRequestedServerNames();
            if (names != null) {
                for (SNIServerName n : names) {
                    if (n instanceof SNIHostName h) {
                        return h.getAsciiName();
                    }
                }
            }
        }
        return null;
    }

    private static boolean resumed(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine e) {
            long ssl = e.sslPointer();
            return ssl != 0 && SSL.isSessionReused(ssl);
        }
        return false;
    }
}

package dev.sluice.proxy.rules;

import java.nio.ByteBuffer;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/** Test helper: real ClientHellos, as the JDK's {@link SSLEngine} sends them first as a client. */
public final class ClientHellos {
    private ClientHellos() {
    }

    /** One record holding the ClientHello of {@code protocol} ("TLSv1.3", "TLSv1.2"), with an SNI and ALPN names if given. */
    public static byte[] hello(String protocol, String sni, String... alpn) throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, null, null);
        SSLEngine engine = sni == null ? ctx.createSSLEngine() : ctx.createSSLEngine(sni, 443);
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(new String[] {protocol});
        if (sni != null) {
            p.setServerNames(List.of(new SNIHostName(sni)));
        }
        if (alpn.length > 0) {
            p.setApplicationProtocols(alpn);
        }
        engine.setSSLParameters(p);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.beginHandshake();
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] b = new byte[out.remaining()];
        out.get(b);
        return b;
    }
}

package dev.sluice.proxy.stream;

import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.tls.TlsSession;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * What rules read of a stream's client connection and frontend, the same for every kind of stream (HTTP's
 * {@link StreamTarget}, the layer-4 {@link TcpTarget}): the addresses, TLS and PROXY header facts of its
 * {@link ClientEnd}, the frontend's name, and the variables (made when a rule first sets one).
 */
abstract class ClientTxn<C extends ClientEnd> implements Txn {
    protected final C client;
    protected final Frontend frontend;
    private Map<String, Object> vars;

    ClientTxn(C client, Frontend frontend) {
        this.client = client;
        this.frontend = frontend;
    }

    @Override
    public InetSocketAddress clientAddress() {
        return client.remoteAddress();
    }

    @Override
    public InetSocketAddress frontendAddress() {
        return client.localAddress();
    }

    @Override
    public boolean tls() {
        return client.tls();
    }

    @Override
    public String sni() {
        return client.sni();
    }

    @Override
    public TlsSession tlsSession() {
        return client.tlsSession();
    }

    @Override
    public ProxyHeader.Received proxyHeader() {
        return client.proxyHeader();
    }

    @Override
    public String frontendName() {
        return frontend.name();
    }

    @Override
    public Map<String, Object> vars() {
        if (vars == null) {
            vars = new HashMap<>();
        }
        return vars;
    }
}

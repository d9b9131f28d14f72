package dev.sluice.proxy.stream;

import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.rules.Variables;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What rules read of a stream's client connection and frontend, the same for every kind of stream (HTTP's
 * {@link StreamTarget}, the layer-4 {@link TcpTarget}): the addresses, TLS and PROXY header facts of its
 * {@link ClientEnd}, the frontend's name, and the variables (made when a rule first sets one; the {@code proc.} ones are
 * the process's, through {@link Variables}) and environment.
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
            vars = new Variables(frontend.process());
        }
        return vars;
    }

    @Override
    public String env(String name) {
        return frontend.process().env(name);
    }
}

package dev.sluice.proxy.backend;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyOptions;
import dev.sluice.proxy.rules.Txn;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * HAProxy's dispatch and transparent modes ({@code dispatch <address>:<port>}, {@code option transparent} in a backend
 * without a balance algorithm): every request goes to one destination, taken as no server ({@code <NOSRV>} in logs,
 * no row in the statistics): the dispatch address, or for {@code transparent} the address the client connected to
 * ({@link ServerConnector} connects there: the placeholder's address is 0.0.0.0, port 0). The backend's servers are
 * still checked and shown. The destination is a {@link Server} outside the backend's list, without limit.
 */
final class Serverless implements LbAlgorithm {
    /** The name of the destination, as HAProxy logs a stream whose target is its backend. */
    static final String NAME = "<NOSRV>";

    private final Server target;

    private Serverless(Server target) {
        this.target = target;
    }

    /** {@code balanced} (the backend's algorithm), or the single destination when the backend's options say so. */
    static LbAlgorithm of(Proxy config, Backend backend, int index, int loops, LbAlgorithm balanced) {
        ProxyOptions o = config.options();
        if (!o.serverless()) {
            return balanced;
        }
        String host = "0.0.0.0";
        int port = 0;
        if (o.dispatch() != null) {
            Addresses.HostPort hp = Addresses.split(o.dispatch(), false);
            host = hp.host();
            port = hp.port();
        }
        InetAddress ip = Addresses.literal(host);
        if (ip == null) {
            try {
                ip = InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("dispatch address '" + o.dispatch() + "' does not resolve", e);
            }
        }
        dev.sluice.config.model.Server cfg = new dev.sluice.config.model.Server(config.where(), NAME, host, port, 1, null, null, 0, false,
                false, null, 0, 0, 0);
        return new Serverless(new Server(cfg, index, backend, new InetSocketAddress(ip, port), loops, null));
    }

    @Override
    public Server pick(Txn txn) {
        return target.tryTake() ? target : null;
    }

    @Override
    public void rebuild() {
    }
}

package dev.sluice.proxy.stream;

import dev.sluice.proxy.auth.Userlists;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.rules.Txn;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * What the rules, the stick rules and the balancing's hashes read of a layer-4 stream ({@link TcpStream}): its client
 * connection's addresses, TLS and PROXY header facts, its frontend and backend, its variables and stick counters. No
 * request nor response: HTTP fetches have no value here. One per stream, on its event loop.
 */
final class TcpTarget implements Txn {
    private final TcpStream stream;
    private final TcpClientSide client;
    private final Frontend frontend;
    private Map<String, Object> vars;
    private Trackers trackers;

    TcpTarget(TcpStream stream, TcpClientSide client, Frontend frontend) {
        this.stream = stream;
        this.client = client;
        this.frontend = frontend;
        Trackers session = client.sessionTrackers();
        if (session != null) {
            // the connection's counters (tcp-request connection track-sc*) see the stream's bytes
            trackers = new Trackers(session);
        }
    }

    /** The stick counters, null when neither the connection nor a rule tracks any. */
    Trackers trackersIfAny() {
        return trackers;
    }

    @Override
    public RequestHead request() {
        return null;
    }

    @Override
    public ResponseHead response() {
        return null;
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
    public String backendName() {
        return stream.backend() == null ? null : stream.backend().name();
    }

    @Override
    public Map<String, Object> vars() {
        if (vars == null) {
            vars = new HashMap<>();
        }
        return vars;
    }

    @Override
    public Userlists userlists() {
        return frontend.userlists();
    }

    @Override
    public long requestDate() {
        return client.acceptDate();
    }

    @Override
    public Trackers trackers() {
        if (trackers == null) {
            trackers = new Trackers(null);
        }
        return trackers;
    }
}

package dev.sluice.proxy.stream;

import dev.sluice.proxy.auth.Userlists;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.Trackers;

/**
 * What the rules, the stick rules and the balancing's hashes read of a layer-4 stream ({@link TcpStream}): its client
 * connection's addresses, TLS and PROXY header facts, its frontend and backend, its variables and stick counters. No
 * request nor response: HTTP fetches have no value here. One per stream, on its event loop.
 */
final class TcpTarget extends ClientTxn<TcpClientSide> {
    private final TcpStream stream;
    private Trackers trackers;

    TcpTarget(TcpStream stream, TcpClientSide client, Frontend frontend) {
        super(client, frontend);
        this.stream = stream;
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
    public String backendName() {
        return stream.backend() == null ? null : stream.backend().name();
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

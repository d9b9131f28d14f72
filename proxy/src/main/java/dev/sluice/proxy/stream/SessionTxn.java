package dev.sluice.proxy.stream;

import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.Trackers;

/**
 * What the samples of a log line read for a request that never became a stream ({@code <BADREQ>}): the session, as
 * HAProxy's session log reads it (the connection's addresses, its HTTP version, TLS, listener and stick counters); no
 * request, no response, no backend. Made for that one line.
 */
final class SessionTxn extends ClientTxn<ClientEnd> {

    SessionTxn(ClientEnd client, Frontend frontend) {
        super(client, frontend);
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
        return null;
    }

    @Override
    public Trackers trackers() {
        return client.sessionTrackers();
    }
}

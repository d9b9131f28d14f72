package dev.sluice.proxy.stream;

import dev.sluice.proxy.rules.RequestTxn;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;

/**
 * What the samples of a log line read for a request that never became a stream ({@code <BADREQ>}): the session, as
 * HAProxy's session log reads it (the connection's addresses, its HTTP version, TLS, listener and stick counters); no
 * request, no backend. Made for that one line.
 */
final class SessionTxn extends RequestTxn {
    private final ClientEnd client;

    SessionTxn(ClientEnd client, Frontend frontend) {
        super(null, client.remoteAddress(), client.localAddress(), frontend.name(), null);
        this.client = client;
        Trackers t = client.sessionTrackers();
        if (t != null) {
            trackers(t);
        }
    }

    @Override
    public int clientHttpMajor() {
        return client.httpMajor();
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
    public Channel clientChannel() {
        return client.closeFuture() instanceof ChannelFuture f ? f.channel() : null;
    }
}

package dev.sluice.proxy.stream;

import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.listener.ClientAddresses;
import dev.sluice.proxy.rules.Network;
import dev.sluice.proxy.rules.RequestTxn;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.listener.ListenerCounters;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Predicate;

/**
 * A frontend's {@code tcp-request connection} rules, run on each accepted connection before admission and
 * before any protocol handler, or its {@code tcp-request session} rules, run when the connection becomes a session
 * (after its PROXY header and its TLS handshake, before its first stream). {@code reject} closes the connection at once,
 * without a log line, counted as a connection ({@code conn_tot}) and a denied connection ({@code dcon}) or session
 * ({@code dses}), as HAProxy 2.6 counts them; trackers set here live as long as the connection (its streams see them
 * through {@link ClientEnd#SESSION_TRACKERS}; session rules add to those of the connection rules).
 */
public final class ConnectionRules implements Predicate<Channel> {
    private final List<Rule> rules;
    private final Frontend frontend;
    private final boolean session;
    /** The connections come to a {@code bind ... ssl}. */
    private final boolean tls;

    /** The {@code tcp-request connection} rules ({@code session} false) or the {@code tcp-request session} rules of a frontend. */
    public ConnectionRules(List<Rule> rules, Frontend frontend, boolean session) {
        this(rules, frontend, session, false);
    }

    private ConnectionRules(List<Rule> rules, Frontend frontend, boolean session, boolean tls) {
        this.rules = rules;
        this.frontend = frontend;
        this.session = session;
        this.tls = tls;
    }

    /**
     * The same rules for the connections of one bind: on a {@code bind ... ssl}, {@code ssl_fc} is true before the
     * handshake already (HAProxy's transport layer is TLS from the accept), while what the handshake tells
     * ({@code ssl_fc_sni}...) is known only to the session rules, after it.
     */
    public ConnectionRules onBind(boolean tls) {
        return tls == this.tls ? this : new ConnectionRules(rules, frontend, session, tls);
    }

    /** Whether the connection may go on. */
    @Override
    public boolean test(Channel ch) {
        return accept(ch, ClientAddresses.remote(ch), ClientAddresses.local(ch));
    }

    /** The same for a connection whose channel addresses are not IP ones (a QUIC connection's are CIDs). */
    public boolean accept(Channel ch, InetSocketAddress client, InetSocketAddress local) {
        TlsSession handshake = TlsSession.of(ch);
        Target t = new Target(ch, client, local, frontend.name(), tls || handshake != null, handshake);
        Trackers before = ch.attr(ClientEnd.SESSION_TRACKERS).get();
        if (before != null) {
            t.trackers(before);
        }
        t.process(frontend.process());
        Rule.run(rules, t);
        Trackers trackers = t.trackers();
        if (t.rejected) {
            if (before == null) {
                // the connection's own trackers go with its close
                trackers.endSession();
            }
            frontend.counters().add(Counter.CONNECTIONS);
            frontend.counters().add(session ? Counter.DENIED_SESSIONS : Counter.DENIED_CONNECTIONS);
            ListenerCounters lc = ListenerCounters.of(ch);
            if (lc != null) {
                lc.deniedConnection(session);
            }
            return false;
        }
        if (before == null && !trackers.isEmpty()) {
            ch.attr(ClientEnd.SESSION_TRACKERS).set(trackers);
            ch.closeFuture().addListener(f -> trackers.endSession());
        }
        if (t.set != null) {
            // read by the protocol handler when it starts (a session rule's on top of a connection rule's)
            InetSocketAddress[] before2 = ch.attr(ClientEnd.ADDRESSES).get();
            if (before2 != null) {
                for (int i = 0; i < 2; i++) {
                    if (t.set[i] == null) {
                        t.set[i] = before2[i];
                    }
                }
            }
            ch.attr(ClientEnd.ADDRESSES).set(t.set);
        }
        if (t.expectProxy) {
            ch.attr(EXPECT_PROXY).set(Boolean.TRUE);
        }
        return true;
    }

    /** Set on a connection that {@code expect-proxy layer4} makes start with a PROXY protocol header. */
    public static final AttributeKey<Boolean> EXPECT_PROXY = AttributeKey.valueOf("sluice.expect-proxy");

    /** What connection rules see: addresses, variables and stick counters; no HTTP message. */
    private static final class Target extends RequestTxn {
        private final Channel ch;
        private final boolean tls;
        private final TlsSession handshake;
        private boolean rejected;
        private boolean expectProxy;

        @Override
        public boolean tls() {
            return tls;
        }

        @Override
        public String sni() {
            return handshake == null ? null : handshake.sni();
        }

        @Override
        public TlsSession tlsSession() {
            return handshake;
        }

        @Override
        public void expectProxy() {
            expectProxy = true;
        }

        @Override
        public void setSocketOption(boolean mark, int value) {
            ClientTxn.setSocketOption(ch, mark, value);
        }

        Target(Channel ch, InetSocketAddress client, InetSocketAddress local, String frontend, boolean tls, TlsSession handshake) {
            super(null, client, local, frontend, null);
            this.ch = ch;
            this.tls = tls;
            this.handshake = handshake;
        }

        /** The connection the rules decide on: its listener for {@code so_id}, {@code so_name}, {@code dst_conn}. */
        @Override
        public Channel clientChannel() {
            return ch;
        }

        @Override
        protected void trackers(Trackers t) {
            super.trackers(t);
        }

        /** The addresses as the rules set them so far: {source, destination}, either null. */
        private InetSocketAddress[] set;

        @Override
        public InetSocketAddress clientAddress() {
            return set != null && set[0] != null ? set[0] : super.clientAddress();
        }

        @Override
        public InetSocketAddress frontendAddress() {
            return set != null && set[1] != null ? set[1] : super.frontendAddress();
        }

        @Override
        public void setAddress(boolean source, InetAddress ip, int port) {
            InetSocketAddress cur = source ? clientAddress() : frontendAddress();
            if (set == null) {
                set = new InetSocketAddress[2];
            }
            set[source ? 0 : 1] = Network.with(cur, ip, port);
        }

        @Override
        public void answer(ResponseHead head, byte[] body, char cause) {
            rejected = true;
        }

        @Override
        public void answerStatus(int status, char cause) {
            rejected = true;
        }

        @Override
        public void drop() {
            rejected = true;
        }

        @Override
        public void tarpit(int status) {
            rejected = true;
        }
    }
}

package dev.sluice.proxy.stream;

import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.RequestTxn;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.Trackers;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Predicate;

/**
 * A frontend's {@code tcp-request connection} rules, run on each accepted connection before admission and
 * before any protocol handler. {@code reject} closes the connection at once; trackers set here live as
 * long as the connection (its streams see them through {@link ClientEnd#SESSION_TRACKERS}).
 */
public final class ConnectionRules implements Predicate<Channel> {
    private final List<Rule> rules;
    private final String frontend;
    /** The connections come to a {@code bind ... ssl}. */
    private final boolean tls;

    public ConnectionRules(List<Rule> rules, String frontend) {
        this(rules, frontend, false);
    }

    private ConnectionRules(List<Rule> rules, String frontend, boolean tls) {
        this.rules = rules;
        this.frontend = frontend;
        this.tls = tls;
    }

    /**
     * The same rules for the connections of one bind: on a {@code bind ... ssl}, {@code ssl_fc} is true already
     * (HAProxy's transport layer is TLS from the accept), while what the handshake tells ({@code ssl_fc_sni}) is
     * not known yet.
     */
    public ConnectionRules onBind(boolean tls) {
        return tls == this.tls ? this : new ConnectionRules(rules, frontend, tls);
    }

    /** Whether the connection may go on. */
    @Override
    public boolean test(Channel ch) {
        return accept(ch, (InetSocketAddress) ch.remoteAddress(), (InetSocketAddress) ch.localAddress());
    }

    /** The same for a connection whose channel addresses are not IP ones (a QUIC connection's are CIDs). */
    public boolean accept(Channel ch, InetSocketAddress client, InetSocketAddress local) {
        Target t = new Target(client, local, frontend, tls);
        Rule.run(rules, t);
        Trackers trackers = t.trackers();
        if (t.rejected) {
            trackers.endSession();
            return false;
        }
        if (!trackers.isEmpty()) {
            ch.attr(ClientEnd.SESSION_TRACKERS).set(trackers);
            ch.closeFuture().addListener(f -> trackers.endSession());
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
        private final boolean tls;
        private boolean rejected;
        private boolean expectProxy;

        @Override
        public boolean tls() {
            return tls;
        }

        @Override
        public void expectProxy() {
            expectProxy = true;
        }

        Target(InetSocketAddress client, InetSocketAddress local, String frontend, boolean tls) {
            super(null, client, local, frontend, null);
            this.tls = tls;
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

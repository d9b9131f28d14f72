package dev.sluice.proxy.runtime;

import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.RuleTarget;
import dev.sluice.proxy.rules.Trackers;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A frontend's {@code tcp-request connection} rules, run on each accepted connection before admission and
 * before any protocol handler. {@code reject} closes the connection at once; trackers set here live as
 * long as the connection (its streams see them through {@link dev.sluice.proxy.http.ClientSide#SESSION_TRACKERS}).
 */
final class ConnectionRules implements Predicate<Channel> {
    private final List<Rule> rules;
    private final String frontend;

    ConnectionRules(List<Rule> rules, String frontend) {
        this.rules = rules;
        this.frontend = frontend;
    }

    /** Whether the connection may go on. */
    @Override
    public boolean test(Channel ch) {
        Target t = new Target((InetSocketAddress) ch.remoteAddress(), (InetSocketAddress) ch.localAddress(), frontend);
        Rule.run(rules, t);
        if (t.rejected) {
            t.trackers.endSession();
            return false;
        }
        if (!t.trackers.isEmpty()) {
            ch.attr(dev.sluice.proxy.http.ClientSide.SESSION_TRACKERS).set(t.trackers);
            ch.closeFuture().addListener(f -> t.trackers.endSession());
        }
        return true;
    }

    /** What connection rules see: addresses, variables and stick counters; no HTTP message. */
    private static final class Target implements RuleTarget {
        private final InetSocketAddress client;
        private final InetSocketAddress local;
        private final String frontend;
        private final Trackers trackers = Trackers.forSession();
        private Map<String, Object> vars;
        private boolean rejected;

        Target(InetSocketAddress client, InetSocketAddress local, String frontend) {
            this.client = client;
            this.local = local;
            this.frontend = frontend;
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
            return client;
        }

        @Override
        public InetSocketAddress frontendAddress() {
            return local;
        }

        @Override
        public boolean tls() {
            return false;
        }

        @Override
        public String sni() {
            return null;
        }

        @Override
        public String frontendName() {
            return frontend;
        }

        @Override
        public String backendName() {
            return null;
        }

        @Override
        public Map<String, Object> vars() {
            if (vars == null) {
                vars = new HashMap<>();
            }
            return vars;
        }

        @Override
        public Trackers trackers() {
            return trackers;
        }

        @Override
        public MessageHead head() {
            return null;
        }

        @Override
        public boolean responsePhase() {
            return false;
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

        @Override
        public void setTimeout(String which, long millis) {
        }

        @Override
        public void setRetries(int retries) {
        }
    }
}

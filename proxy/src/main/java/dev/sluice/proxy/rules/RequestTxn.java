package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * A rule target outside a stream: a request (or none, for connection rules) from a client address, with
 * its variables and stick counters. The ways a rule ends an exchange do nothing here; a subclass that
 * needs them overrides them. For {@code tcp-request connection} rules, benchmarks and tests.
 */
public class RequestTxn implements RuleTarget {
    private final RequestHead request;
    private final InetSocketAddress client;
    private final InetSocketAddress local;
    private final String frontend;
    private final String backend;
    private Map<String, Object> vars;
    private Trackers trackers;

    public RequestTxn(RequestHead request, InetSocketAddress client, InetSocketAddress local, String frontend, String backend) {
        this.request = request;
        this.client = client;
        this.local = local;
        this.frontend = frontend;
        this.backend = backend;
    }

    /** Starts from these stick counters (a connection's, which further track-sc rules add to). */
    protected void trackers(Trackers t) {
        this.trackers = t;
    }

    @Override
    public RequestHead request() {
        return request;
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
        return backend;
    }

    @Override
    public Map<String, Object> vars() {
        if (vars == null) {
            vars = new HashMap<>();
        }
        return vars;
    }

    /** Stick counters of this target's own (created on first use, like a connection's). */
    @Override
    public Trackers trackers() {
        if (trackers == null) {
            trackers = Trackers.forSession();
        }
        return trackers;
    }

    @Override
    public MessageHead head() {
        return request;
    }

    @Override
    public boolean responsePhase() {
        return false;
    }

    @Override
    public void answer(ResponseHead head, byte[] body, char cause) {
    }

    @Override
    public void answerStatus(int status, char cause) {
    }

    @Override
    public void drop() {
    }

    @Override
    public void tarpit(int status) {
    }

    @Override
    public void setTimeout(String which, long millis) {
    }

    @Override
    public void setRetries(int retries) {
    }
}

package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * An exchange seen without its response: what the values of an http-response {@code return} or {@code deny}
 * reply read. HAProxy drops the server's response before it builds the reply, so response samples
 * ({@code status}, {@code res.hdr}, ...) in the reply's body and fields are empty. Made only on that path.
 */
final class WithoutResponse implements Txn {
    private final Txn t;

    WithoutResponse(Txn t) {
        this.t = t;
    }

    @Override
    public RequestHead request() {
        return t.request();
    }

    @Override
    public ResponseHead response() {
        return null;
    }

    @Override
    public InetSocketAddress clientAddress() {
        return t.clientAddress();
    }

    @Override
    public InetSocketAddress frontendAddress() {
        return t.frontendAddress();
    }

    @Override
    public boolean tls() {
        return t.tls();
    }

    @Override
    public String sni() {
        return t.sni();
    }

    @Override
    public String frontendName() {
        return t.frontendName();
    }

    @Override
    public String backendName() {
        return t.backendName();
    }

    @Override
    public Map<String, Object> vars() {
        return t.vars();
    }

    @Override
    public String env(String name) {
        return t.env(name);
    }

    @Override
    public dev.sluice.proxy.auth.Userlists userlists() {
        return t.userlists();
    }

    @Override
    public boolean proxyAuthentication() {
        return t.proxyAuthentication();
    }

    @Override
    public byte[] requestBody() {
        return t.requestBody();
    }

    @Override
    public String captured(boolean response, int slot) {
        return t.captured(response, slot);
    }

    @Override
    public long requestDate() {
        return t.requestDate();
    }

    @Override
    public long requestCounter() {
        return t.requestCounter();
    }

    @Override
    public String uniqueId() {
        return t.uniqueId();
    }

    @Override
    public Trackers trackers() {
        return t.trackers();
    }

    @Override
    public boolean firstRequest() {
        return t.firstRequest();
    }
}

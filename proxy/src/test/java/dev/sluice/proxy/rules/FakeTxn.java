package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/** A transaction for rule tests: a request built from a method, a target and fields; no stream. */
final class FakeTxn implements Txn {
    final RequestHead request;
    ResponseHead response;
    InetSocketAddress client = new InetSocketAddress("10.1.2.3", 40000);
    final Map<String, Object> vars = new HashMap<>();
    dev.sluice.proxy.auth.Userlists userlists = dev.sluice.proxy.auth.Userlists.NONE;
    byte[] body;
    Trackers trackers;
    ProxyStates states;
    boolean first = true;
    dev.sluice.proxy.listener.ProxyHeader.Received proxyHeader;
    dev.sluice.proxy.tls.TlsSession tls;
    dev.sluice.proxy.tls.TlsSession serverTls;

    @Override
    public dev.sluice.proxy.tls.TlsSession tlsSession() {
        return tls;
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession serverTlsSession() {
        return serverTls;
    }

    FakeTxn(String method, String target, String... fields) {
        HttpFields f = new HttpFields();
        for (int i = 0; i < fields.length; i += 2) {
            f.add(fields[i], fields[i + 1]);
        }
        request = new RequestHead(new AsciiString(method), new AsciiString(target), HttpVersion.HTTP_1_1, f);
    }

    @Override
    public RequestHead request() {
        return request;
    }

    @Override
    public ResponseHead response() {
        return response;
    }

    @Override
    public InetSocketAddress clientAddress() {
        return client;
    }

    @Override
    public InetSocketAddress frontendAddress() {
        return new InetSocketAddress("127.0.0.1", 8080);
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
    public dev.sluice.proxy.listener.ProxyHeader.Received proxyHeader() {
        return proxyHeader;
    }

    @Override
    public String frontendName() {
        return "fe";
    }

    @Override
    public String backendName() {
        return null;
    }

    @Override
    public Map<String, Object> vars() {
        return vars;
    }

    @Override
    public dev.sluice.proxy.auth.Userlists userlists() {
        return userlists;
    }

    @Override
    public byte[] requestBody() {
        return body;
    }

    @Override
    public ProxyStates states() {
        return states;
    }

    @Override
    public Trackers trackers() {
        return trackers;
    }

    @Override
    public boolean firstRequest() {
        return first;
    }
}

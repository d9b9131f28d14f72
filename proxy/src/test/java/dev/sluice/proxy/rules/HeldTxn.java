package dev.sluice.proxy.rules;

import dev.sluice.config.model.Tune;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * A TCP stream's transaction for rule tests, as a content-inspecting target keeps it: the bytes held from each side,
 * whether they are final, the "may change" report of the last fetches; no HTTP message.
 */
final class HeldTxn implements Txn {
    ByteBuf request = Unpooled.buffer();
    ByteBuf response;
    boolean contentFinal;
    boolean mayChange;
    /** How many times a fetch reported, and how many times an ACL asked. */
    int reports;
    int asks;
    Tune tune = Tune.DEFAULT;
    final Map<String, Object> vars = new HashMap<>();

    HeldTxn() {
    }

    HeldTxn(byte[] held) {
        request = Unpooled.wrappedBuffer(held);
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
        return new InetSocketAddress("10.1.2.3", 40000);
    }

    @Override
    public InetSocketAddress frontendAddress() {
        return new InetSocketAddress("127.0.0.1", 443);
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
        return "ft";
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
    public ByteBuf requestPayload() {
        return request;
    }

    @Override
    public ByteBuf responsePayload() {
        return response;
    }

    @Override
    public boolean contentFinal() {
        return contentFinal;
    }

    @Override
    public void mayChange() {
        reports++;
        mayChange = true;
    }

    @Override
    public boolean takeMayChange() {
        asks++;
        boolean m = mayChange;
        mayChange = false;
        return m;
    }

    @Override
    public Tune tune() {
        return tune;
    }
}

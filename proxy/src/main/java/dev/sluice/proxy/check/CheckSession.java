package dev.sluice.proxy.check;

import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.rules.Variables;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Map;

/**
 * What the samples of one tcp-check read (HAProxy's check session): the bytes received on the check's connection
 * (up to {@code tune.bufsize}: {@code res.payload}, {@code res.len}) and the variables ({@code check.} and the other
 * scopes, for this check only); for an HTTP check, its response's head ({@link #response()}). On the check's event loop only.
 */
final class CheckSession implements Txn {
    private static final InetSocketAddress NONE = new InetSocketAddress(0);

    private final String backend;
    private final int capacity;
    private final Map<String, Object> vars;
    private final ProcScope process;
    private byte[] input = new byte[256];
    /** The response of an HTTP check once its head arrived (the response fetches read it); null before, and for tcp-checks. */
    private ResponseHead response;
    private int length;

    CheckSession(String backend, int capacity) {
        this(backend, capacity, new ProcScope());
    }

    /** With the process's variables ({@code proc.}) and environment of {@code process}. */
    CheckSession(String backend, int capacity, ProcScope process) {
        this.backend = backend;
        this.capacity = capacity;
        this.process = process;
        this.vars = new Variables(process);
    }

    /** Appends what arrived, as far as the buffer holds; the number of bytes kept. */
    int append(ByteBuf in) {
        int n = Math.min(in.readableBytes(), capacity - length);
        if (n > 0) {
            if (length + n > input.length) {
                input = Arrays.copyOf(input, Math.min(capacity, Math.max(length + n, input.length * 2)));
            }
            in.getBytes(in.readerIndex(), input, length, n);
            length += n;
        }
        return n;
    }

    /** Drops the first {@code n} bytes received (what the rules have seen, when a new send starts). */
    void consume(int n) {
        int k = Math.min(n, length);
        System.arraycopy(input, k, input, 0, length - k);
        length -= k;
    }

    void clear() {
        length = 0;
    }

    int length() {
        return length;
    }

    /** Whether the buffer is full ({@code tune.bufsize}): nothing more can come, the rules decide on what is there. */
    boolean full() {
        return length >= capacity;
    }

    byte[] bytes() {
        return input;
    }

    int capacity() {
        return capacity;
    }

    /** The bytes received from {@code offset}, {@code len} of them (0: to the end), or null when there are not so many. */
    byte[] payload(int offset, int len) {
        if (offset < 0 || len < 0 || offset > length || len > 0 && offset + len > length) {
            return null;
        }
        return Arrays.copyOfRange(input, offset, len == 0 ? length : offset + len);
    }

    @Override
    public RequestHead request() {
        return null;
    }

    @Override
    public ResponseHead response() {
        return response;
    }

    /** The HTTP check's response the samples read from now on (null: none). */
    void response(ResponseHead r) {
        response = r;
    }

    @Override
    public InetSocketAddress clientAddress() {
        return NONE;
    }

    @Override
    public InetSocketAddress frontendAddress() {
        return NONE;
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
        return backend;
    }

    @Override
    public String backendName() {
        return backend;
    }

    @Override
    public Map<String, Object> vars() {
        return vars;
    }

    @Override
    public String env(String name) {
        return process.env(name);
    }
}

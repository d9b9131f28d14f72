package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.TrafficEvent;
import dev.sluice.proxy.http.HtxSize;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.listener.ListenerCounters;
import dev.sluice.proxy.stats.Counters;

/**
 * What one stream ({@link Exchange}) counts and measures: every update of the frontend's, backend's and server's
 * counters the exchange makes (HAProxy's stats columns), the bytes it received, and its timers (the log's %TR, %Tw,
 * %Tc, %Tr, %Ta and the servers' time averages). Owned by its stream, used on the stream's event loop only; the
 * counters it updates are shared (striped) and safe from any loop.
 */
final class Accounting {
    private final Exchange stream;
    private final Frontend frontend;
    private final ClientEnd client;
    /** Timers for the log, from {@link System#nanoTime()}; -1 until reached. */
    private final long tHead = System.nanoTime();
    private final long requestStart;
    private final int handshakeMs;
    private final int idleMs;
    private final long requestDate;
    private long tConnectStart = -1;
    private long tConnected = -1;
    private long tResponse = -1;
    /**
     * The request's bytes (%U, bin) and the response's (%B, bout) as HAProxy 2.6 counts them: the HTX size of what
     * came into each of its channels ({@link HtxSize}: heads as their codecs measured them, body data, trailers),
     * the response's from the server or made by the proxy, before compression; a tunnel's bytes as they are.
     */
    private long bytesIn;
    private long bytesOut;
    /** {@code option contstats}: the byte counters follow the transfer; what was added to them so far. */
    private final boolean contStats;
    /** A layer-4 stream: no request is counted, and its times are HAProxy's for TCP (no response time). */
    private final boolean layer4;
    private long creditedIn;
    private long creditedOut;
    /** The backend whose beconn counts this stream ({@link #backendChosen}) until {@link #end}; null otherwise. */
    private Backend assigned;

    /** The client's listener counters ({@code option socket-stats}), or null. */
    private final ListenerCounters listener;

    Accounting(Exchange stream, ClientEnd client, Frontend frontend) {
        this(stream, client, frontend, false);
    }

    /** {@code layer4}: the counters of a stream without requests ({@link TcpStream}). */
    Accounting(Exchange stream, ClientEnd client, Frontend frontend, boolean layer4) {
        this.layer4 = layer4;
        this.stream = stream;
        this.client = client;
        this.frontend = frontend;
        this.requestStart = client.requestStartNanos();
        // HAProxy's stream times before the request, taken now: the connection moves on to its next stream's
        this.handshakeMs = (int) client.handshakeMs();
        this.idleMs = (int) Math.max(0, ms(client.streamAcceptNanos(), requestStart) - handshakeMs);
        this.contStats = frontend.config().options().contStats();
        // option socket-stats: the counters of the listener the client came in on (no lookup without the option)
        this.listener = frontend.listenerCounters().isEmpty() ? null : client.listenerCounters();
        this.requestDate = System.currentTimeMillis() - (tHead - requestStart) / 1_000_000;
    }

    // ------------------------------------------------------------------ timers

    /** {@link System#nanoTime()} when the request started to arrive. */
    long requestStart() {
        return requestStart;
    }

    /** The handshakes before this stream (%Th): its connection's for its first stream, 0 after. */
    int handshakeMs() {
        return handshakeMs;
    }

    /** How long the connection was idle before the request started (%Ti). */
    int idleMs() {
        return idleMs;
    }

    /** {@link System#nanoTime()} when the request head was complete. */
    long headTime() {
        return tHead;
    }

    /** Epoch milliseconds when the request started to arrive. */
    long requestDate() {
        return requestDate;
    }

    /** Whether a connection to a server was ever asked for. */
    boolean connectStarted() {
        return tConnectStart >= 0;
    }

    long connectStart() {
        return tConnectStart;
    }

    long connectedAt() {
        return tConnected;
    }

    long responseAt() {
        return tResponse;
    }

    /** An applet of the proxy (the cache) answers at once: no wait, no connect time, no response time. */
    void servedLocally() {
        long now = System.nanoTime();
        tConnectStart = now;
        tConnected = now;
        tResponse = now;
    }

    /** The response head this attempt got is dropped (an L7 retry): no response time yet. */
    void responseDropped() {
        tResponse = -1;
    }

    /** Milliseconds from one timer to another, -1 when either was never reached. */
    static long ms(long from, long to) {
        return from < 0 || to < 0 ? -1 : (to - from) / 1_000_000;
    }

    // ------------------------------------------------------------------ counters, in the order of an exchange

    /** The request head arrived: counted by the frontend, its HTX size (as its codec measured it) into bin. */
    void requestStarted(RequestHead request) {
        frontend.countRequest();
        bytesIn = request.htxSize();
    }

    /** The frontend chose the backend: a session there, and a request unless the stream carries none. */
    void backendChosen(Backend be) {
        assigned = be;
        be.streamAssigned();
        be.counters().add(Counter.SESSIONS);
        if (!layer4) {
            be.counters().add(Counter.REQUESTS);
        }
    }

    /** The balancing (not persistence) chose the server: lbtot. */
    void balanced() {
        stream.server().counters().add(Counter.SELECTED);
        stream.backend().counters().add(Counter.SELECTED);
    }

    /** A connection to the server is asked for. */
    void connecting() {
        stream.server().counters().add(Counter.SESSIONS);
        tConnectStart = System.nanoTime();
    }

    /** The server connection is there ({@code reused}: an idle one, taking no connect time); the request goes out. */
    void connected(boolean reused) {
        tConnected = reused ? tConnectStart : System.nanoTime();
        Server server = stream.server();
        server.observed(TrafficEvent.L4_OK);
        if (!layer4) {
            server.countRequest();
        }
        if (reused) {
            server.counters().add(Counter.REUSES);
            stream.backend().counters().add(Counter.REUSES);
        }
    }

    /** No connection (or no queue slot): econ, for the server when there is one. */
    void connectError() {
        Server server = stream.server();
        if (server != null) {
            server.counters().add(Counter.CONNECT_ERRORS);
        }
        stream.backend().counters().add(Counter.CONNECT_ERRORS);
    }

    /** Another attempt on the same server: wretr. */
    void retried() {
        stream.server().counters().add(Counter.RETRIES);
        stream.backend().counters().add(Counter.RETRIES);
    }

    /** The server's response head arrived. */
    void responseReceived(int status) {
        tResponse = System.nanoTime();
        stream.server().counters().countResponse(status);
    }

    /**
     * A response head came from the server, interim ones too: what the analysis of its live traffic ({@code observe})
     * counts, as HAProxy's http_wait_for_response.
     */
    void responseHead(int status) {
        stream.server().observed(TrafficEvent.ofStatus(status));
    }

    /** No valid response from the server for {@code failure}: eresp, and what {@code observe} counts (HAProxy's HANA status). */
    void responseError(ServerFailure failure) {
        responseError();
        stream.server().observed(switch (failure) {
            case CLOSED_BEFORE_RESPONSE -> TrafficEvent.HTTP_BROKEN_PIPE;
            case TIMEOUT -> TrafficEvent.HTTP_READ_TIMEOUT;
            case INVALID_RESPONSE -> TrafficEvent.HTTP_HDRRSP;
            case TRUNCATED -> TrafficEvent.HTTP_READ_ERROR;
        });
    }

    /**
     * The server cut an HTTP response short by {@code failure}: {@link #serverAborted(boolean)}; an invalid body is an
     * error for {@code observe} too (HAProxy's return_bad_res of http_response_forward_body), a server's abort is not.
     */
    void serverAborted(boolean timeout, ServerFailure failure) {
        if (failure == ServerFailure.INVALID_RESPONSE) {
            stream.server().observed(TrafficEvent.HTTP_RSP);
        }
        serverAborted(timeout);
    }

    /** No valid response from the server: eresp. */
    void responseError() {
        stream.server().counters().add(Counter.RESPONSE_ERRORS);
        stream.backend().counters().add(Counter.RESPONSE_ERRORS);
    }

    /**
     * The server cut the response short: srv_abrt, and eresp too unless it timed out (a response cut by an error on the
     * server side, closed, reset, a body not matching its content-length, is also a response error for HAProxy, in TCP
     * mode too).
     */
    void serverAborted(boolean timeout) {
        Server server = stream.server();
        Backend backend = stream.backend();
        server.counters().add(Counter.SERVER_ABORTS);
        backend.counters().add(Counter.SERVER_ABORTS);
        if (!timeout) {
            server.counters().add(Counter.RESPONSE_ERRORS);
            backend.counters().add(Counter.RESPONSE_ERRORS);
        }
    }

    /** The client aborted: cli_abrt for the backend, and for the server once a connection to it was asked for. */
    void clientAborted() {
        Backend backend = stream.backend();
        if (backend != null) {
            backend.counters().add(Counter.CLIENT_ABORTS);
            Server server = stream.server();
            if (server != null && tConnectStart >= 0) {
                server.counters().add(Counter.CLIENT_ABORTS);
            }
        }
    }

    /** A rule denied the request (dreq) or the response (dresp). */
    void denied(boolean response) {
        Counter c = response ? Counter.DENIED_RESPONSES : Counter.DENIED_REQUESTS;
        frontend.counters().add(c);
        ListenerCounters lc = listener;
        if (lc != null) {
            if (response) {
                lc.deniedResponse();
            } else {
                lc.deniedRequest();
            }
        }
        Backend backend = stream.backend();
        if (backend != null) {
            backend.counters().add(c);
        }
        Server server = stream.server();
        if (response && server != null) {
            server.counters().add(c);
        }
    }

    /**
     * A layer-4 stream's content rule ended it (dreq): counted on the frontend, as HAProxy's tcp_inspect_request does
     * for {@code reject}; a {@code silent-drop} counts on the backend too once it is known.
     */
    void deniedContent(boolean silentDrop) {
        frontend.counters().add(Counter.DENIED_REQUESTS);
        ListenerCounters lc = listener;
        if (lc != null) {
            lc.deniedRequest();
        }
        Backend backend = stream.backend();
        if (silentDrop && backend != null) {
            backend.counters().add(Counter.DENIED_REQUESTS);
        }
    }

    /** A request rule answered locally: intercepted. */
    void intercepted() {
        frontend.counters().add(Counter.INTERCEPTED);
    }

    /** The response is compressed: comp_rsp. */
    void compressing() {
        frontend.counters().add(Counter.COMP_RSP);
        stream.backend().counters().add(Counter.COMP_RSP);
    }

    /**
     * Counts the final status about to be sent to the client, for the frontend and the backend (the server
     * counted what it answered on receipt): before the bytes go, so a client that got its response finds
     * it counted, as in HAProxy. -1: no response at all.
     */
    void sent(int code) {
        frontend.counters().countResponse(code);
        Backend backend = stream.backend();
        if (backend != null) {
            backend.counters().countResponse(code);
        }
    }

    // ------------------------------------------------------------------ bytes

    /** Request bytes received from the client (body data, a message end's trailers, or tunnel). */
    void received(long n) {
        bytesIn += n;
    }

    long bytesIn() {
        return bytesIn;
    }

    /** Response bytes, HAProxy's measure: a head's HTX size, body data before compression, trailers, tunnel bytes. */
    void responded(long n) {
        bytesOut += n;
    }

    /** The end of the request ({@code response}: of the response) {@code h}: its trailers and their end, when it has them. */
    void ended(boolean response, MessageHead h, HttpFields trailers) {
        long n = HtxSize.end(h, trailers);
        if (response) {
            bytesOut += n;
        } else {
            bytesIn += n;
        }
    }

    /** HAProxy's %B and bout of the exchange so far; a layer-4 stream counts the bytes written to the client. */
    long bytesOut() {
        return layer4 ? client.bytesOut() : bytesOut;
    }

    /**
     * {@code option contstats} (HAProxy's stream_process_counters on each wake-up): adds the bytes received and sent since
     * the last time to the frontend, backend and server counters, once the request has a server connection
     * ({@code connected}; before that, nothing went through). Two shared adds per chunk, only with the option.
     */
    void credit(boolean connected) {
        if (!contStats || !connected) {
            return;
        }
        long in = bytesIn - creditedIn;
        long out = bytesOut() - creditedOut;
        if (in == 0 && out == 0) {
            return;
        }
        creditedIn += in;
        creditedOut += out;
        add(frontend.counters(), in, out);
        add(stream.backend().counters(), in, out);
        add(stream.server().counters(), in, out);
        ListenerCounters lc = listener;
        if (lc != null) {
            lc.bytes(in, out);
        }
    }

    private static void add(Counters c, long in, long out) {
        if (in > 0) {
            c.add(Counter.BYTES_IN, in);
        }
        if (out > 0) {
            c.add(Counter.BYTES_OUT, out);
        }
    }

    /**
     * The end of the exchange, once: its bytes into the frontend, backend and server counters (what {@link #credit}
     * did not add yet), then its times into the averages.
     */
    void end(ServerSlot slot) {
        Backend a = assigned;
        if (a != null) {
            // HAProxy's beconn goes down just before the log line: the line's %bc counts the others
            assigned = null;
            a.streamReleased();
        }
        long out = bytesOut() - creditedOut;
        long in = this.bytesIn - creditedIn;
        Counters fe = frontend.counters();
        fe.add(Counter.BYTES_IN, in);
        fe.add(Counter.BYTES_OUT, out);
        ListenerCounters lc = listener;
        if (lc != null) {
            lc.bytes(in, out);
        }
        Backend backend = stream.backend();
        Server server = stream.server();
        if (backend != null) {
            Counters be = backend.counters();
            be.add(Counter.BYTES_IN, in);
            be.add(Counter.BYTES_OUT, out);
            if (server != null && tConnectStart >= 0) {
                Counters srv = server.counters();
                srv.add(Counter.BYTES_IN, in);
                srv.add(Counter.BYTES_OUT, out);
            }
        }
        timeStats(backend, server, slot);
    }

    /**
     * The request's queue, connect, response and total times into its server's and backend's averages, when
     * it reached a server and got a response head from it (HAProxy skips the others).
     */
    private void timeStats(Backend backend, Server server, ServerSlot slot) {
        if (layer4) {
            layer4TimeStats(backend, server, slot);
            return;
        }
        if (server == null || tConnectStart < 0 || tConnected < 0 || tResponse < 0) {
            return;
        }
        long c = ms(tConnectStart, tConnected);
        long r = ms(tConnected, tResponse);
        long t = ms(requestStart, System.nanoTime());
        int loop = client.loopIndex();
        long q = Math.max(0, slot.queueMillis());
        server.timeStats().record(loop, q, c, r, t);
        backend.timeStats().record(loop, q, c, r, t);
    }

    /**
     * HAProxy's times of a layer-4 stream that connected (stream_update_time_stats out of HTTP mode): the queue time from
     * the accept to the end of the wait for a slot, the connect time, no response time (0), the total time, all from
     * the accept.
     */
    private void layer4TimeStats(Backend backend, Server server, ServerSlot slot) {
        if (server == null || tConnected < 0 || slot == null) {
            return;
        }
        long queued = slot.grantedAt();
        long q = queued < 0 ? 0 : ms(requestStart, queued);
        long c = ms(requestStart, tConnected) - q;
        long t = ms(requestStart, System.nanoTime());
        int loop = client.loopIndex();
        server.timeStats().record(loop, q, c, 0, t);
        backend.timeStats().record(loop, q, c, 0, t);
    }
}

package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.log.AccessLog;
import dev.sluice.proxy.log.LogEvent;
import dev.sluice.proxy.tls.TlsSession;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Builds and emits the access-log line ({@link LogEvent}) of a request: a {@link Stream}'s, and that of a request
 * that never became one (HAProxy's "&lt;BADREQ&gt;" lines of an HTTP/1 client connection). What a line says of the
 * client connection ({@link ClientEnd}) and of the way to the server ({@link Exchange}) does not depend on what the
 * stream carried. Stateless; called on the event loop of the stream or connection it logs.
 */
public final class RequestLog {
    /**
     * The process-wide numbers of the streams, HTTP and TCP ({@code %rt}, HAProxy's global.req_count); a bad request
     * that never became a stream takes one too, as HAProxy's session log does.
     */
    static final AtomicLong NUMBERS = new AtomicLong();

    private RequestLog() {
    }

    /** What every line says of the client connection and the frontend, and of the outcome. */
    private static LogEvent common(ClientEnd client, Frontend frontend, int status, Termination.Cause cause,
            Termination.State state) {
        LogEvent e = new LogEvent();
        e.client = client.remoteAddress();
        e.frontendAddress = client.localAddress();
        e.acceptDate = client.acceptDate();
        e.frontend = frontend.name();
        e.frontendTls = client.tls();
        TlsSession ts = client.tlsSession();
        if (ts != null) {
            e.sslVersion = ts.protocol();
            e.sslCipher = ts.cipher();
        }
        e.status = status;
        e.cause = cause.letter();
        e.state = state.letter();
        e.actconn = frontend.globalConnections();
        e.feconn = frontend.limit().current();
        return e;
    }

    /**
     * Logs a request that never became a stream ("&lt;BADREQ&gt;") on {@code client}, answered {@code status}, when the
     * frontend logs requests. {@code empty}: nothing was received on the connection; HAProxy counts it all the same
     * and {@code option dontlognull} only keeps it out of the log.
     */
    public static void badRequest(ClientEnd client, Frontend frontend, int status, Termination.Cause cause,
            Termination.State state, boolean empty) {
        AccessLog al = frontend.accessLog();
        if (al == null || !al.logsRequests() || empty && al.dontLogNull()) {
            return;
        }
        long now = System.nanoTime();
        long requestStart = client.requestStartNanos();
        LogEvent e = common(client, frontend, status, cause, state);
        // HAProxy's session log: the accept, handshake and idle time as a stream's (%t, %Th, %Ti), no request time,
        // %Ta from the first byte of the request, %Tt from the accept
        e.tHandshake = client.handshakeMs();
        e.tIdle = Math.max(0, Accounting.ms(client.streamAcceptNanos(), requestStart) - e.tHandshake);
        e.tActive = Accounting.ms(requestStart, now);
        e.tTotal = e.tHandshake + e.tIdle + e.tActive;
        e.requestDate = System.currentTimeMillis() - e.tActive;
        e.acceptDate = e.requestDate - e.tIdle - e.tHandshake;
        e.requestLine = "<BADREQ>";
        e.error = true;
        // the line's samples read the session, as HAProxy's session log does (fc_http_major 1, the addresses...)
        e.txn = new SessionTxn(client, frontend);
        e.requestCounter = NUMBERS.getAndIncrement();
        al.log(e);
    }

    /** Logs {@code s} ({@code asap}: with {@code option logasap}, when its response head left), when its frontend logs requests. */
    static void stream(Stream s, boolean asap) {
        Frontend frontend = s.frontend();
        AccessLog al = frontend.accessLog();
        if (al == null || !al.logsRequests()) {
            return;
        }
        long now = System.nanoTime();
        Accounting acc = s.accounting();
        long start = acc.requestStart();
        Backend backend = s.backend();
        RequestHead request = s.request();
        Termination outcome = s.outcome();
        int status = s.status();
        // HAProxy logs -1 when no response was sent
        LogEvent e = common(s.client(), frontend, status > 0 ? status : -1, outcome.cause(), outcome.state());
        e.requestDate = acc.requestDate();
        server(e, s, s.slot(), s.attempts());
        if (s.fromCache()) {
            // the cache applet served it: HAProxy logs the applet's name and no wait
            e.server = "<CACHE>";
            e.tQueue = 0;
        }
        // as HAProxy's txn->uri: the request line as it came (an HTTP/2 one in absolute form), before the rules
        e.method = request.receivedMethod().toString();
        e.uri = request.loggedUri();
        e.version = request.version().text();
        e.requestLine = e.method + " " + e.uri + " " + e.version;
        if (e.requestLine.length() > al.requestLineLimit()) {
            truncate(e, al.requestLineLimit());
        }
        // HAProxy's %B and %U: the HTX sizes of the response and the request (see Accounting)
        e.bytesOut = acc.bytesOut();
        e.bytesIn = acc.bytesIn();
        e.tRequest = Accounting.ms(start, acc.headTime());
        long connected = acc.connectedAt();
        e.tResponse = acc.responseAt() >= 0 && connected >= 0 ? Accounting.ms(connected, acc.responseAt()) : -1;
        e.tActive = Accounting.ms(start, now);
        // HAProxy's stream times: the handshakes and the idle time come before the request (%Th, %Ti), %t is the
        // stream's accept (the connection's for its first stream), %Tt the whole
        e.tHandshake = acc.handshakeMs();
        e.tIdle = acc.idleMs();
        e.tTotal = e.tHandshake + e.tIdle + e.tActive;
        e.acceptDate = e.requestDate - e.tIdle - e.tHandshake;
        String cookieFlags = s.persistence().cookieFlags(backend != null ? backend : frontend.ownBackend());
        if (cookieFlags != null) {
            e.cookieFlags = cookieFlags;
        }
        Termination.Cause cause = outcome.cause();
        e.error = status >= 500 || cause != Termination.Cause.NONE && cause != Termination.Cause.LOCAL;
        StreamTarget target = s.target();
        e.txn = target;
        e.logAsap = asap;
        e.requestCounter = s.number();
        if (frontend.uniqueIdFormat() != null) {
            target.uniqueId();
        }
        e.captures = target.captures();
        al.log(e);
    }

    /**
     * {@code tune.http.logurilen}: HAProxy keeps the request line for the log in {@code max} bytes and reads its parts
     * (%HM, %HU, %HV, ...) from what it kept, so a long target loses its end and the version.
     */
    private static void truncate(LogEvent e, int max) {
        String line = e.requestLine.substring(0, max);
        e.requestLine = line;
        int sp = line.indexOf(' ');
        e.method = sp < 0 ? line : line.substring(0, sp);
        String rest = sp < 0 ? "" : line.substring(sp + 1);
        int sp2 = rest.indexOf(' ');
        e.uri = sp2 < 0 ? rest : rest.substring(0, sp2);
        // no version left: HAProxy reads it as HTTP/0.9's (no version)
        e.version = sp2 < 0 ? "HTTP/0.9" : rest.substring(sp2 + 1);
    }

    /**
     * Logs the layer-4 stream {@code s} ({@code asap}: with {@code option logasap}, when its server connection was
     * established), when its frontend logs requests. HAProxy's timers in TCP mode are all counted from the accept, and a
     * stream has no request date (-1): {@code %Tw} is the end of the wait for a slot plus one, {@code %Tc} the connect
     * time from there, {@code %Tt} the total (the connect point with logasap, which prefixes it and {@code %B} with
     * '+'); {@code %B} the bytes from the server, {@code %U} those from the client; the status is 0.
     */
    static void tcp(TcpStream s, boolean asap) {
        Frontend frontend = s.frontend();
        AccessLog al = frontend.accessLog();
        if (al == null || !al.logsRequests()) {
            return;
        }
        long now = System.nanoTime();
        TcpClientSide client = s.client();
        Termination outcome = s.outcome();
        LogEvent e = common(client, frontend, 0, outcome.cause(), outcome.state());
        e.requestDate = client.acceptDate();
        Attempts attempts = s.attempts();
        server(e, s, s.slot(), attempts);
        long accept = client.requestStartNanos();
        long queued = s.queueEnd();
        long tQueue = queued < 0 ? -1 : Accounting.ms(accept, queued);
        e.tQueue = tQueue < 0 ? -1 : tQueue + 1;
        long connected = s.accounting().connectedAt();
        long tConnect = connected < 0 ? -1 : Accounting.ms(accept, connected);
        e.tConnect = tConnect < 0 ? -1 : tConnect - Math.max(0, tQueue);
        e.tRequest = -1;
        e.tTotal = asap && tConnect >= 0 ? tConnect : Accounting.ms(accept, now);
        e.tActive = e.tTotal;
        e.bytesOut = asap ? 0 : s.bytesFromServer();
        e.bytesIn = s.accounting().bytesIn();
        Termination.Cause cause = outcome.cause();
        // HAProxy's "error" of a stream: redispatched, an abnormal end, or retries that in the end succeeded
        e.error = e.redispatched || cause != Termination.Cause.NONE && cause != Termination.Cause.LOCAL
                || cause == Termination.Cause.NONE && e.retries > 0;
        e.txn = s.target();
        e.captures = s.target().captures();
        // as HAProxy: with logasap every line of the frontend has the '+' (its bytes are never waited for)
        e.logAsap = al.logAsap();
        e.requestCounter = s.number();
        al.log(e);
    }

    /**
     * What every line says of the way to the server, whatever the stream carried: backend and server, the queue
     * ({@code slot}, null when the stream never got that far), the connect time, the retries ({@code attempts}, or
     * null) and the backend's and server's streams.
     */
    /** The local address of the exchange's last server connection (%bi, %bp), null without one. */
    private static java.net.InetSocketAddress backendSource(Exchange x) {
        io.netty.channel.Channel ch = x.target() == null ? null : x.target().serverChannel();
        if (ch == null) {
            return null;
        }
        return ch.localAddress() instanceof java.net.InetSocketAddress a ? a : LogEvent.UNIX_SOURCE;
    }

    private static void server(LogEvent e, Exchange x, ServerSlot slot, Attempts attempts) {
        Backend backend = x.backend();
        Server server = x.server();
        e.backend = backend != null ? backend.name() : null;
        e.server = server != null ? server.name() : null;
        e.serverAddress = e.server != null ? server.address() : null;
        e.serverUnix = e.server != null && server.unix();
        e.backendSource = backendSource(x);
        e.tQueue = slot != null ? slot.queueMillis() : -1;
        e.serverQueue = slot != null ? slot.serverQueuePosition() : 0;
        e.backendQueue = slot != null ? slot.backendQueuePosition() : 0;
        Accounting acc = x.accounting();
        long connected = acc.connectedAt();
        e.tConnect = connected >= 0 ? Accounting.ms(acc.connectStart(), connected) : -1;
        e.retries = attempts != null ? attempts.done() : 0;
        e.redispatched = attempts != null && attempts.redispatched();
        e.beconn = backend != null ? backend.activeStreams() : 0;
        e.srvconn = server != null ? server.currentSessions() : 0;
    }
}

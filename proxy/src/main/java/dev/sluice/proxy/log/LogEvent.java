package dev.sluice.proxy.log;

import dev.sluice.proxy.rules.Txn;
import java.net.InetSocketAddress;

/**
 * What one log line says about one request (or one rejected connection): addresses, dates, timers,
 * names, status, byte counts, termination state and concurrency counts. Filled by the stream and the
 * client connection on their event loop, rendered there too, then discarded. Timer fields are in
 * milliseconds, -1 when the step was never reached.
 */
public final class LogEvent {
    public InetSocketAddress client;
    public InetSocketAddress frontendAddress;
    public InetSocketAddress serverAddress;
    /** The server is a UNIX socket: %si says "unix", %sp 0, as HAProxy's. */
    public boolean serverUnix;
    /**
     * Where the proxy connected from (%bi, %bp): the last server connection's local address, null without one; a
     * connection to a UNIX socket has {@link #UNIX_SOURCE}.
     */
    public InetSocketAddress backendSource;
    /** {@link #backendSource} of a connection to a UNIX socket: %bi says "unix", %bp 0, as HAProxy's. */
    public static final InetSocketAddress UNIX_SOURCE = InetSocketAddress.createUnresolved("unix", 0);
    /** Epoch milliseconds when the connection was accepted ({@code %t}) and when the request began ({@code %tr}). */
    public long acceptDate;
    public long requestDate;
    public String frontend;
    public boolean frontendTls;
    /** The client connection's TLS version and cipher ({@code %sslv}, {@code %sslc}); null in clear text. */
    public String sslVersion;
    public String sslCipher;
    public String backend;
    public String server;
    public String method;
    public String uri;
    public String version;
    /** The request line as logged by %r; "&lt;BADREQ&gt;" when the request could not be parsed. */
    public String requestLine;
    public int status = -1;
    public long bytesOut;
    public long bytesIn;
    public long tRequest = -1;
    public long tQueue = -1;
    public long tConnect = -1;
    public long tResponse = -1;
    public long tActive = -1;
    public long tTotal = -1;
    public long tIdle;
    /** %Th: the handshakes before the stream (its connection's PROXY header and TLS, for its first stream), 0 after. */
    public long tHandshake;
    /** Termination cause (C S P L R I c s or -) and state (R Q C H D L T or -). */
    public char cause = '-';
    public char state = '-';
    /** The last two characters of %tsc: the persistence cookie the client sent and what became of the server's ("--": none). */
    public String cookieFlags = "--";
    public int retries;
    /** The request went to another server than first chosen (%rc shows "+" before the retries). */
    public boolean redispatched;
    /** Requests served from the server's and the backend's queue while this one waited there, plus one (0: it did not wait). */
    public int serverQueue;
    public int backendQueue;
    public int actconn;
    public int feconn;
    public int beconn;
    public int srvconn;
    public boolean error;
    /** The exchange, for {@code %[...]} sample expressions (read while rendering, on its event loop); null for none. */
    public Txn txn;
    /** Capture slots, cookies, unique id and level of the exchange; null when it has none. */
    public LogCaptures captures;
    /** {@code option logasap}: logged when the response head left, before the body. */
    public boolean logAsap;
    /** The process-wide number of the exchange ({@code %rt}). */
    public long requestCounter;
    /** The lines the frontend logged before this one ({@code %lc}). */
    public long logCounter;
}

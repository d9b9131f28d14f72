package dev.sluice.proxy.rules;

import dev.sluice.config.model.Tune;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What sample fetches read and actions change: the exchange seen by the rules. The stream implements
 * it; tests use a simple fake. Used on the stream's event loop only.
 */
public interface Txn {
    RequestHead request();

    /** The client connection's channel (an HTTP/2 or HTTP/3 stream's own), or null where a fetch cannot read it. */
    default io.netty.channel.Channel clientChannel() {
        return null;
    }

    /** The client connection's HTTP encoding on the wire: 2 for HTTP/2, 1 for the others, 0 outside HTTP. */
    default int clientHttpMajor() {
        return 0;
    }

    /**
     * {@code cur_server_timeout} ({@code tunnel} false) or {@code cur_tunnel_timeout} in milliseconds, as HAProxy 2.6's
     * stream holds them: what a {@code set-timeout} rule set, else the backend's once the server connection is
     * established (0 when the backend has none), else 0; null where there is no stream.
     */
    default Long currentTimeout(boolean tunnel) {
        return null;
    }

    /** The socket channel of the stream's last server connection (bc_* fetches, %bi), or null before one. */
    default io.netty.channel.Channel serverChannel() {
        return null;
    }

    /** The HTTP encoding of the stream's last server connection: 2 for HTTP/2, 1 for HTTP/1 and FastCGI, else 0. */
    default int serverHttpMajor() {
        return 0;
    }

    /**
     * {@code cpu_calls}: how many times the stream's processing ran so far (HAProxy's calls of process_stream: the
     * request, a connection that completed later, a slot from the queue, a body waited for, the response); -1 where
     * there is no stream (connection and session rules), which gives no sample.
     */
    default int processCalls() {
        return -1;
    }

    /** {@code prio_class}: the priority class {@code set-priority-class} gave the stream (-2047..2047), 0 by default. */
    default int priorityClass() {
        return 0;
    }

    /** {@code prio_offset}: the offset {@code set-priority-offset} gave the stream (ms, -524287..524287), 0 by default. */
    default int priorityOffset() {
        return 0;
    }

    /** The response, in http-response rules; null before. */
    ResponseHead response();

    InetSocketAddress clientAddress();

    InetSocketAddress frontendAddress();

    boolean tls();

    /** The TLS SNI the client sent, or null. */
    String sni();

    /** The client connection's TLS session (protocol, cipher, ALPN, resumption); null in clear text or before the handshake. */
    default TlsSession tlsSession() {
        return null;
    }

    /**
     * The TLS session of the server connection of the exchange ({@code ssl_bc_*}, {@code ssl_s_*}): the one it is attached
     * to, or was last (for the log line); null in clear text or before a server connection.
     */
    default TlsSession serverTlsSession() {
        return null;
    }

    /** What the PROXY protocol header of the client connection said ({@code accept-proxy}), or null. */
    default dev.sluice.proxy.listener.ProxyHeader.Received proxyHeader() {
        return null;
    }

    String frontendName();

    /** The backend chosen so far, or null. */
    String backendName();

    /** The FastCGI application of the backend chosen so far ({@code use-fcgi-app}), or null. */
    default dev.sluice.config.model.FcgiApp fcgiApp() {
        return null;
    }

    /**
     * The variables of the transaction ({@code txn.}, {@code req.}, {@code res.}, {@code sess.} scopes), and those of the
     * process ({@code proc.}) when the target belongs to a runtime ({@link Variables}).
     */
    Map<String, Object> vars();

    /** An environment variable as the process sees it ({@code env()}): the global section's setenv lines included. */
    default String env(String name) {
        return System.getenv(name);
    }

    /** The configuration's userlists, for {@code http_auth} and {@code http_auth_group}. */
    default dev.sluice.proxy.auth.Userlists userlists() {
        return dev.sluice.proxy.auth.Userlists.NONE;
    }

    /**
     * Whether the client talks to the proxy as a proxy ({@code option http-use-proxy-header} and an
     * absolute URI): authentication then uses {@code Proxy-Authorization} and answers 407.
     */
    default boolean proxyAuthentication() {
        return false;
    }

    /**
     * The request body bytes held so far ({@code http-request wait-for-body}), or null when the body is
     * not held: what the {@code req.body} fetches read.
     */
    default byte[] requestBody() {
        return null;
    }

    /** The response body bytes an {@code http-response wait-for-body} held ({@code res.body}), or null when none ran. */
    default byte[] responseBody() {
        return null;
    }

    /**
     * The value of capture slot {@code slot} of the request ({@code response} false) or the response, for
     * {@code capture.req.hdr(n)} / {@code capture.res.hdr(n)}; null when empty or absent.
     */
    default String captured(boolean response, int slot) {
        return null;
    }

    /** The name of the cache that answered ({@code res.cache_name}), null when a server did. */
    default String cacheName() {
        return null;
    }

    /**
     * The algorithm the proxy compresses the response with ({@code res.comp}, {@code res.comp_algo}), once it decided to:
     * after the response rules, as HAProxy's compression filter decides after them; null otherwise.
     */
    default String compressionAlgo() {
        return null;
    }

    /** When the request began, epoch milliseconds ({@code %Ts}, {@code %ms} in rule values and unique ids). */
    default long requestDate() {
        return System.currentTimeMillis();
    }

    /** The process-wide number of this exchange ({@code %rt}), counted from 0. */
    default long requestCounter() {
        return 0;
    }

    /** The request's unique id ({@code unique-id-format}), made on first use; null without a format. */
    default String uniqueId() {
        return null;
    }

    /**
     * Where the last rule that ended a rule set of this stream (a deny, a return, allow, accept...) was written, for
     * {@code last_rule_file} and {@code last_rule_line}; null before one did.
     */
    default dev.sluice.config.SourceRef lastRule() {
        return null;
    }

    /**
     * Whether this is the first request of its client connection ({@code http_first_req}); a lone request
     * (tests, benchmarks) is.
     */
    default boolean firstRequest() {
        return true;
    }

    /** The proxy and server states the state fetches read ({@code nbsrv}, {@code be_conn}...), or null (tests, checks). */
    default ProxyStates states() {
        return null;
    }

    /** The stream's stick counters, or null when it has none (tests, generated answers). */
    default Trackers trackers() {
        return null;
    }

    /**
     * The bytes held from the client for content inspection ({@code tcp-request content} rules of a TCP proxy): a
     * read-only view, its readable bytes from the first one received; null when there are none (HTTP: the layer-6
     * fetches then have no sample). Valid during the evaluation only: a sample read from it is a view too.
     */
    default ByteBuf requestPayload() {
        return null;
    }

    /** The same for the bytes held from the server ({@code tcp-response content}); null when there are none. */
    default ByteBuf responsePayload() {
        return null;
    }

    /**
     * Whether the content the fetches read is final (HAProxy's SMP_OPT_FINAL): the client closed, the buffer is full, or
     * the inspect-delay is unset or over. A content ACL that cannot decide misses only while it is not; outside content
     * inspection (HTTP rules) it always is, and {@code wait_end} is true.
     */
    default boolean contentFinal() {
        return true;
    }

    /**
     * Called by a fetch whose sample, or lack of one, may change with more content (HAProxy's SMP_F_MAY_CHANGE:
     * {@code req.len}, a payload too short yet, an incomplete TLS hello, {@code wait_end} before the end). A target
     * that inspects content keeps the report for {@link #takeMayChange}; others ignore it.
     */
    default void mayChange() {
    }

    /** Whether {@link #mayChange} was called since the last call of this method, which clears the report. */
    default boolean takeMayChange() {
        return false;
    }

    /**
     * The buffer settings of the process: {@code tune.bufsize} bounds what the payload fetches can ever read (a
     * payload past it never matches), {@code bufsize - maxrewrite} what a client's TLS record may need.
     */
    default Tune tune() {
        return Tune.DEFAULT;
    }
}

package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What sample fetches read and actions change: the exchange seen by the rules. The stream implements
 * it; tests use a simple fake. Used on the stream's event loop only.
 */
public interface Txn {
    RequestHead request();

    /** The response, in http-response rules; null before. */
    ResponseHead response();

    InetSocketAddress clientAddress();

    InetSocketAddress frontendAddress();

    boolean tls();

    /** The TLS SNI the client sent, or null. */
    String sni();

    String frontendName();

    /** The backend chosen so far, or null. */
    String backendName();

    /** The variables of the transaction ({@code txn.}, {@code req.}, {@code res.}, {@code sess.} scopes). */
    Map<String, Object> vars();

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

    /** The stream's stick counters, or null when it has none (tests, generated answers). */
    default Trackers trackers() {
        return null;
    }
}

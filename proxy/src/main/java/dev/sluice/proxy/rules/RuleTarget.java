package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.ResponseHead;
import java.net.InetAddress;

/**
 * What actions act on: the exchange ({@link Txn}) plus the head of the current phase and the ways a
 * rule ends an exchange. Implemented by the stream; used on its event loop.
 */
public interface RuleTarget extends Txn {
    /** The head the current rule set works on: the request, or the response in response rules. */
    MessageHead head();

    boolean responsePhase();

    /** Answers with this response instead of forwarding (deny, return, redirect); {@code body} may be empty. */
    void answer(ResponseHead head, byte[] body, char cause);

    /** Answers with the proxy's page for a status (403 for deny, 502 for a denied response, ...). */
    void answerStatus(int status, char cause);

    /** Closes the client connection without a response ({@code reject}, {@code silent-drop}). */
    void drop();

    /**
     * {@code silent-drop}: closes the client connection without telling the client where the platform allows it; as
     * {@link #drop} where it does not.
     */
    default void silentDrop() {
        drop();
    }

    /**
     * {@code tcp-response content close}: the server connection is closed now, what it sent so far still goes to the
     * client, then the client's connection ends.
     */
    default void closeServer() {
    }

    /**
     * {@code set-src}, {@code set-dst} ({@code ip}, the port kept) and {@code set-src-port},
     * {@code set-dst-port} ({@code ip} null, {@code port} 0-65535): the client connection's source ({@code source}) or
     * destination address changes for everything after.
     */
    default void setAddress(boolean source, InetAddress ip, int port) {
    }

    /**
     * {@code set-priority-class} ({@code offset} false) and {@code set-priority-offset}: the stream's place in a queue,
     * clamped as HAProxy's queue_limit_class and queue_limit_offset clamp it.
     */
    default void setPriority(boolean offset, long value) {
    }

    /**
     * {@code set-tos} ({@code mark} false: IP_TOS, or IPV6_TCLASS on IPv6) and {@code set-mark} (SO_MARK) on the client
     * connection's socket; a failure (no privilege, no socket: QUIC) leaves it as it was, as HAProxy ignores setsockopt's.
     */
    default void setSocketOption(boolean mark, int value) {
    }

    /**
     * {@code tcp-request content switch-mode http [proto h1|h2]}: the connection becomes HTTP once the rules are done,
     * on the multiplexer {@code proto} names (null: HTTP/1, upgraded to HTTP/2 on its preface).
     */
    default void switchMode(String proto) {
    }

    /** {@code tcp-request connection expect-proxy layer4}: the connection starts with a PROXY protocol header. */
    default void expectProxy() {
        throw new UnsupportedOperationException("expect-proxy outside tcp-request connection rules");
    }

    /** Holds the request for {@code timeout tarpit}, then answers {@code status}. */
    void tarpit(int status);

    /** Holds the request for {@code timeout tarpit}, then answers with {@code reply} (a custom page), or {@code status}. */
    default void tarpit(int status, Action reply) {
        tarpit(status);
    }

    void setTimeout(String which, long millis);

    void setRetries(int retries);

    /** {@code disable-l7-retry}: only connection failures are retried for this request. */
    default void disableL7Retry() {
    }

    /**
     * {@code http-request|response capture <sample> id <slot>} and the {@code capture-req|res} converters: false when the
     * frontend has no such slot.
     */
    default boolean capture(boolean response, int slot, CharSequence value) {
        return false;
    }

    /** {@code set-log-level}: a syslog level (0-7), or {@code Integer.MAX_VALUE} for none at all. */
    default void setLogLevel(int level) {
    }

    /** The rule whose final verdict ended a rule set was written at {@code where} ({@link Txn#lastRule}). */
    default void lastRule(dev.sluice.config.SourceRef where) {
    }

    /**
     * {@code wait-for-body}: true when the request body is already there (whole, {@code atLeast} bytes of
     * it when positive, or as much as the stream holds); otherwise the stream starts waiting for it (at most
     * {@code millis}, then 408) and false is returned: the rules must yield.
     */
    /**
     * {@code http-request cache-use <cache>}: the request is answered from the cache when it holds a fresh response
     * for it (once every request rule ran); also what lets {@code cache-store} compute the request's keys.
     */
    default void cacheUse(String cache) {
    }

    /** {@code http-response cache-store <cache>} of proxy {@code proxy}: the response is stored as it goes, when it may be. */
    default void cacheStore(String cache, String proxy) {
    }

    /** The service of this name for {@code use-service}, or null when the frontend has none. */
    default Service service(String name) {
        return null;
    }

    default boolean waitForBody(long millis, long atLeast) {
        return true;
    }
}

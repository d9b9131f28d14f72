package dev.sluice.config.model;

import java.util.List;

/**
 * A proxy's layer-4 rule sets, each in its order of evaluation (the rules of a named {@code defaults} section the proxy
 * inherits come first, as HAProxy runs them first): {@code tcp-request connection} (once per accepted connection, before
 * any protocol), {@code tcp-request session} (once the session is set up: after the PROXY header and the TLS handshake),
 * {@code tcp-request content} (on the request's first bytes in TCP mode, per request in HTTP mode, before the http-request
 * rules) with {@code tcp-request inspect-delay}, and {@code tcp-response content} (on the response's first bytes) with
 * {@code tcp-response inspect-delay}. Delays are in milliseconds, 0 when not set (no waiting: the first evaluation is
 * final). Actions are {@link HttpRule.Action}s as written (accept, reject, close, capture, track-sc0..2, sc-*, set-var*,
 * set-src, switch-mode, ...); the runtime compiles them.
 */
public record TcpRules(List<HttpRule> connection, List<HttpRule> session, List<HttpRule> content, long inspectDelay,
        List<HttpRule> responseContent, long responseInspectDelay) {
    public static final TcpRules NONE = new TcpRules(List.of(), List.of());

    public TcpRules {
        connection = List.copyOf(connection);
        session = List.copyOf(session);
        content = List.copyOf(content);
        responseContent = List.copyOf(responseContent);
    }

    /** Connection and content rules only, without delays. */
    public TcpRules(List<HttpRule> connection, List<HttpRule> content) {
        this(connection, List.of(), content, 0, List.of(), 0);
    }
}

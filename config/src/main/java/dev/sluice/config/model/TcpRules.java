package dev.sluice.config.model;

import java.util.List;

/**
 * A proxy's {@code tcp-request connection} rules (run once per accepted connection, before any
 * protocol) and {@code tcp-request content} rules (run per request in HTTP mode, before the
 * http-request rules). Their actions are {@link HttpRule.Action}s: accept, reject, track-sc0..2,
 * sc-inc-gpc*, sc-add-gpc, sc-set-gpt*.
 */
public record TcpRules(List<HttpRule> connection, List<HttpRule> content) {
    public static final TcpRules NONE = new TcpRules(List.of(), List.of());

    public TcpRules {
        connection = List.copyOf(connection);
        content = List.copyOf(content);
    }
}

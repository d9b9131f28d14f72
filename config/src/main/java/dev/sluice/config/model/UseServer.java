package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * {@code use-server <server> if|unless <cond>}: a backend's rule that sends the request to a server before the persistence
 * and the balancing. {@code server} may be a log-format expression ({@code %[...]}) resolved per request; the condition is
 * mandatory.
 */
public record UseServer(SourceRef where, String server, Condition condition) {

    public boolean isDynamic() {
        return server.contains("%[") || server.contains("%{");
    }
}

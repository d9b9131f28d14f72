package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * A {@code server} line of a backend, with {@code default-server} values already applied. {@code host}
 * is an IP literal (no brackets) or a host name resolved at start-up; {@code tls} is null for clear text;
 * {@code proto} is "h2" for HTTP/2 (h2c, or forced on TLS), null for HTTP/1.1 (or ALPN's choice on TLS).
 */
public record Server(SourceRef where, String name, String host, int port, int weight, ServerTls tls, String proto) {

    public Server(SourceRef where, String name, String host, int port, int weight) {
        this(where, name, host, port, weight, null, null);
    }
}

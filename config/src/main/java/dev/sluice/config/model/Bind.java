package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * A {@code bind} line: where a frontend accepts connections, whether it terminates TLS ({@code tls}
 * null for clear text) and which protocol it speaks on clear text ({@code proto} "h2" for HTTP/2 with
 * prior knowledge, null for HTTP/1.x).
 */
public record Bind(SourceRef where, ListenAddress address, String text, BindTls tls, String proto) {

    public Bind(SourceRef where, ListenAddress address, String text) {
        this(where, address, text, null, null);
    }

    public Bind withTls(BindTls t) {
        return new Bind(where, address, text, t, proto);
    }
}

package dev.sluice.config.model;

import java.util.List;

/**
 * TLS towards a server ({@code server ... ssl ...}), with {@code ssl-default-server-*} merged in.
 * {@code sni} is a sample expression (null: no SNI); {@code crt} a client certificate (null: none).
 */
public record ServerTls(Verify verify, String caFile, String sni, List<String> alpn, String crt, String ciphers, String ciphersuites,
        TlsVersion minVersion, TlsVersion maxVersion, boolean sessionReuse) {

    public ServerTls {
        alpn = List.copyOf(alpn);
    }
}

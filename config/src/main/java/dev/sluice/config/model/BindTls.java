package dev.sluice.config.model;

import java.util.List;

/**
 * TLS on a {@code bind} line ({@code ssl crt ...}), with the global {@code ssl-default-bind-*} values
 * already merged in. {@code certificates} are files or directories (relative paths already prefixed by
 * {@code crt-base}); {@code minVersion}/{@code maxVersion} are the effective bounds (null = library
 * default) after {@code no-tlsvXX}/{@code force-tlsvXX} are folded in. {@code alpn} is what the handshake offers, empty
 * for no ALPN: without an {@code alpn} keyword, {@link #DEFAULT_ALPN} on an HTTP frontend's bind, nothing on a TCP
 * frontend's (HAProxy 2.6 offers nothing on either). {@code earlyData}: {@code allow-0rtt}, TLS 1.3 early data (0-RTT) is
 * accepted; only QUIC binds can (Netty's TLS over TCP has no server-side early data).
 */
public record BindTls(List<String> certificates, List<String> alpn, String ciphers, String ciphersuites, TlsVersion minVersion,
        TlsVersion maxVersion, String caFile, Verify verify, boolean tickets, boolean strictSni, String curves,
        boolean preferClientCiphers, boolean earlyData) {

    public static final List<String> DEFAULT_ALPN = List.of("h2", "http/1.1");

    /** Without early data. */
    public BindTls(List<String> certificates, List<String> alpn, String ciphers, String ciphersuites, TlsVersion minVersion,
            TlsVersion maxVersion, String caFile, Verify verify, boolean tickets, boolean strictSni, String curves,
            boolean preferClientCiphers) {
        this(certificates, alpn, ciphers, ciphersuites, minVersion, maxVersion, caFile, verify, tickets, strictSni, curves, preferClientCiphers,
                false);
    }

    public BindTls {
        certificates = List.copyOf(certificates);
        alpn = List.copyOf(alpn);
    }
}

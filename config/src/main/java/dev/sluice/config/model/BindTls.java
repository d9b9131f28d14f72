package dev.sluice.config.model;

import java.util.List;
import java.util.Set;

/**
 * TLS on a {@code bind} line ({@code ssl crt ...}), with the global {@code ssl-default-bind-*} values
 * already merged in. {@code certificates} are files or directories (relative paths already prefixed by
 * {@code crt-base}); {@code minVersion}/{@code maxVersion} are the effective bounds (null = library
 * default) after {@code no-tlsvXX}/{@code force-tlsvXX} are folded in. {@code alpn} is what the handshake offers, empty
 * for no ALPN: without an {@code alpn} keyword, {@link #DEFAULT_ALPN} on an HTTP frontend's bind, nothing on a TCP
 * frontend's (HAProxy 2.6 offers nothing on either). {@code earlyData}: {@code allow-0rtt}, TLS 1.3 early data (0-RTT) is
 * accepted; only QUIC binds can (Netty's TLS over TCP has no server-side early data). {@code caIgnoreErr} and
 * {@code crtIgnoreErr}: the OpenSSL X509 verification errors ({@code X509_V_ERR_*} numbers, 1..{@link #MAX_VERIFY_ERROR};
 * {@code all} is every one of them) that do not fail the handshake when found on a CA of the client's chain (depth above 0) or on the client's
 * own certificate ({@code ca-ignore-err}, {@code crt-ignore-err}).
 */
public record BindTls(List<String> certificates, List<String> alpn, String ciphers, String ciphersuites, TlsVersion minVersion,
        TlsVersion maxVersion, String caFile, Verify verify, boolean tickets, boolean strictSni, String curves,
        boolean preferClientCiphers, boolean earlyData, Set<Integer> caIgnoreErr, Set<Integer> crtIgnoreErr) {

    public static final List<String> DEFAULT_ALPN = List.of("h2", "http/1.1");
    /** The highest error an ignore list may name: HAProxy 2.6.12's SSL_MAX_VFY_ERROR_CODE (X509_V_ERR_OCSP_CERT_UNKNOWN). */
    public static final int MAX_VERIFY_ERROR = 94;

    /** Ignoring no verification error. */
    public BindTls(List<String> certificates, List<String> alpn, String ciphers, String ciphersuites, TlsVersion minVersion,
            TlsVersion maxVersion, String caFile, Verify verify, boolean tickets, boolean strictSni, String curves,
            boolean preferClientCiphers, boolean earlyData) {
        this(certificates, alpn, ciphers, ciphersuites, minVersion, maxVersion, caFile, verify, tickets, strictSni, curves, preferClientCiphers,
                earlyData, Set.of(), Set.of());
    }

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
        caIgnoreErr = Set.copyOf(caIgnoreErr);
        crtIgnoreErr = Set.copyOf(crtIgnoreErr);
    }
}

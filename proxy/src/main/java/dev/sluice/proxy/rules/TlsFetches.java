package dev.sluice.proxy.rules;

import dev.sluice.proxy.tls.CertFields;
import dev.sluice.proxy.tls.TlsSession;
import java.io.ByteArrayOutputStream;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.function.Function;

/**
 * HAProxy 2.6's fetches of the client connection's TLS session beyond the first ones in {@link Fetches} (ssl_sample.c):
 * the client certificate ({@code ssl_c_*}), the certificate the bind presented ({@code ssl_f_*}), more of the session
 * ({@code ssl_fc_has_crt}, key sizes, session id, randoms, error codes), and the same of the server connection
 * ({@code ssl_bc_*}, its certificate {@code ssl_s_*}). They read the {@link TlsSession} the handshake left on the
 * connection; the certificates are parsed at the first such fetch of a connection and kept. No sample in clear text.
 * <p>
 * The verification results ({@code ssl_c_err}, {@code ssl_c_ca_err}, {@code ssl_c_ca_err_depth}, {@code ssl_c_verify})
 * are the X509 errors the bind's {@code ca-ignore-err}/{@code crt-ignore-err} let through ({@link TlsSession#verification});
 * any other fails the handshake. {@code ssl_fc_err} is 0 (a session that reaches the rules had no TLS error) and {@code ssl_fc_err_str} has no sample; {@code ssl_fc_npn}/{@code ssl_bc_npn} have none
 * (no NPN is offered) and {@code ssl_fc_has_early} is false (no early data over TCP). Registered by {@link Fetches}.
 */
final class TlsFetches {
    private TlsFetches() {
    }

    static void register() {
        Fetches.def("ssl_c_used", 0, 0, Match.BOOL, false, a -> t -> {
            TlsSession s = t.tlsSession();
            return s == null ? null : s.certs() != null && s.certs().peerChain().length > 0;
        });
        Fetches.def("ssl_fc_has_crt", 0, 0, Match.BOOL, false, a -> t -> {
            // HAProxy: the verification ran in this handshake, so not on a resumed session
            TlsSession s = t.tlsSession();
            return s == null ? null : !s.resumed() && s.certs() != null && s.certs().peerChain().length > 0;
        });
        String[] verification = {"ssl_c_err", "ssl_c_ca_err", "ssl_c_ca_err_depth", "ssl_c_verify"};
        for (int i = 0; i < verification.length; i++) {
            int which = i;
            Fetches.def(verification[i], 0, 0, Match.INT, false, a -> t -> {
                TlsSession s = t.tlsSession();
                return s == null ? null : (Object) (long) s.verification(which);
            });
        }
        registerHelloCapture();
        Fetches.def("ssl_fc_err", 0, 0, Match.INT, false, a -> t -> t.tlsSession() == null ? null : (Object) 0L);
        Fetches.def("ssl_fc_err_str", 0, 0, Match.STR, false, a -> t -> null);
        // NPN: Sluice offers none ('npn' is refused on binds and servers), so none is ever negotiated, as in HAProxy without it
        Fetches.def("ssl_fc_npn", 0, 0, Match.STR, false, a -> t -> null);
        Fetches.def("ssl_bc_npn", 0, 0, Match.STR, false, a -> t -> null);
        // early data: a TCP bind accepts none (allow-0rtt is QUIC's); on QUIC the codec does not tell (a departure)
        Fetches.def("ssl_fc_has_early", 0, 0, Match.BOOL, false, a -> t -> t.tlsSession() == null ? null : Boolean.FALSE);
        Fetches.def("ssl_fc_use_keysize", 0, 0, Match.INT, false, a -> t -> {
            TlsSession s = t.tlsSession();
            return s == null || s.cipherBits() == 0 ? null : (Object) (long) s.cipherBits();
        });
        Fetches.def("ssl_fc_alg_keysize", 0, 0, Match.INT, false, a -> t -> {
            TlsSession s = t.tlsSession();
            return s == null || s.cipherAlgorithmBits() == 0 ? null : (Object) (long) s.cipherAlgorithmBits();
        });
        Fetches.def("ssl_fc_session_id", 0, 0, Match.BIN, false, a -> t -> t.tlsSession() == null ? null : t.tlsSession().sessionId());
        for (boolean client : new boolean[] {true, false}) {
            Fetches.def(client ? "ssl_fc_client_random" : "ssl_fc_server_random", 0, 0, Match.BIN, false, a -> t -> {
                TlsSession s = t.tlsSession();
                return s == null || s.certs() == null ? null : s.certs().random(client);
            });
        }
        Fetches.def("ssl_fc_session_key", 0, 0, Match.BIN, false, a -> t -> {
            TlsSession s = t.tlsSession();
            return s == null || s.certs() == null ? null : s.certs().masterKey();
        });
        Fetches.def("ssl_c_chain_der", 0, 0, Match.BIN, false, a -> t -> {
            TlsSession s = t.tlsSession();
            // SSL_get_peer_cert_chain on a server: what the client sent after its own certificate; OpenSSL's stored sessions keep
            // the certificate but not the chain, so a resumed session has none there (BoringSSL keeps it)
            return s == null || s.certs() == null || s.resumed() ? null : concat(s.certs().peerChain(), 1);
        });
        for (Side side : Side.values()) {
            String p = side.prefix;
            cert(p + "der", Match.BIN, side, CertFields::der);
            cert(p + "sha1", Match.BIN, side, CertFields::sha1);
            cert(p + "serial", Match.BIN, side, CertFields::serial);
            cert(p + "notbefore", Match.STR, side, CertFields::notBefore);
            cert(p + "notafter", Match.STR, side, CertFields::notAfter);
            cert(p + "sig_alg", Match.STR, side, CertFields::signatureAlgorithm);
            cert(p + "key_alg", Match.STR, side, CertFields::keyAlgorithm);
            cert(p + "version", Match.INT, side, CertFields::version);
            dn(p + "s_dn", side, false);
            dn(p + "i_dn", side, true);
        }
        // ssl_s_chain_der: the server's chain as a client sees it, its own certificate first (SSL_get_peer_cert_chain)
        Fetches.def("ssl_s_chain_der", 0, 0, Match.BIN, false, a -> t -> {
            TlsSession s = t.serverTlsSession();
            return s == null || s.certs() == null ? null : concat(s.certs().peerChain(), 0);
        });
        registerBackend();
    }

    /**
     * Whether {@code name} reads the client connection's TLS session (HAProxy's SMP_USE_L5CLI, {@code ssl_s_*} included as
     * HAProxy 2.6 declares them): usable in every phase.
     */
    static boolean clientSide(String name) {
        return name.startsWith("ssl_c_") || name.startsWith("ssl_f_") || name.startsWith("ssl_fc_") || name.startsWith("ssl_s_");
    }

    /** Whether {@code name} reads the server connection's (SMP_USE_L5SRV): not before a server connection, so not in request rules. */
    static boolean serverSide(String name) {
        return name.startsWith("ssl_bc");
    }

    /** Whose certificate: the client's ({@code ssl_c_}), the bind's own ({@code ssl_f_}), the server's ({@code ssl_s_}). */
    enum Side {
        CLIENT("ssl_c_"), FRONTEND("ssl_f_"), SERVER("ssl_s_");

        final String prefix;

        Side(String prefix) {
            this.prefix = prefix;
        }
    }

    /**
     * The server connection's session ({@code ssl_bc_*}, HAProxy's fetches with 'b' as 5th character): {@code ssl_bc} is
     * false and {@code ssl_bc_is_resumed} false without a TLS server connection, the others have no sample.
     */
    /**
     * The fetches of {@code tune.ssl.capture-buffer-size}'s capture ({@link ClientHelloCapture}), as ssl_sample.c: no sample
     * without TLS or without a capture; the {@code _bin} lists binary (their argument 1: without GREASE values), {@code _hex}
     * upper-case hexadecimal, {@code _str} OpenSSL's names joined by commas (UNKNOWN(xxxx) for a value it does not know).
     */
    private static void registerHelloCapture() {
        Fetches.def("ssl_fc_protocol_hello_id", 0, 0, Match.INT, false, a -> t -> {
            ClientHelloCapture c = capture(t);
            return c == null ? null : (Object) (long) c.protocolVersion();
        });
        Fetches.def("ssl_fc_cipherlist_xxh", 0, 0, Match.INT, false, a -> t -> {
            ClientHelloCapture c = capture(t);
            return c == null ? null : (Object) c.cipherListHash();
        });
        Fetches.def("ssl_fc_ecformats_bin", 0, 0, Match.BIN, false, a -> t -> {
            ClientHelloCapture c = capture(t);
            return c == null ? null : c.pointFormats();
        });
        helloList("ssl_fc_cipherlist_bin", Match.BIN, ClientHelloCapture::ciphers);
        helloList("ssl_fc_cipherlist_hex", Match.BIN, (c, noGrease) -> java.util.HexFormat.of().withUpperCase().formatHex(c.ciphers(noGrease)));
        helloList("ssl_fc_cipherlist_str", Match.STR, (c, noGrease) -> ClientHelloCapture.cipherNames(c.ciphers(noGrease)));
        helloList("ssl_fc_extlist_bin", Match.BIN, ClientHelloCapture::extensions);
        helloList("ssl_fc_eclist_bin", Match.BIN, ClientHelloCapture::groups);
    }

    /** A capture fetch of a list, its argument filter_option (not 0: without GREASE values). */
    private static void helloList(String name, Match match, java.util.function.BiFunction<ClientHelloCapture, Boolean, Object> read) {
        Fetches.def(name, 0, 1, match, false, a -> {
            boolean noGrease = filter(a);
            return t -> {
                ClientHelloCapture c = capture(t);
                return c == null ? null : read.apply(c, noGrease);
            };
        });
    }

    /** The filter_option argument (an integer; not 0: without GREASE). */
    private static boolean filter(java.util.List<String> a) {
        return !a.isEmpty() && !a.get(0).isEmpty() && Long.parseLong(a.get(0).strip()) != 0;
    }

    private static ClientHelloCapture capture(Txn t) {
        return t.tlsSession() == null || t.clientChannel() == null ? null : ClientHelloCapture.of(t.clientChannel());
    }

    private static void registerBackend() {
        Fetches.def("ssl_bc", 0, 0, Match.BOOL, false, a -> t -> t.serverTlsSession() != null);
        Fetches.def("ssl_bc_is_resumed", 0, 0, Match.BOOL, false, a -> t -> t.serverTlsSession() != null && t.serverTlsSession().resumed());
        backend("ssl_bc_protocol", Match.STR, TlsSession::protocol);
        backend("ssl_bc_cipher", Match.STR, TlsSession::cipher);
        backend("ssl_bc_alpn", Match.STR, TlsSession::alpn);
        backend("ssl_bc_use_keysize", Match.INT, s -> s.cipherBits() == 0 ? null : (Object) (long) s.cipherBits());
        backend("ssl_bc_alg_keysize", Match.INT, s -> s.cipherAlgorithmBits() == 0 ? null : (Object) (long) s.cipherAlgorithmBits());
        backend("ssl_bc_session_id", Match.BIN, TlsSession::sessionId);
        backend("ssl_bc_client_random", Match.BIN, s -> s.certs() == null ? null : s.certs().random(true));
        backend("ssl_bc_server_random", Match.BIN, s -> s.certs() == null ? null : s.certs().random(false));
        backend("ssl_bc_session_key", Match.BIN, s -> s.certs() == null ? null : s.certs().masterKey());
        backend("ssl_bc_err", Match.INT, s -> 0L);
        Fetches.def("ssl_bc_err_str", 0, 0, Match.STR, false, a -> t -> null);
    }

    private static void backend(String name, Match m, Function<TlsSession, Object> field) {
        Fetches.def(name, 0, 0, m, false, a -> t -> {
            TlsSession s = t.serverTlsSession();
            return s == null ? null : field.apply(s);
        });
    }

    private static CertFields fields(Txn t, Side side) {
        TlsSession s = side == Side.SERVER ? t.serverTlsSession() : t.tlsSession();
        if (s == null || s.certs() == null) {
            return null;
        }
        return side == Side.FRONTEND ? s.certs().local() : s.certs().peer();
    }

    private static void cert(String name, Match m, Side side, Function<CertFields, Object> field) {
        Fetches.def(name, 0, 0, m, false, a -> t -> {
            CertFields f = fields(t, side);
            return f == null ? null : field.apply(f);
        });
    }

    /** {@code ssl_c_s_dn([entry[,occ[,format]]])} and its kin: HAProxy's argument checks, then {@link CertFields#dn}. */
    private static void dn(String name, Side side, boolean issuer) {
        Fetches.def(name, 0, 3, Match.STR, false, a -> {
            String entry = a.isEmpty() ? null : a.get(0);
            int occ = 1;
            if (a.size() > 1 && !a.get(1).isEmpty()) {
                try {
                    occ = Integer.parseInt(a.get(1).trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("failed to parse '" + a.get(1) + "' as type signed integer at position 2");
                }
            }
            String format = a.size() > 2 ? a.get(2) : null;
            if (format != null && !format.isEmpty() && !format.equals("rfc2253")) {
                throw new IllegalArgumentException("only rfc2253 or a blank value are currently supported as the format argument.");
            }
            int pos = occ;
            return t -> {
                CertFields f = fields(t, side);
                return f == null ? null : f.dn(issuer, entry, pos, format);
            };
        });
    }

    /** The DER of the certificates of {@code chain} from {@code from} on, one after the other; none: no sample. */
    static byte[] concat(X509Certificate[] chain, int from) {
        if (chain.length <= from) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = from; i < chain.length; i++) {
            try {
                out.writeBytes(chain[i].getEncoded());
            } catch (CertificateEncodingException e) {
                return null;
            }
        }
        return out.toByteArray();
    }
}

package dev.sluice.proxy.rules;

import dev.sluice.proxy.tls.CertFields;
import dev.sluice.proxy.tls.TlsSession;
import java.io.ByteArrayOutputStream;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.function.Function;

/**
 * HAProxy 2.6's fetches of the client connection's TLS session beyond the first ones in {@link Fetches} (ssl_sample.c):
 * the client certificate ({@code ssl_c_*}), the certificate the bind presented ({@code ssl_f_*}) and more of the session
 * ({@code ssl_fc_has_crt}, key sizes, session id, error codes). They read the {@link TlsSession} the handshake left; the
 * certificates are parsed at the first such fetch of a connection and kept. No sample in clear text.
 * <p>
 * The verification results ({@code ssl_c_verify}, {@code ssl_c_err}, {@code ssl_c_ca_err}, {@code ssl_c_ca_err_depth})
 * are 0: a certificate that does not verify fails the handshake (Sluice has no {@code ca-ignore-err}/{@code
 * crt-ignore-err}), so a session that reaches the rules had no error, as HAProxy's without those keywords. For the same
 * reason {@code ssl_fc_err} is 0 and {@code ssl_fc_err_str} has no sample. Registered by {@link Fetches}.
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
        for (String n : new String[] {"ssl_c_verify", "ssl_c_err", "ssl_c_ca_err", "ssl_c_ca_err_depth", "ssl_fc_err"}) {
            Fetches.def(n, 0, 0, Match.INT, false, a -> t -> t.tlsSession() == null ? null : (Object) 0L);
        }
        Fetches.def("ssl_fc_err_str", 0, 0, Match.STR, false, a -> t -> null);
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
        Fetches.def("ssl_c_chain_der", 0, 0, Match.BIN, false, a -> t -> {
            TlsSession s = t.tlsSession();
            return s == null || s.certs() == null ? null : chainDer(s.certs().peerChain());
        });
        for (boolean peer : new boolean[] {true, false}) {
            String p = peer ? "ssl_c_" : "ssl_f_";
            cert(p + "der", Match.BIN, peer, CertFields::der);
            cert(p + "sha1", Match.BIN, peer, CertFields::sha1);
            cert(p + "serial", Match.BIN, peer, CertFields::serial);
            cert(p + "notbefore", Match.STR, peer, CertFields::notBefore);
            cert(p + "notafter", Match.STR, peer, CertFields::notAfter);
            cert(p + "sig_alg", Match.STR, peer, CertFields::signatureAlgorithm);
            cert(p + "key_alg", Match.STR, peer, CertFields::keyAlgorithm);
            cert(p + "version", Match.INT, peer, CertFields::version);
            dn(p + "s_dn", peer, false);
            dn(p + "i_dn", peer, true);
        }
    }

    private static CertFields fields(Txn t, boolean peer) {
        TlsSession s = t.tlsSession();
        if (s == null || s.certs() == null) {
            return null;
        }
        return peer ? s.certs().peer() : s.certs().local();
    }

    private static void cert(String name, Match m, boolean peer, Function<CertFields, Object> field) {
        Fetches.def(name, 0, 0, m, false, a -> t -> {
            CertFields f = fields(t, peer);
            return f == null ? null : field.apply(f);
        });
    }

    /** {@code ssl_c_s_dn([entry[,occ[,format]]])} and its kin: HAProxy's argument checks, then {@link CertFields#dn}. */
    private static void dn(String name, boolean peer, boolean issuer) {
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
                CertFields f = fields(t, peer);
                return f == null ? null : f.dn(issuer, entry, pos, format);
            };
        });
    }

    /** ssl_c_chain_der: the DER of each certificate the client sent after its own, one after the other; none: no sample. */
    static byte[] chainDer(X509Certificate[] chain) {
        if (chain.length < 2) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 1; i < chain.length; i++) {
            try {
                out.writeBytes(chain[i].getEncoded());
            } catch (CertificateEncodingException e) {
                return null;
            }
        }
        return out.toByteArray();
    }
}

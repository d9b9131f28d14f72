package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Samples;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.config.Addresses;

/** The server name a connection to a TLS server sends (SNI): the {@code sni} expression's, else the configured host. */
final class ServerSni {
    private ServerSni() {
    }

    /**
     * The server name to send in the TLS handshake for this request: the {@code sni} expression's value (without a
     * port), else the server's configured host name; null for none (clear text, IP literals).
     */
    static String forRequest(Server.Tls tls, Txn t) {
        if (tls == null) {
            return null;
        }
        if (tls.sni() != null) {
            String name = hostOnly(Samples.str(tls.sni().get(t)));
            if (name != null) {
                return name;
            }
        }
        return tls.hostName();
    }

    /** A host as SNI carries it: no port, no IP literal (RFC 6066 names only), null when nothing is left. */
    static String hostOnly(CharSequence value) {
        if (value == null || value.isEmpty() || value.charAt(0) == '[') {
            return null;
        }
        String v = value.toString();
        int colon = v.indexOf(':');
        if (colon >= 0) {
            if (v.indexOf(':', colon + 1) >= 0) {
                return null;
            }
            v = v.substring(0, colon);
        }
        return v.isEmpty() || Addresses.literal(v) != null ? null : v;
    }
}

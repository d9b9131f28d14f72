package dev.sluice.proxy.tls;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;

/**
 * A certificate chain (server certificate first) with its private key, as loaded from one {@code crt}
 * file by {@link PemLoader}. {@link #names()} are the host names it answers for in SNI selection.
 * Immutable; built at start-up.
 */
public record CertifiedKey(Path source, PrivateKey key, List<X509Certificate> chain) {

    public CertifiedKey {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("empty certificate chain");
        }
    }

    public X509Certificate leaf() {
        return chain.get(0);
    }

    public X509Certificate[] chainArray() {
        return chain.toArray(new X509Certificate[0]);
    }

    /**
     * The names SNI selects this certificate by, lower case: the DNS subject alternative names, then the
     * subject's common names (HAProxy indexes both). Wildcards stay as written ({@code *.example.com}).
     */
    public List<String> names() {
        Set<String> out = new LinkedHashSet<>();
        try {
            Collection<List<?>> sans = leaf().getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    // type 2 = dNSName (RFC 5280 GeneralName)
                    if (san.size() >= 2 && Integer.valueOf(2).equals(san.get(0)) && san.get(1) instanceof String s) {
                        out.add(s.toLowerCase(Locale.ROOT));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // a certificate whose SAN extension does not parse still has its CN
        }
        out.addAll(commonNames(leaf().getSubjectX500Principal()));
        return List.copyOf(out);
    }

    static List<String> commonNames(X500Principal subject) {
        List<String> cns = new ArrayList<>();
        try {
            for (Rdn rdn : new LdapName(subject.getName(X500Principal.RFC2253)).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN") && rdn.getValue() instanceof String s && !s.isEmpty()) {
                    cns.add(s.toLowerCase(Locale.ROOT));
                }
            }
        } catch (InvalidNameException e) {
            // no usable CN
        }
        return cns;
    }
}

package dev.sluice.config;

import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.ServerTls;
import dev.sluice.config.model.TlsVersion;
import dev.sluice.config.model.Verify;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The TLS-related options of one {@code bind} or {@code server} line (or of a default for them) while
 * parsing. A field left null or unset means "not given here", so that defaults ({@code default-server},
 * {@code ssl-default-*-options}) can be layered under it. Parse-time only.
 */
public final class TlsOptions {
    Boolean ssl;
    final List<String> certificates = new ArrayList<>();
    List<String> alpn;
    String ciphers;
    String ciphersuites;
    TlsVersion minVersion;
    TlsVersion maxVersion;
    final Set<TlsVersion> disabled = EnumSet.noneOf(TlsVersion.class);
    TlsVersion forced;
    String caFile;
    /** {@code ca-ignore-err}, {@code crt-ignore-err}: the X509 errors ignored. Bind lines only. */
    final java.util.Set<Integer> caIgnoreErr = new java.util.TreeSet<>();
    final java.util.Set<Integer> crtIgnoreErr = new java.util.TreeSet<>();
    Verify verify;
    Boolean tickets;
    Boolean strictSni;
    String curves;
    Boolean preferClientCiphers;
    /** {@code allow-0rtt} on a bind. */
    Boolean earlyData;
    String sni;
    String crt;
    Boolean sessionReuse;
    String proto;

    TlsOptions copy() {
        TlsOptions o = new TlsOptions();
        o.layerOver(this);
        return o;
    }

    /** Fills what this one leaves unset from {@code base}. */
    void layerOver(TlsOptions base) {
        if (ssl == null) {
            ssl = base.ssl;
        }
        if (certificates.isEmpty()) {
            certificates.addAll(base.certificates);
        }
        if (alpn == null) {
            alpn = base.alpn;
        }
        if (ciphers == null) {
            ciphers = base.ciphers;
        }
        if (ciphersuites == null) {
            ciphersuites = base.ciphersuites;
        }
        if (minVersion == null) {
            minVersion = base.minVersion;
        }
        if (maxVersion == null) {
            maxVersion = base.maxVersion;
        }
        disabled.addAll(base.disabled);
        if (forced == null) {
            forced = base.forced;
        }
        if (caFile == null) {
            caFile = base.caFile;
        }
        caIgnoreErr.addAll(base.caIgnoreErr);
        crtIgnoreErr.addAll(base.crtIgnoreErr);
        if (earlyData == null) {
            earlyData = base.earlyData;
        }
        if (verify == null) {
            verify = base.verify;
        }
        if (tickets == null) {
            tickets = base.tickets;
        }
        if (strictSni == null) {
            strictSni = base.strictSni;
        }
        if (curves == null) {
            curves = base.curves;
        }
        if (preferClientCiphers == null) {
            preferClientCiphers = base.preferClientCiphers;
        }
        if (sni == null) {
            sni = base.sni;
        }
        if (crt == null) {
            crt = base.crt;
        }
        if (sessionReuse == null) {
            sessionReuse = base.sessionReuse;
        }
        if (proto == null) {
            proto = base.proto;
        }
    }

    /** A CA file relative to {@code dir}; the {@code @system-ca} kind of names stay as they are. */
    private static String file(String dir, String f) {
        return f == null || f.startsWith("@") ? f : ConfigPaths.resolve(dir, f);
    }

    boolean sslEnabled() {
        return Boolean.TRUE.equals(ssl);
    }

    /** The effective [min, max] after force-/no- options; null bounds mean the library default. */
    private TlsVersion[] bounds() {
        if (forced != null) {
            return new TlsVersion[] {forced, forced};
        }
        TlsVersion min = minVersion;
        TlsVersion max = maxVersion;
        // no-tlsvXX at the low end raises the minimum, at the high end lowers the maximum (HAProxy's folding)
        TlsVersion[] all = TlsVersion.values();
        int lo = min == null ? TlsVersion.TLSV10.ordinal() : min.ordinal();
        int hi = max == null ? TlsVersion.TLSV13.ordinal() : max.ordinal();
        while (lo <= hi && disabled.contains(all[lo])) {
            lo++;
        }
        while (hi >= lo && disabled.contains(all[hi])) {
            hi--;
        }
        if (!disabled.isEmpty() || min != null) {
            min = lo <= hi ? all[lo] : null;
        }
        if (!disabled.isEmpty() || max != null) {
            max = lo <= hi ? all[hi] : null;
        }
        return new TlsVersion[] {min, max};
    }

    boolean noVersionLeft() {
        if (forced != null) {
            return false;
        }
        // a bound is computed (and null when nothing is left) only where an option set it: a minimum alone leaves no maximum
        TlsVersion[] b = bounds();
        return (!disabled.isEmpty() || minVersion != null) ? b[0] == null : maxVersion != null && b[1] == null;
    }

    /** With {@code crt-base} in front of relative certificates, then relative paths from {@code dir} ({@code default-path}). */
    BindTls toBind(String crtBase, String dir) {
        TlsVersion[] b = bounds();
        List<String> crts = new ArrayList<>();
        for (String c : certificates) {
            crts.add(ConfigPaths.resolve(dir, crtBase != null && !c.startsWith("/") ? crtBase + "/" + c : c));
        }
        return new BindTls(crts, alpn != null ? alpn : BindTls.DEFAULT_ALPN, ciphers, ciphersuites, b[0], b[1], file(dir, caFile),
                verify != null ? verify : Verify.NONE, tickets == null || tickets, Boolean.TRUE.equals(strictSni), curves,
                Boolean.TRUE.equals(preferClientCiphers), Boolean.TRUE.equals(earlyData), caIgnoreErr, crtIgnoreErr);
    }

    /** With {@code ca-base} and {@code crt-base} in front of relative files, then relative paths from {@code dir} ({@code default-path}). */
    ServerTls toServer(String caBase, String crtBase, Verify defaultVerify, String dir) {
        TlsVersion[] b = bounds();
        String ca = caFile != null && caBase != null && !caFile.startsWith("/") && !caFile.startsWith("@") ? caBase + "/" + caFile : caFile;
        String cert = crt != null && crtBase != null && !crt.startsWith("/") ? crtBase + "/" + crt : crt;
        ca = file(dir, ca);
        cert = ConfigPaths.resolve(dir, cert);
        return new ServerTls(verify != null ? verify : defaultVerify, ca, sni, alpn != null ? alpn : List.of(), cert, ciphers, ciphersuites,
                b[0], b[1], sessionReuse == null || sessionReuse);
    }
}

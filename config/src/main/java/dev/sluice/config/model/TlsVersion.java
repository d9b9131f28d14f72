package dev.sluice.config.model;

/** TLS protocol versions as HAProxy names them ({@code ssl-min-ver TLSv1.2}). */
public enum TlsVersion {
    SSLV3("SSLv3", "SSLv3"), TLSV10("TLSv1.0", "TLSv1"), TLSV11("TLSv1.1", "TLSv1.1"), TLSV12("TLSv1.2", "TLSv1.2"), TLSV13("TLSv1.3", "TLSv1.3");

    private final String keyword;
    private final String protocol;

    TlsVersion(String keyword, String protocol) {
        this.keyword = keyword;
        this.protocol = protocol;
    }

    /** The name in HAProxy's configuration. */
    public String keyword() {
        return keyword;
    }

    /** The JSSE/OpenSSL protocol name. */
    public String protocol() {
        return protocol;
    }

    public static TlsVersion of(String keyword) {
        for (TlsVersion v : values()) {
            if (v.keyword.equals(keyword)) {
                return v;
            }
        }
        return null;
    }
}

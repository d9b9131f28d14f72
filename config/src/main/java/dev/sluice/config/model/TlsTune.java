package dev.sluice.config.model;

import java.util.Set;

/**
 * Process-wide TLS settings of the {@code global} section besides the defaults of bind and server lines:
 * {@code tune.ssl.maxrecord} and {@code tune.ssl.hard-maxrecord} (the smaller one bounds the plaintext put in one TLS
 * record on client connections; 0: not set, 16384), {@code issuers-chain-path} (a directory of issuer certificates that
 * complete the chain of a certificate given without it; null: none) and {@code ssl-load-extra-files} (which companion
 * files are looked for beside a {@code crt} file: {@code key}, {@code issuer}, ...; HAProxy's default is all of them) with
 * {@code ssl-load-extra-del-ext} (the companions of {@code site.pem} are {@code site.key}, not {@code site.pem.key});
 * {@code captureSize} is {@code tune.ssl.capture-buffer-size}: the bytes of a client's hello kept for the
 * {@code ssl_fc_cipherlist_*}, {@code ssl_fc_*list_bin} and {@code ssl_fc_protocol_hello_id} fetches (0, the default: none).
 */
public record TlsTune(int maxRecord, String issuersChainPath, Set<String> extraFiles, boolean extraDelExt, int captureSize) {
    /** The companion-file kinds of {@code ssl-load-extra-files}. */
    public static final Set<String> ALL_EXTRA_FILES = Set.of("bundle", "sctl", "ocsp", "issuer", "key");
    public static final TlsTune DEFAULT = new TlsTune(0, null, ALL_EXTRA_FILES, false, 0);

    public TlsTune {
        extraFiles = Set.copyOf(extraFiles);
    }

    public TlsTune(int maxRecord, String issuersChainPath, Set<String> extraFiles, boolean extraDelExt) {
        this(maxRecord, issuersChainPath, extraFiles, extraDelExt, 0);
    }

    /** Whether a {@code crt} file's private key may come from a {@code <crt>.key} file beside it. */
    public boolean loadsKeyFiles() {
        return extraFiles.contains("key");
    }
}

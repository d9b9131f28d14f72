package dev.sluice.proxy.rules;

import java.util.Map;

/**
 * The fetch keywords of HAProxy 2.6 that Sluice does not implement yet, by family, each with the reason; joined to the
 * first ones in {@link Fetches#MISSING} (SampleInventoryTest checks every HAProxy 2.6 keyword against the two lists).
 */
final class FetchesMissing {
    private FetchesMissing() {
    }

    static final Map<String, String> MORE = Map.ofEntries(
            Map.entry("51d.all", "device detection through a proprietary library HAProxy links (51Degrees, DeviceAtlas, WURFL)"),
            Map.entry("da-csv-fetch", "device detection through a proprietary library HAProxy links (51Degrees, DeviceAtlas, WURFL)"),
            Map.entry("internal.htx.data", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx.free", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx.free_data", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx.has_eom", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx.nbblks", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx.size", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx.used", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx_blk.data", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx_blk.hdrname", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx_blk.hdrval", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx_blk.size", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx_blk.start_line", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.htx_blk.type", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("internal.strm.is_htx", "HAProxy-internal HTX buffer introspection (Sluice has no HTX)"),
            Map.entry("ssl_bc_unique_id", "the TLS Finished messages (SSL_get_finished), which netty-tcnative does not expose"),
            Map.entry("ssl_fc_client_early_traffic_secret", "the TLS 1.3 secrets of tune.ssl.keylog, which netty-tcnative does not expose"),
            Map.entry("ssl_fc_client_handshake_traffic_secret", "the TLS 1.3 secrets of tune.ssl.keylog, which netty-tcnative does not expose"),
            Map.entry("ssl_fc_client_traffic_secret_0", "the TLS 1.3 secrets of tune.ssl.keylog, which netty-tcnative does not expose"),
            Map.entry("ssl_fc_early_exporter_secret", "the TLS 1.3 secrets of tune.ssl.keylog, which netty-tcnative does not expose"),
            Map.entry("ssl_fc_exporter_secret", "the TLS 1.3 secrets of tune.ssl.keylog, which netty-tcnative does not expose"),
            Map.entry("ssl_fc_server_handshake_traffic_secret", "the TLS 1.3 secrets of tune.ssl.keylog, which netty-tcnative does not expose"),
            Map.entry("ssl_fc_server_traffic_secret_0", "the TLS 1.3 secrets of tune.ssl.keylog, which netty-tcnative does not expose"),
            Map.entry("ssl_fc_unique_id", "the TLS Finished messages (SSL_get_finished), which netty-tcnative does not expose"),
            Map.entry("wurfl-get", "device detection through a proprietary library HAProxy links (51Degrees, DeviceAtlas, WURFL)"),
            Map.entry("wurfl-get-all", "device detection through a proprietary library HAProxy links (51Degrees, DeviceAtlas, WURFL)"));
}

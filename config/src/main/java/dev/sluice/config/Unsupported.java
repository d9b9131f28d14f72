package dev.sluice.config;

import java.util.Map;

/**
 * HAProxy keywords and sections that Sluice knows but does not implement, with the feature each belongs
 * to, so a configuration using them fails with an error that names the feature instead of an
 * "unknown keyword". A keyword leaves this list when its feature lands.
 */
final class Unsupported {
    private Unsupported() {
    }

    private static final String LUA = "Lua scripting";
    private static final String SPOE = "SPOE/SPOA filters";
    private static final String LOGS = "this logging feature";
    private static final String STATS = "this stats page option";

    /** Section keywords HAProxy has and Sluice does not. */
    static final Map<String, String> SECTIONS = Map.ofEntries(
            Map.entry("crt-store", "certificate stores"),
            Map.entry("traces", "traces"),
            Map.entry("acme", "ACME certificate automation"));

    /** Keywords (first word, or "first second" for families) with the feature they belong to. */
    static final Map<String, String> KEYWORDS = Map.ofEntries(
            Map.entry("lua-load", LUA), Map.entry("lua-load-per-thread", LUA), Map.entry("lua-prepend-path", LUA),
            Map.entry("filter", "filters other than compression, cache and fcgi-app (SPOE, trace, bandwidth limits)"),
            Map.entry("filter spoe", SPOE), Map.entry("filter trace", "the trace filter"),
            Map.entry("filter bwlim-in", "bandwidth limitation filters"), Map.entry("filter bwlim-out", "bandwidth limitation filters"),
            Map.entry("log-send-hostname", LOGS),
            Map.entry("option spop-check", SPOE),
            Map.entry("stats disable", STATS),
            Map.entry("stats maxconn", "a connection limit on stats sockets"),
            Map.entry("stats bind-process", "multi-process mode (removed from HAProxy 2.5)"),
            
            
           
            
            
            Map.entry("httpclient.ssl.verify", "the internal HTTP client"),
            Map.entry("hash-balance-factor", "bounded-load consistent hashing"),
            
           
            Map.entry("option http-use-htx", "legacy HTX switch"),
            Map.entry("option accept-invalid-http-response", "relaxed HTTP parsing (comes with the HTTP engine)"),
            Map.entry("option independent-streams", "independent-streams"),
            Map.entry("nbproc", "multi-process mode (removed from HAProxy 2.5)"),
            Map.entry("tune.quic.max-frame-loss", "QUIC frame-loss limits"),
            Map.entry("thread-groups", "thread groups"));
}

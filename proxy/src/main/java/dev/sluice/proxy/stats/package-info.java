/**
 * Counters as one source of truth: each frontend, backend and server declares its traffic counters once
 * ({@link Counter}), counts on the request path into striped adders and exposes
 * immutable snapshots that the admin socket (and later Prometheus and the stats page) read.
 */
package dev.sluice.proxy.stats;

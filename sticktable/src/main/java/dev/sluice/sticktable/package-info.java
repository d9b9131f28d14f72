/**
 * Stick tables: a sharded key index, compact per-entry data, two-bucket rate counters, entry reference
 * counts changed outside the locks, and the update log (its own lock on its own cache line) that feeds
 * peer replication. The core has no Netty.
 *
 * <p>Entry points: {@link StickTableSpec#parse} and
 * {@link StoreSpec#parse} for the config module; {@link StickTable}
 * (lookup, track/untrack, touch, purge) and {@link StickEntry} (counters, rates,
 * gpc/gpt, server id/key) for the request path; {@link TableCommandArgs} and
 * {@link TableDump} for the admin socket; {@link UpdateLog} for
 * peers.
 */
package dev.sluice.sticktable;

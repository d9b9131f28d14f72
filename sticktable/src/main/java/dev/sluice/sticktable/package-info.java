/**
 * Stick tables: a sharded key index, compact per-entry data, two-bucket rate counters, entry reference
 * counts changed outside the locks, and the update log (its own lock on its own cache line) that feeds
 * peer replication. The core has no Netty.
 *
 * <p>Entry points: {@link dev.sluice.sticktable.StickTableSpec#parse} and
 * {@link dev.sluice.sticktable.StoreSpec#parse} for the config module; {@link dev.sluice.sticktable.StickTable}
 * (lookup, track/untrack, touch, purge) and {@link dev.sluice.sticktable.StickEntry} (counters, rates,
 * gpc/gpt, server id/key) for the request path; {@link dev.sluice.sticktable.TableCommandArgs} and
 * {@link dev.sluice.sticktable.TableDump} for the admin socket; {@link dev.sluice.sticktable.UpdateLog} for
 * peers.
 */
package dev.sluice.sticktable;

/**
 * Stick tables: a sharded key index, compact per-entry data, two-bucket rate counters, entry reference
 * counts changed outside the locks, and the update log (its own lock on its own cache line) that feeds
 * peer replication. The core has no Netty. Filled by the stick-table issue.
 */
package dev.sluice.sticktable;

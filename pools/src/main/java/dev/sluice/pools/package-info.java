/**
 * Named object pools (HAProxy's pools): thread caches, a shared lock-free cache, counters spread over
 * cache-line buckets, a memory ceiling, and the {@code show pools} / {@code show info} figures. No Netty.
 */
package dev.sluice.pools;

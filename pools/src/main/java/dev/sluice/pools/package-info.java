/**
 * Named object pools whose hot counters are spread over cache-line buckets (HAProxy's pool buckets),
 * a registry that {@code show pools} reads, and a memory ceiling. No Netty. Filled by the pools issue.
 */
package dev.sluice.pools;

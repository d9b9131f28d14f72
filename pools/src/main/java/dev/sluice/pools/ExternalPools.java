package dev.sluice.pools;

import java.util.List;

/**
 * Memory managed outside this module that {@code show pools} should list beside the pools, so an operator
 * sees all memory in one place: the proxy implements it over Netty's allocator metrics (direct and heap
 * arenas), which this module cannot see since it does not depend on Netty. Its lines are sorted, matched
 * and totalled like the pools' own, and count in {@link PoolRegistry#totals()}, but not against the
 * registry's memory ceiling (Netty has its own direct-memory limit). Called on the thread that renders
 * {@code show pools} or {@code show info}; must be cheap and must not block.
 */
@FunctionalInterface
public interface ExternalPools {
    List<PoolStats> pools();
}

package dev.sluice.proxy.memory;

import dev.sluice.pools.ExternalPools;
import dev.sluice.pools.PoolStats;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import java.util.List;

/**
 * Netty's buffer allocator in {@code show pools}, beside the proxy's own pools, so that all memory shows in
 * one place: one line for its direct arenas ({@code nettydirect}) and one for its heap arenas
 * ({@code nettyheap}). In HAProxy's terms: the object size is the arena chunk size, {@code allocated}
 * counts chunks (the bytes are what the arenas hold, huge buffers included), {@code used} counts live
 * buffers and their bytes (buffers sitting in Netty's per-thread caches are live for the arenas, as
 * HAProxy counts its thread caches as used; Netty does not say how many, so {@code ~0 by thread caches}),
 * {@code users} the arenas, {@code needed_avg} 0 (Netty keeps no such average). Netty's own limit ({@code -Dio.netty.maxDirectMemory}) bounds these, not
 * {@code -m}. Reads the allocator's metrics, which walk its arenas: cheap, never blocks the caller.
 */
final class NettyPools implements ExternalPools {
    private final PooledByteBufAllocator allocator;

    NettyPools(PooledByteBufAllocator allocator) {
        this.allocator = allocator;
    }

    @Override
    public List<PoolStats> pools() {
        PooledByteBufAllocatorMetric m = allocator.metric();
        String id = "0x" + Integer.toHexString(System.identityHashCode(allocator));
        return List.of(line("nettydirect", m.chunkSize(), m.usedDirectMemory(), m.directArenas(), id),
                line("nettyheap", m.chunkSize(), m.usedHeapMemory(), m.heapArenas(), id));
    }

    private static PoolStats line(String name, int chunk, long bytes, List<PoolArenaMetric> arenas, String id) {
        long live = 0;
        long liveBytes = 0;
        for (PoolArenaMetric a : arenas) {
            live += Math.max(0, a.numActiveAllocations());
            liveBytes += Math.max(0, a.numActiveBytes());
        }
        long chunks = chunk <= 0 ? 0 : (Math.max(0, bytes) + chunk - 1) / chunk;
        return new PoolStats(name, chunk, chunks, live, 0, 0, 0, arenas.size(), id, false, Math.max(0, bytes), liveBytes, 0);
    }
}

package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * A {@code cache} section (HAProxy 2.6's HTTP cache): its memory in 1 kB blocks ({@code total-max-size}, in
 * megabytes, times 1024), the largest object it keeps ({@code max-object-size}, in bytes; a 256th of the memory when
 * not set), the longest it keeps one ({@code max-age}, seconds), whether responses with a {@code Vary} field are kept
 * ({@code process-vary}), and how many variants of one primary key ({@code max-secondary-entries}).
 */
public record Cache(SourceRef where, String name, long maxBlocks, long maxObjectSize, int maxAge, boolean processVary,
        int maxSecondaryEntries) {
    /** HAProxy's block: the cache's memory is counted in these. */
    public static final int BLOCK_SIZE = 1024;

    /** The memory of the cache in bytes. */
    public long totalBytes() {
        return maxBlocks * BLOCK_SIZE;
    }
}

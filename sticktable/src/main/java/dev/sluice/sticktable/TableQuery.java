package dev.sluice.sticktable;

import java.util.List;

/**
 * Which entries a {@code show table} / {@code clear table} / {@code set table} command addresses. Built by
 * {@link TableCommandArgs} from the command words, or directly. Immutable.
 */
public sealed interface TableQuery {

    /** True when {@code e} is addressed. */
    boolean matches(StickEntry e);

    /** Every entry (no argument after the table name). */
    record All() implements TableQuery {
        @Override
        public boolean matches(StickEntry e) {
            return true;
        }
    }

    /** Entries passing every filter (1 to 4 {@code data.<type> <op> <value>}). */
    record Filtered(List<EntryFilter> filters) implements TableQuery {
        public Filtered {
            filters = List.copyOf(filters);
        }

        @Override
        public boolean matches(StickEntry e) {
            for (EntryFilter f : filters) {
                if (!f.matches(e)) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * The entry with this key ({@code key <k>}). HAProxy's {@code show table <t> key <k>} prints the
     * header and the entry when it exists, and nothing at all otherwise.
     */
    record ByKey(StickKey key) implements TableQuery {
        @Override
        public boolean matches(StickEntry e) {
            return e.key().equals(key);
        }
    }

    /** The entry with this synthetic pointer ({@code ptr 0x<hex>}). */
    record ByPtr(long ptr) implements TableQuery {
        @Override
        public boolean matches(StickEntry e) {
            return e.ptr() == ptr;
        }
    }
}

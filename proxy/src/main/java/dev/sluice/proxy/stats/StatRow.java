package dev.sluice.proxy.stats;

/**
 * One row of {@code show stat}: a value per {@link StatColumn}, filled by column; a column left unset prints empty,
 * as HAProxy prints what does not apply. Values holding a comma, a quote or a line feed are quoted in CSV. Built and
 * read by one thread.
 */
public final class StatRow {
    private static final StatColumn[] COLUMNS = StatColumn.values();

    /** Object types as HAProxy numbers them in the {@code type} column and the {@code show stat} filter. */
    public enum Type {
        FRONTEND(0, 1, 'F', "Frontend"), BACKEND(1, 2, 'B', "Backend"), SERVER(2, 4, 'S', "Server"),
        /** A listener of a frontend with {@code option socket-stats} (HAProxy's STATS_TYPE_SO). */
        LISTENER(3, 8, 'L', "Listener");

        private final int code;
        private final int mask;
        private final char letter;
        private final String objType;

        Type(int code, int mask, char letter, String objType) {
            this.code = code;
            this.mask = mask;
            this.letter = letter;
            this.objType = objType;
        }

        public int code() {
            return code;
        }

        /** The bit of this type in {@code show stat <proxy> <type> <sid>} (1 frontends, 2 backends, 4 servers, 8 listeners). */
        public int mask() {
            return mask;
        }

        /** The letter that starts its {@code typed} lines and selects its tags in a per-type tag list. */
        public char letter() {
            return letter;
        }

        /** Its {@code objType} in {@code show stat json}. */
        public String objType() {
            return objType;
        }
    }

    private final String[] values = new String[COLUMNS.length];

    /** Sets a column (null: empty). */
    public StatRow set(StatColumn column, Object value) {
        values[column.ordinal()] = value == null ? null : value.toString();
        return this;
    }

    /** The value of a column; null when unset. */
    public String get(StatColumn column) {
        return values[column.ordinal()];
    }

    /** The header line: "# " and every column followed by a comma, with the "-" column before the module columns. */
    public static String header() {
        StringBuilder b = new StringBuilder("# ");
        for (StatColumn c : COLUMNS) {
            if (c == StatColumn.SSL_SESS) {
                b.append("-,");
            }
            b.append(c.field()).append(',');
        }
        return b.append('\n').toString();
    }

    /** The CSV line: every value followed by a comma. */
    public String csv() {
        StringBuilder b = new StringBuilder();
        for (StatColumn c : COLUMNS) {
            if (c == StatColumn.SSL_SESS) {
                b.append("-,");
            }
            String v = values[c.ordinal()];
            if (v != null) {
                if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0) {
                    b.append('"').append(v.replace("\"", "\"\"")).append('"');
                } else {
                    b.append(v);
                }
            }
            b.append(',');
        }
        return b.append('\n').toString();
    }
}

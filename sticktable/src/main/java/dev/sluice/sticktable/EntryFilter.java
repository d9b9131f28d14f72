package dev.sluice.sticktable;

/**
 * A {@code data.<type>[<index>] <op> <value>} filter of {@code show table} / {@code clear table}: keeps the
 * entries whose value (for a rate, its current rate) compares to {@code value} as {@code op} says, as
 * signed 64-bit numbers like HAProxy. {@code server_key}, which is not a number, reads as 0, as in HAProxy
 * 2.6. Immutable.
 */
public record EntryFilter(DataType type, int index, Op op, long value) {

    /** HAProxy's {@code eq ne le ge lt gt}. */
    public enum Op {
        EQ, NE, LE, GE, LT, GT;

        /** The operator for a CLI word, or null. */
        public static Op of(String word) {
            return switch (word) {
                case "eq" -> EQ;
                case "ne" -> NE;
                case "le" -> LE;
                case "ge" -> GE;
                case "lt" -> LT;
                case "gt" -> GT;
                default -> null;
            };
        }

        public boolean test(long data, long value) {
            return switch (this) {
                case EQ -> data == value;
                case NE -> data != value;
                case LE -> data <= value;
                case GE -> data >= value;
                case LT -> data < value;
                case GT -> data > value;
            };
        }
    }

    public boolean matches(StickEntry e) {
        return op.test(type == DataType.SERVER_KEY ? 0 : e.get(type, index), value);
    }
}

package dev.sluice.pools;

import java.util.List;

/**
 * The arguments of {@code show pools [byname|bysize|byusage] [match <prefix>] [<n>]}, parsed as HAProxy's
 * {@code cli_parse_show_pools} does: words in any order, the last sort word wins, a word starting with a
 * digit is the line limit (its leading digits, as {@code atoi}). Immutable.
 *
 * @param order how lines are sorted
 * @param prefix only pools whose (truncated) name starts with it; null for all
 * @param max most pool lines printed, 0 for HAProxy's cap of 1024
 */
public record ShowPoolsArgs(Order order, String prefix, int max) {

    /** HAProxy's usage answer to a word it does not know. */
    public static final String USAGE =
            "Expects either 'byname', 'bysize', 'byusage', 'match <pfx>', or a max number of output lines.\n";

    public static final ShowPoolsArgs ALL = new ShowPoolsArgs(Order.LIST, null, 0);

    public enum Order {
        /** The registry's order: increasing size, then creation. */
        LIST,
        /** By name (byte order, as strcmp). */
        BY_NAME,
        /** By object size, largest first. */
        BY_SIZE,
        /** By bytes allocated, largest first; pools with nothing allocated are left out. */
        BY_USAGE
    }

    public ShowPoolsArgs {
        if (order == null || max < 0) {
            throw new IllegalArgumentException("order required, max >= 0");
        }
    }

    /**
     * Parses the words after {@code show pools}.
     *
     * @throws PoolCommandException with {@link #USAGE} for an unknown word
     */
    public static ShowPoolsArgs parse(List<String> words) {
        Order order = Order.LIST;
        String prefix = null;
        int max = 0;
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("byname")) {
                order = Order.BY_NAME;
            } else if (w.equals("bysize")) {
                order = Order.BY_SIZE;
            } else if (w.equals("byusage")) {
                order = Order.BY_USAGE;
            } else if (w.equals("match") && i + 1 < words.size() && !words.get(i + 1).isEmpty()) {
                prefix = words.get(++i);
            } else if (!w.isEmpty() && w.charAt(0) >= '0' && w.charAt(0) <= '9') {
                max = leadingNumber(w);
            } else {
                throw new PoolCommandException(USAGE);
            }
        }
        return new ShowPoolsArgs(order, prefix, max);
    }

    private static int leadingNumber(String w) {
        long n = 0;
        for (int i = 0; i < w.length() && w.charAt(i) >= '0' && w.charAt(i) <= '9'; i++) {
            n = Math.min(n * 10 + (w.charAt(i) - '0'), Integer.MAX_VALUE);
        }
        return (int) n;
    }
}

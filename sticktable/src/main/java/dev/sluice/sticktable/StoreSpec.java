package dev.sluice.sticktable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The data types a stick table stores, parsed from HAProxy's {@code store} syntax
 * ({@code http_req_rate(10s),conn_cur,gpc0,gpc(3),gpc_rate(2,10s)}). Items keep their config order; the
 * table lays them out and prints them in data-type id order whatever that order is. Immutable.
 */
public record StoreSpec(List<StoreItem> items) {

    public static final StoreSpec EMPTY = new StoreSpec(List.of());

    public StoreSpec {
        items = List.copyOf(items);
        EnumMap<DataType, StoreItem> seen = new EnumMap<>(DataType.class);
        for (StoreItem it : items) {
            if (seen.put(it.type(), it) != null) {
                throw new IllegalArgumentException("data type '" + it.type().haproxyName() + "' listed twice");
            }
        }
    }

    /**
     * Parses one {@code store} argument. A type listed twice is ignored with a warning (as HAProxy does);
     * every other problem throws, naming the item at fault.
     *
     * @param warnings receives warning messages; may be null to drop them
     */
    public static StoreSpec parse(String list, Consumer<String> warnings) {
        return EMPTY.plus(list, warnings);
    }

    /** This spec plus the items of another {@code store} argument (a table may have several). */
    public StoreSpec plus(String list, Consumer<String> warnings) {
        if (list.isEmpty()) {
            return this; // HAProxy accepts an empty list (store "") and stores nothing more
        }
        Map<DataType, StoreItem> out = new EnumMap<>(DataType.class);
        List<StoreItem> ordered = new ArrayList<>(items);
        for (StoreItem it : items) {
            out.put(it.type(), it);
        }
        for (String raw : splitTopLevel(list)) {
            StoreItem it = parseItem(raw);
            if (out.containsKey(it.type())) {
                if (warnings != null) {
                    warnings.accept("store option '" + it.type().haproxyName() + "' already enabled, ignored");
                }
                continue;
            }
            out.put(it.type(), it);
            ordered.add(it);
        }
        checkExclusive(out);
        return new StoreSpec(ordered);
    }

    /** True when the table stores {@code type}. */
    public boolean has(DataType type) {
        for (StoreItem it : items) {
            if (it.type() == type) {
                return true;
            }
        }
        return false;
    }

    /** The item for {@code type}, or null. */
    public StoreItem item(DataType type) {
        for (StoreItem it : items) {
            if (it.type() == type) {
                return it;
            }
        }
        return null;
    }

    /** Items in data-type id order. */
    public List<StoreItem> byId() {
        List<StoreItem> l = new ArrayList<>(items);
        l.sort((a, b) -> Integer.compare(a.type().id(), b.type().id()));
        return Collections.unmodifiableList(l);
    }

    /** The spec as a {@code store} argument (periods in milliseconds), or "" when empty. */
    public String toConfigString() {
        StringBuilder sb = new StringBuilder();
        for (StoreItem it : items) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(it.toConfigString());
        }
        return sb.toString();
    }

    private static List<String> splitTopLevel(String list) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < list.length(); i++) {
            char c = list.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth = Math.max(0, depth - 1);
            } else if (c == ',' && depth == 0) {
                parts.add(list.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(list.substring(start));
        return parts;
    }

    private static StoreItem parseItem(String raw) {
        if (raw.isEmpty()) {
            throw new StickTableConfigException("empty data type in store list (two commas in a row, or a trailing comma?)");
        }
        int open = raw.indexOf('(');
        String name = open < 0 ? raw : raw.substring(0, open);
        List<String> args = new ArrayList<>();
        if (open >= 0) {
            if (!raw.endsWith(")")) {
                throw new StickTableConfigException("missing closing parenthesis after store option '" + name + "'");
            }
            String inner = raw.substring(open + 1, raw.length() - 1);
            if (inner.indexOf('(') >= 0 || inner.indexOf(')') >= 0) {
                throw new StickTableConfigException("unexpected parenthesis in the argument of store option '" + name + "'");
            }
            for (String a : inner.split(",", -1)) {
                args.add(a.trim());
            }
        }
        DataType type = DataType.byName(name);
        if (type == null) {
            String hint = closest(name);
            throw new StickTableConfigException("unknown store option '" + name + "'"
                    + (hint == null ? "" : "; did you mean '" + hint + "' maybe ?"));
        }
        int count = 1;
        int next = 0;
        if (type.isArray()) {
            if (args.isEmpty() || args.getFirst().isEmpty()) {
                throw new StickTableConfigException("missing argument to store option '" + name + "' (expected an element count, e.g. "
                        + example(type) + ")");
            }
            count = parseCount(args.getFirst(), name);
            next = 1;
        }
        long period = 0;
        if (type.isRate()) {
            if (args.size() <= next || args.get(next).isEmpty()) {
                throw new StickTableConfigException("missing argument to store option '" + name + "' (expected a period, e.g. "
                        + example(type) + ")");
            }
            period = HaproxyUnits.parseTimeMillis(args.get(next), name);
            if (period == 0) {
                throw new StickTableConfigException("the period of store option '" + name + "' must be greater than zero");
            }
            next++;
        }
        if (args.size() > next) {
            throw new StickTableConfigException(next == 0
                    ? "unexpected argument to store option '" + name + "' (it takes none)"
                    : "too many arguments to store option '" + name + "' (expected " + example(type) + ")");
        }
        return new StoreItem(type, count, period);
    }

    private static int parseCount(String s, String name) {
        int v;
        try {
            v = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            v = -1;
        }
        if (v < 1 || v > DataType.MAX_ARRAY_SIZE) {
            throw new StickTableConfigException("array size is out of allowed range (1-" + DataType.MAX_ARRAY_SIZE
                    + ") for store option '" + name + "'");
        }
        return v;
    }

    private static String example(DataType t) {
        String n = t.haproxyName();
        if (t.isArray()) {
            return t.isRate() ? n + "(3,10s)" : n + "(3)";
        }
        return n + "(10s)";
    }

    /**
     * HAProxy refuses the array types beside the legacy scalars they replace (its sample fetches read
     * {@code gpc0} from {@code gpc[0]} when the table has no {@code gpc0}, so both would be ambiguous).
     */
    private static void checkExclusive(Map<DataType, StoreItem> m) {
        if (m.containsKey(DataType.GPT) && m.containsKey(DataType.GPT0)) {
            throw new StickTableConfigException("simultaneous usage of 'gpt' and 'gpt0' in a same table is not permitted as 'gpt' overrides 'gpt0'");
        }
        if (m.containsKey(DataType.GPC) && (m.containsKey(DataType.GPC0) || m.containsKey(DataType.GPC1))) {
            throw new StickTableConfigException("simultaneous usage of 'gpc' and 'gpc[0/1]' in a same table is not permitted as 'gpc' overrides 'gpc[0/1]'");
        }
        if (m.containsKey(DataType.GPC_RATE) && (m.containsKey(DataType.GPC0_RATE) || m.containsKey(DataType.GPC1_RATE))) {
            throw new StickTableConfigException("simultaneous usage of 'gpc_rate' and 'gpc[0/1]_rate' in a same table is not permitted as 'gpc_rate' overrides 'gpc[0/1]_rate'");
        }
    }

    private static String closest(String word) {
        String best = null;
        int bestDist = Integer.MAX_VALUE;
        for (String c : DataType.names()) {
            int d = distance(word, c);
            if (d < bestDist || (d == bestDist && c.compareTo(best) < 0)) {
                bestDist = d;
                best = c;
            }
        }
        int limit = Math.max(1, Math.min(3, word.length() / 3));
        return best != null && bestDist <= limit ? best : null;
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}

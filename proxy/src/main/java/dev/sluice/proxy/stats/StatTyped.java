package dev.sluice.proxy.stats;

/**
 * {@code show stat typed}: one line per filled column, {@code <F|B|S>.<iid>.<sid>.<pos>.<name>.1:<tags>:<type>:<value>},
 * and {@code show stat json}, with the tags, types and descriptions of {@link StatColumn}; empty columns and columns
 * without tags are left out, as HAProxy leaves them out.
 */
public final class StatTyped {
    private StatTyped() {
    }

    /** The typed lines of one row. */
    public static String render(StatRow row, StatRow.Type type, int iid, int sid, boolean desc) {
        char t = type.letter();
        StringBuilder out = new StringBuilder();
        for (StatColumn c : StatColumn.values()) {
            String v = row.get(c);
            String tags = c.tagsAndType(type);
            if (v != null && !v.isEmpty() && tags != null) {
                out.append(t).append('.').append(iid).append('.').append(sid).append('.').append(c.ordinal()).append('.').append(c.field())
                        .append(".1:").append(tags).append(':').append(v);
                if (desc) {
                    out.append(":\"").append(c.description()).append('"');
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    /**
     * {@code show stat json}: one row as HAProxy 2.6 writes it, an array of
     * {@code {"objType":..,"proxyId":..,"id":..,"field":{"pos":..,"name":..},"processNum":1,"tags":{..},"value":{..}}}
     * for the filled columns.
     */
    public static String json(StatRow row, StatRow.Type type, int iid, int sid) {
        StringBuilder out = new StringBuilder("[");
        boolean first = true;
        for (StatColumn c : StatColumn.values()) {
            String v = row.get(c);
            String tags = c.tagsAndType(type);
            if (v != null && !v.isEmpty() && tags != null) {
                String valueType = tags.substring(4);
                if (!first) {
                    out.append(',');
                }
                first = false;
                out.append("{\"objType\":\"").append(type.objType()).append("\",\"proxyId\":").append(iid).append(",\"id\":").append(sid)
                        .append(",\"field\":{\"pos\":").append(c.ordinal()).append(",\"name\":\"").append(c.field()).append("\"},\"processNum\":1,")
                        .append("\"tags\":{\"origin\":\"").append(InfoFields.origin(tags.charAt(0))).append("\",\"nature\":\"")
                        .append(InfoFields.nature(tags.charAt(1))).append("\",\"scope\":\"").append(InfoFields.scope(tags.charAt(2)))
                        .append("\"},\"value\":{\"type\":\"").append(valueType).append("\",\"value\":");
                if (valueType.equals("str")) {
                    out.append('"').append(InfoFields.json(v)).append('"');
                } else {
                    out.append(v);
                }
                out.append("}}");
            }
        }
        return out.append(']').toString();
    }
}

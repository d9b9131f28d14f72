package dev.sluice.proxy.stats;

import java.util.Map;

/**
 * {@code show info}: the fields of {@link InfoField} with their values, printed as {@code Name: value} lines, as
 * {@code typed} lines (with the descriptions for {@code desc}) or as {@code json}; also the tag names and JSON escaping
 * that {@code show stat json} shares. Stateless.
 */
public final class InfoFields {
    private InfoFields() {
    }

    /** The output formats of {@code show info}. */
    public enum Format {
        PLAIN, TYPED, JSON
    }

    /**
     * Renders every field with its value from {@code values}; a field without a value is left out, as HAProxy leaves
     * out an unset one ({@code description} without {@code global.description}). {@code desc} adds the descriptions
     * to the typed form.
     */
    public static String render(Map<InfoField, Object> values, Format format, boolean desc) {
        StringBuilder out = new StringBuilder();
        if (format == Format.JSON) {
            out.append('[');
        }
        boolean first = true;
        for (InfoField f : InfoField.values()) {
            Object v = values.get(f);
            if (v == null) {
                continue;
            }
            String text = v.toString();
            switch (format) {
                case PLAIN -> out.append(f.field()).append(": ").append(text).append('\n');
                case TYPED -> {
                    out.append(f.pos()).append('.').append(f.field()).append(".1:").append(f.tags()).append(':').append(f.type()).append(':')
                            .append(text);
                    if (desc) {
                        out.append(":\"").append(f.description()).append('"');
                    }
                    out.append('\n');
                }
                case JSON -> {
                    if (!first) {
                        out.append(',');
                    }
                    out.append("{\"field\":{\"pos\":").append(f.pos()).append(",\"name\":\"").append(json(f.field()))
                            .append("\"},\"processNum\":1,\"tags\":{\"origin\":\"").append(origin(f.tags().charAt(0)))
                            .append("\",\"nature\":\"").append(nature(f.tags().charAt(1))).append("\",\"scope\":\"")
                            .append(scope(f.tags().charAt(2))).append("\"},\"value\":{\"type\":\"").append(f.type()).append("\",\"value\":");
                    if (f.type().equals("str")) {
                        out.append('"').append(json(text)).append('"');
                    } else {
                        out.append(text.isEmpty() ? "0" : text);
                    }
                    out.append("}}");
                }
                default -> throw new IllegalStateException();
            }
            first = false;
        }
        if (format == Format.JSON) {
            out.append("]\n");
        }
        return out.toString();
    }

    static String origin(char c) {
        return switch (c) {
            case 'M' -> "Metric";
            case 'S' -> "Status";
            case 'K' -> "Key";
            case 'C' -> "Config";
            case 'P' -> "Product";
            default -> "Unknown";
        };
    }

    static String nature(char c) {
        return switch (c) {
            case 'A' -> "Age";
            case 'a' -> "Avg";
            case 'C' -> "Counter";
            case 'D' -> "Duration";
            case 'G' -> "Gauge";
            case 'L' -> "Limit";
            case 'M' -> "Max";
            case 'm' -> "Min";
            case 'N' -> "Name";
            case 'O' -> "Output";
            case 'R' -> "Rate";
            case 'T' -> "Time";
            default -> "Unknown";
        };
    }

    static String scope(char c) {
        return switch (c) {
            case 'P' -> "Process";
            case 'S' -> "Service";
            case 's' -> "System";
            case 'C' -> "Cluster";
            default -> "Unknown";
        };
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}

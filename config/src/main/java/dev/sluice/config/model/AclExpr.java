package dev.sluice.config.model;

import java.util.List;

/**
 * An ACL expression as written: the sample fetch (with its converters), the matching flags
 * ({@code -i}, {@code -m <method>}, {@code -f <file>}, ...) and the values to match. The rules
 * engine compiles it.
 */
public record AclExpr(String sample, List<String> flags, List<String> values) {
    public AclExpr {
        flags = List.copyOf(flags);
        values = List.copyOf(values);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(sample);
        for (String f : flags) {
            sb.append(' ').append(f);
        }
        for (String v : values) {
            sb.append(' ').append(v);
        }
        return sb.toString();
    }
}

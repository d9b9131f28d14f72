package dev.sluice.config.model;

import java.util.List;

/**
 * A compiled {@code log-format} string: literal text, separators (unescaped spaces, which HAProxy
 * collapses when a variable around them is empty) and {@code %} variables with their {@code {+Q}}-style
 * flags.
 */
public record LogFormat(String text, List<Node> nodes) {

    public LogFormat {
        nodes = List.copyOf(nodes);
    }

    /** One piece of a log format. */
    public sealed interface Node {
    }

    public record Literal(String text) implements Node {
    }

    public record Separator() implements Node {
    }

    /** A sample expression {@code %[fetch,converter]}, optionally quoted. */
    public record Sample(String expr, boolean quote) implements Node {
    }

    /** A variable such as {@code %ci} or {@code %{+Q}r}: its name and whether to quote, escape or hex-encode. */
    public record Variable(String name, boolean quote, boolean escape, boolean hex) implements Node {
    }
}

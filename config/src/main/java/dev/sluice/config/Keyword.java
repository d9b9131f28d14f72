package dev.sluice.config;

import java.util.Set;

/**
 * A configuration keyword, registered once: its name (one word, or two for families such as
 * {@code timeout client} and {@code http-request return}), the sections where it is allowed, its syntax
 * and one-line description (for "did you mean", help and the generated reference) and its argument parser.
 */
public record Keyword(String name, Set<Section> sections, String syntax, String description, Parser parser) {

    /** Parses the arguments of one line using this keyword into the builder in the context. */
    @FunctionalInterface
    public interface Parser {
        void parse(KeywordContext ctx);
    }
}

package dev.sluice.config.model;

import java.util.List;

/**
 * {@code monitor-uri} and {@code monitor fail}: requests whose target is exactly {@code uri} are answered
 * by the frontend itself, 200, or 503 when one of the {@code fail} conditions holds. {@code uri} is null
 * when the frontend has no monitor URI.
 */
public record Monitor(String uri, List<Condition> fail) {
    public static final Monitor NONE = new Monitor(null, List.of());

    public Monitor {
        fail = List.copyOf(fail);
    }
}

package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * How a proxy logs: its targets ({@code log} lines, {@code log global} already expanded), the line
 * format ({@code option httplog}, {@code log-format}, or HAProxy's default TCP-style format when null),
 * {@code option dontlognull}, {@code option log-separate-errors}, {@code option dontlog-normal} and the
 * syslog tag; where the {@code log-format} line is ({@code formatWhere}, null for the built-in formats: its
 * sample expressions are compiled by the daemon), the {@code capture} slots, {@code option logasap}, and
 * the {@code unique-id-format} (null: none) with the {@code unique-id-header} it is sent in (null: none).
 */
public record Logging(List<LogTarget> targets, LogFormat format, boolean dontLogNull, boolean separateErrors, boolean dontLogNormal,
        String tag, SourceRef formatWhere, Captures captures, boolean logAsap, LogFormat uniqueIdFormat, SourceRef uniqueIdWhere,
        String uniqueIdHeader) {

    public static final Logging NONE = new Logging(List.of(), null, false, false, false, "haproxy");

    public Logging {
        targets = List.copyOf(targets);
    }

    /** Without captures, logasap or unique ids. */
    public Logging(List<LogTarget> targets, LogFormat format, boolean dontLogNull, boolean separateErrors, boolean dontLogNormal, String tag) {
        this(targets, format, dontLogNull, separateErrors, dontLogNormal, tag, null, Captures.NONE, false, null, null, null);
    }
}

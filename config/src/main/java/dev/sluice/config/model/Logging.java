package dev.sluice.config.model;

import java.util.List;

/**
 * How a proxy logs: its targets ({@code log} lines, {@code log global} already expanded), the line
 * format ({@code option httplog}, {@code log-format}, or HAProxy's default TCP-style format when null),
 * {@code option dontlognull}, {@code option log-separate-errors}, {@code option dontlog-normal} and the
 * syslog tag.
 */
public record Logging(List<LogTarget> targets, LogFormat format, boolean dontLogNull, boolean separateErrors, boolean dontLogNormal,
        String tag) {

    public static final Logging NONE = new Logging(List.of(), null, false, false, false, "haproxy");

    public Logging {
        targets = List.copyOf(targets);
    }
}

package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * One {@code log} line: where messages go ({@code stdout}, {@code stderr}, a UDP syslog address, or a
 * UNIX datagram socket such as {@code /dev/log}, or a {@code ring} section), the maximum line length, the syslog format, the
 * facility and the level range that passes.
 */
public record LogTarget(SourceRef where, Kind kind, String address, int port, int maxLength, Format format, int facility, int level,
        int minLevel) {

    /** Where a log line is sent. */
    public enum Kind {
        STDOUT, STDERR, UDP, UNIX,
        /** {@code ring@<name>}: the address is the ring's name. */
        RING
    }

    /** HAProxy's log formats: the syslog header written before the message. */
    public enum Format {
        RFC3164, RFC5424, RAW, SHORT, PRIORITY, TIMED, ISO, LOCAL
    }

    public static final String[] FACILITIES = {"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
        "auth2", "ftp", "ntp", "audit", "alert", "cron2", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"};

    public static final String[] LEVELS = {"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"};
}

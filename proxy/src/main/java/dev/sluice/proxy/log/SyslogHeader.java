package dev.sluice.proxy.log;

import dev.sluice.config.model.LogTarget;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * HAProxy 2.6's syslog header for a message with known fields (build_log_header): what a ring writes before each
 * message, and what a log-forward section puts before each message it forwards. The fields come from the local log
 * (tag, pid) or from a received message ({@link SyslogMessage}); a field that is absent is left out or replaced as
 * HAProxy does ({@code localhost} for the RFC 3164 host, {@code -} in RFC 5424). Dates given in one syslog form are
 * converted to the other as HAProxy converts them. Stateless.
 */
public final class SyslogHeader {
    private SyslogHeader() {
    }

    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    private static final DateTimeFormatter ISO_US = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSxxx", Locale.ROOT);
    /** 'Jan  1 00:00:00'. */
    static final int LEGACY_TIME_LEN = 15;
    /** '1970-01-01T00:00:00Z'. */
    static final int ISO_TIME_MIN_LEN = 20;

    /**
     * The header of a message at {@code level} and {@code facility} in {@code format}, with these fields (each may be
     * null). {@code nowMicros}: the date used when the fields carry none.
     */
    public static String build(LogTarget.Format format, int level, int facility, SyslogMessage.Fields f, long nowMicros, ZoneId zone) {
        StringBuilder sb = new StringBuilder(80);
        String time = f == null ? null : f.time();
        switch (format) {
            case LOCAL, RFC3164, RFC5424, PRIORITY -> sb.append('<').append(facility * 8 + level).append('>');
            case TIMED, SHORT -> sb.append('<').append(level).append('>');
            default -> {
            }
        }
        switch (format) {
            case LOCAL, RFC3164 -> legacyTime(sb, time, nowMicros, zone);
            case RFC5424, TIMED, ISO -> {
                if (format == LogTarget.Format.RFC5424) {
                    sb.append("1 ");
                    if ("-".equals(time)) {
                        sb.append("- ");
                        break;
                    }
                }
                isoTime(sb, time, nowMicros, zone);
            }
            default -> {
            }
        }
        String host = f == null ? null : f.host();
        String tag = f == null ? null : f.tag();
        String pid = f == null ? null : f.pid();
        switch (format) {
            case RFC3164, LOCAL -> {
                if (format == LogTarget.Format.RFC3164) {
                    sb.append(host != null ? host : "localhost").append(' ');
                }
                if (tag != null) {
                    sb.append(tag);
                    if (pid != null) {
                        sb.append('[').append(pid).append(']');
                    }
                    sb.append(": ");
                }
            }
            case RFC5424 -> {
                nil(sb, host);
                nil(sb, tag);
                nil(sb, pid);
                nil(sb, f == null ? null : f.msgId());
                nil(sb, f == null ? null : f.structuredData());
            }
            default -> {
            }
        }
        return sb.toString();
    }

    private static void nil(StringBuilder sb, String v) {
        sb.append(v != null ? v : "-").append(' ');
    }

    private static void legacyTime(StringBuilder sb, String time, long nowMicros, ZoneId zone) {
        if (time != null && time.length() == LEGACY_TIME_LEN) {
            sb.append(time).append(' ');
            return;
        }
        if (time != null && time.length() >= ISO_TIME_MIN_LEN) {
            int month = 10 * (time.charAt(5) - '0') + (time.charAt(6) - '0');
            if (month > 0) {
                month--;
            }
            if (month >= 0 && month <= 11) {
                sb.append(MONTHS[month]).append(' ').append(time.charAt(8) != '0' ? time.charAt(8) : ' ').append(time.charAt(9))
                        .append(' ').append(time, 11, 19).append(' ');
                return;
            }
        }
        ZonedDateTime t = Instant.ofEpochSecond(nowMicros / 1_000_000).atZone(zone);
        sb.append(String.format(Locale.ROOT, "%s %2d %02d:%02d:%02d ", MONTHS[t.getMonthValue() - 1], t.getDayOfMonth(), t.getHour(),
                t.getMinute(), t.getSecond()));
    }

    private static void isoTime(StringBuilder sb, String time, long nowMicros, ZoneId zone) {
        if (time != null && time.length() >= ISO_TIME_MIN_LEN) {
            sb.append(time).append(' ');
            return;
        }
        ZonedDateTime now = Instant.ofEpochSecond(nowMicros / 1_000_000, (nowMicros % 1_000_000) * 1000).atZone(zone);
        if (time != null && time.length() == LEGACY_TIME_LEN) {
            int month = -1;
            for (int m = 0; m < 12; m++) {
                if (time.startsWith(MONTHS[m])) {
                    month = m;
                }
            }
            if (month >= 0) {
                int year = now.getYear();
                if (now.getMonthValue() - 1 < month) {
                    // the year changed since the message was written
                    year--;
                }
                sb.append(String.format(Locale.ROOT, "%4d-%02d-", year, month + 1)).append(time.charAt(4) != ' ' ? time.charAt(4) : '0')
                        .append(time.charAt(5)).append('T').append(time, 7, 15).append("-00:00 ");
                return;
            }
        }
        sb.append(now.format(ISO_US)).append(' ');
    }
}

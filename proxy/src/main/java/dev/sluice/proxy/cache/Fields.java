package dev.sluice.proxy.cache;

import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the cache reads header fields, as HAProxy's {@code http_find_header} does: a field's whole value (its first
 * occurrence), or its comma-separated elements over every occurrence (quoted strings kept whole, spaces around an
 * element dropped); HTTP dates. Stateless.
 */
final class Fields {
    private Fields() {
    }

    /** The value of the first field {@code name} (lower case), or null. */
    static String first(HttpFields f, AsciiString name) {
        int i = f.indexOf(name);
        return i < 0 ? null : f.value(i).toString().strip();
    }

    /** Every comma-separated element of every field {@code name} (lower case), in order; an empty value is one empty element. */
    static List<String> elements(HttpFields f, AsciiString name) {
        List<String> out = new ArrayList<>();
        for (int i = f.indexOf(name); i >= 0; i = f.indexOf(name, i + 1)) {
            String v = f.value(i).toString();
            int start = 0;
            boolean quoted = false;
            for (int j = 0; j <= v.length(); j++) {
                char c = j < v.length() ? v.charAt(j) : ',';
                if (c == '"') {
                    quoted = !quoted;
                } else if (c == '\\' && quoted) {
                    j++;
                } else if (c == ',' && !quoted) {
                    out.add(v.substring(start, Math.min(j, v.length())).strip());
                    start = j + 1;
                }
            }
        }
        return out;
    }

    static boolean startsWithIgnoreCase(String s, String prefix) {
        return s.regionMatches(true, 0, prefix, 0, prefix.length());
    }

    private static final DateTimeFormatter RFC850 = DateTimeFormatter.ofPattern("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", Locale.ROOT);
    private static final DateTimeFormatter ASCTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT);

    /** An HTTP date (IMF-fixdate, RFC 850 or asctime) in epoch seconds, or null when it is none. */
    static Long date(String v) {
        if (v == null) {
            return null;
        }
        try {
            return DateTimeFormatter.RFC_1123_DATE_TIME.parse(v, java.time.ZonedDateTime::from).toEpochSecond();
        } catch (DateTimeParseException e) {
            // the older forms follow
        }
        for (DateTimeFormatter f : new DateTimeFormatter[] {RFC850, ASCTIME}) {
            try {
                return LocalDateTime.parse(v, f).toEpochSecond(ZoneOffset.UTC);
            } catch (DateTimeParseException e) {
                // next form
            }
        }
        return null;
    }
}

package dev.sluice.proxy.rules;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/** Dates as HAProxy's converters print them: strftime(3) in the C locale ({@code ltime}, {@code utime}), {@code http_date}. */
final class TimeFormat {
    private TimeFormat() {
    }

    private static final String[] DAYS = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    /** {@code http_date}: {@code value} in units of 1/{@code div} second; a fraction when the unit is not the second. */
    static String httpDate(long value, long div) {
        long frac = value % div;
        long secs = value / div & 0x007fffffffffffffL;
        ZonedDateTime d = Instant.ofEpochSecond(secs).atZone(ZoneOffset.UTC);
        String s = String.format(Locale.ROOT, "%s, %02d %s %04d %02d:%02d:%02d", DAYS[d.getDayOfWeek().getValue() % 7], d.getDayOfMonth(),
                MONTHS[d.getMonthValue() - 1], d.getYear(), d.getHour(), d.getMinute(), d.getSecond());
        return div == 1 ? s + " GMT" : s + "." + frac + " GMT";
    }

    /** strftime(3)'s conversions in the C locale, for the date {@code epoch} (seconds) in UTC or the local zone. */
    static String strftime(String format, long epoch, boolean utc) {
        ZonedDateTime d = Instant.ofEpochSecond(epoch).atZone(utc ? ZoneOffset.UTC : ZoneId.systemDefault());
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 == format.length()) {
                sb.append(c);
                continue;
            }
            char f = format.charAt(++i);
            int wday = d.getDayOfWeek().getValue() % 7;
            switch (f) {
                case 'a' -> sb.append(DAYS[wday]);
                case 'A' -> sb.append(d.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ROOT));
                case 'b', 'h' -> sb.append(MONTHS[d.getMonthValue() - 1]);
                case 'B' -> sb.append(d.getMonth().getDisplayName(TextStyle.FULL, Locale.ROOT));
                case 'c' -> sb.append(strftime("%a %b %e %H:%M:%S %Y", epoch, utc));
                case 'C' -> pad(sb, d.getYear() / 100, 2, '0');
                case 'd' -> pad(sb, d.getDayOfMonth(), 2, '0');
                case 'D' -> sb.append(strftime("%m/%d/%y", epoch, utc));
                case 'e' -> pad(sb, d.getDayOfMonth(), 2, ' ');
                case 'F' -> sb.append(strftime("%Y-%m-%d", epoch, utc));
                case 'H' -> pad(sb, d.getHour(), 2, '0');
                case 'I' -> pad(sb, (d.getHour() + 11) % 12 + 1, 2, '0');
                case 'j' -> pad(sb, d.getDayOfYear(), 3, '0');
                case 'k' -> pad(sb, d.getHour(), 2, ' ');
                case 'l' -> pad(sb, (d.getHour() + 11) % 12 + 1, 2, ' ');
                case 'm' -> pad(sb, d.getMonthValue(), 2, '0');
                case 'M' -> pad(sb, d.getMinute(), 2, '0');
                case 'n' -> sb.append('\n');
                case 'p' -> sb.append(d.getHour() < 12 ? "AM" : "PM");
                case 'P' -> sb.append(d.getHour() < 12 ? "am" : "pm");
                case 'r' -> sb.append(strftime("%I:%M:%S %p", epoch, utc));
                case 'R' -> sb.append(strftime("%H:%M", epoch, utc));
                case 's' -> sb.append(epoch);
                case 'S' -> pad(sb, d.getSecond(), 2, '0');
                case 't' -> sb.append('\t');
                case 'T' -> sb.append(strftime("%H:%M:%S", epoch, utc));
                case 'u' -> sb.append(wday == 0 ? 7 : wday);
                case 'w' -> sb.append(wday);
                case 'x' -> sb.append(strftime("%m/%d/%y", epoch, utc));
                case 'X' -> sb.append(strftime("%H:%M:%S", epoch, utc));
                case 'y' -> pad(sb, d.getYear() % 100, 2, '0');
                case 'Y' -> sb.append(d.getYear());
                case 'z' -> {
                    int off = d.getOffset().getTotalSeconds() / 60;
                    sb.append(off < 0 ? '-' : '+');
                    pad(sb, Math.abs(off) / 60 * 100 + Math.abs(off) % 60, 4, '0');
                }
                case 'Z' -> sb.append(utc ? "GMT" : d.getZone().getDisplayName(TextStyle.SHORT, Locale.ROOT));
                case '%' -> sb.append('%');
                default -> sb.append('%').append(f);
            }
        }
        return sb.toString();
    }

    private static void pad(StringBuilder sb, long v, int width, char fill) {
        String s = Long.toString(v);
        for (int i = s.length(); i < width; i++) {
            sb.append(fill);
        }
        sb.append(s);
    }
}

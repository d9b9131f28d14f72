package dev.sluice.proxy.log;

/**
 * A syslog message as a log-forward section receives it, split as HAProxy 2.6's parse_log_message splits it: the
 * priority (level and facility, -1 when absent), the header's fields (RFC 5424: time, host, tag, pid, message id,
 * structured data; RFC 3164: time, host, tag, pid) and the message. A header that does not parse leaves only the
 * priority, and the rest of the bytes are the message.
 */
public record SyslogMessage(int level, int facility, Fields fields, String message) {

    /** The header fields of a message (each null when absent or NILVALUE), or those of a local log line. */
    public record Fields(String time, String host, String tag, String pid, String msgId, String structuredData) {
        /** A received message without a header. */
        public static final Fields NONE = new Fields(null, null, null, null, null, null);

        public static Fields local(String tag, String pid) {
            return new Fields(null, null, tag, pid, null, null);
        }
    }

    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    /** Splits {@code s} (one message, without its framing). */
    public static SyslogMessage parse(String s) {
        int n = s.length();
        if (n < 2 || s.charAt(0) != '<') {
            return new SyslogMessage(-1, -1, null, s);
        }
        int p = 1;
        int pri = 0;
        while (p < n && s.charAt(p) != '>') {
            char c = s.charAt(p);
            if (c < '0' || c > '9') {
                return new SyslogMessage(-1, -1, null, s);
            }
            pri = pri * 10 + (c - '0');
            p++;
        }
        if (p >= n) {
            return new SyslogMessage(-1, -1, null, s);
        }
        int level = pri & 7;
        int facility = pri >> 3;
        p++;
        String rest = s.substring(p);
        if (rest.length() > 2 && rest.charAt(0) == '1' && rest.charAt(1) == ' ') {
            SyslogMessage m = rfc5424(level, facility, rest);
            return m != null ? m : new SyslogMessage(level, facility, null, rest);
        }
        if (rest.length() > SyslogHeader.LEGACY_TIME_LEN) {
            SyslogMessage m = rfc3164(level, facility, rest);
            return m != null ? m : new SyslogMessage(level, facility, null, rest);
        }
        return new SyslogMessage(level, facility, null, rest);
    }

    private static SyslogMessage rfc5424(int level, int facility, String s) {
        int n = s.length();
        int p = 2;
        String time;
        if (p + 1 < n && s.charAt(p) == '-' && s.charAt(p + 1) == ' ') {
            time = "-";
            p++;
        } else if (n > SyslogHeader.ISO_TIME_MIN_LEN) {
            int start = p;
            p += 19;
            if (p >= n) {
                return null;
            }
            if (s.charAt(p) == '.') {
                p++;
                while (p < n && s.charAt(p) != 'Z' && s.charAt(p) != '+' && s.charAt(p) != '-') {
                    if (s.charAt(p) < '0' || s.charAt(p) > '9') {
                        return null;
                    }
                    p++;
                }
                if (p >= n) {
                    return null;
                }
            }
            p += s.charAt(p) == 'Z' ? 1 : 6;
            if (p >= n || s.charAt(p) != ' ') {
                return null;
            }
            time = s.substring(start, p);
        } else {
            return null;
        }
        String[] f = new String[4];
        for (int i = 0; i < 4; i++) {
            p++;
            if (p >= n || s.charAt(p) == ' ') {
                return null;
            }
            int start = p;
            while (s.charAt(p) != ' ') {
                p++;
                if (p >= n) {
                    return null;
                }
            }
            String v = s.substring(start, p);
            f[i] = v.equals("-") ? null : v;
        }
        p++;
        if (p >= n || s.charAt(p) == ' ') {
            return null;
        }
        int sdStart = p;
        if (s.charAt(p) == '[') {
            boolean inElem = false;
            while (true) {
                char c = s.charAt(p);
                if (inElem) {
                    if (c == ']' && s.charAt(p - 1) != '\\') {
                        inElem = false;
                    }
                } else if (c == '[') {
                    inElem = true;
                } else if (c == ' ') {
                    break;
                } else {
                    return null;
                }
                p++;
                if (p >= n) {
                    return null;
                }
            }
        } else if (s.charAt(p) == '-') {
            p++;
            if (p >= n || s.charAt(p) != ' ') {
                return null;
            }
        } else {
            return null;
        }
        String sd = s.substring(sdStart, p);
        return new SyslogMessage(level, facility, new Fields(time, f[0], f[1], f[2], f[3], sd.equals("-") ? null : sd),
                s.substring(p + 1));
    }

    private static SyslogMessage rfc3164(int level, int facility, String s) {
        int n = s.length();
        boolean month = false;
        for (String m : MONTHS) {
            month |= s.startsWith(m);
        }
        if (!month) {
            return null;
        }
        String time = s.substring(0, SyslogHeader.LEGACY_TIME_LEN);
        int p = SyslogHeader.LEGACY_TIME_LEN;
        if (p >= n || s.charAt(p) != ' ') {
            return null;
        }
        p++;
        if (p >= n || s.charAt(p) == ' ') {
            return null;
        }
        int start = p;
        while (s.charAt(p) != ' ') {
            p++;
            if (p >= n) {
                return null;
            }
        }
        String host = s.substring(start, p);
        p++;
        String body = p >= n ? "" : s.substring(p);
        // a tag, if any, ends with ": " before the first space
        int q = 0;
        while (q < body.length() && body.charAt(q) != ' ' && body.charAt(q) != ':') {
            q++;
        }
        if (q + 1 >= body.length() || body.charAt(q) != ':' || body.charAt(q + 1) != ' ') {
            return new SyslogMessage(level, facility, new Fields(time, host, null, null, null, null), body);
        }
        String tag = null;
        String pid = null;
        int pidStart = -1;
        for (int i = 0; i < q; i++) {
            char c = body.charAt(i);
            if (c == '[') {
                tag = body.substring(0, i);
                pidStart = i + 1;
            } else if (c == ']' && pidStart >= 0) {
                if (body.charAt(i + 1) != ':') {
                    // HAProxy stops there: the time, host and tag stand, the rest is the message
                    return new SyslogMessage(level, facility, new Fields(time, host, tag.isEmpty() ? null : tag, null, null, null), body);
                }
                pid = body.substring(pidStart, i);
            }
        }
        if (tag == null || tag.isEmpty()) {
            tag = body.substring(0, q);
        }
        if (tag.isEmpty()) {
            tag = null;
        }
        if (pid != null && pid.isEmpty()) {
            pid = null;
        }
        return new SyslogMessage(level, facility, new Fields(time, host, tag, pid, null, null), body.substring(q + 2));
    }
}

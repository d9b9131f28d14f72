package dev.sluice.proxy.rules;

import java.util.Arrays;
import java.util.List;

/**
 * {@code fix_is_valid} and {@code fix_tag_value(<tag>)}, HAProxy 2.6's fix.c ported: a FIX (Financial Information
 * eXchange) message is a run of {@code <tag>=<value>} fields, each ended by SOH (0x01).
 *
 * <p>{@code fix_is_valid} is true when the first field is BeginString (8) with a known version, the second BodyLength (9)
 * with the length from the third field to the CheckSum field, the third MsgType (35), and a later CheckSum (10) holds the
 * sum of the bytes before it, modulo 256, in three characters; false when the message breaks one of these; no sample
 * while it could still become valid (under 26 bytes, a field not ended yet, no CheckSum yet). {@code fix_tag_value} is the
 * value of the first field with that tag (binary), without any validation; no sample when it is not there, not ended,
 * empty, or after the CheckSum field. The tag is a number or one of the names BeginString, BodyLength, MsgType,
 * SenderCompID, TargetCompID, CheckSum (any case), checked when the configuration is read.
 *
 * <p>HAProxy's walk is kept with its quirks: numbers are read as C unsigned ints that wrap (tag 4294967331 is 35); an empty
 * value passes (the check for it looks at the value with its '='), except where the value is read; once BeginString is
 * read, tag numbers must be within that version's range (or 10000-19999); the CheckSum value's three characters are read
 * without checking they are digits ("0:0" is 100); anything after the CheckSum field is ignored, but that field needs its
 * SOH.
 */
final class FixConverters {
    private FixConverters() {
    }

    private static final byte SOH = 0x01;
    /** FIX_MSG_MINSIZE: below it, a message is still incomplete. */
    private static final int MIN_SIZE = 26;

    private static final int BEGIN_STRING = 8;
    private static final int BODY_LENGTH = 9;
    private static final int CHECKSUM = 10;
    private static final int MSG_TYPE = 35;
    private static final int SENDER_COMP_ID = 49;
    private static final int TARGET_COMP_ID = 56;

    /** The version strings fix_version knows (FIXT.1.1 for every FIX 5.0), with the highest tag each allows. */
    private static final List<String> VERSIONS = List.of("FIX.4.0", "FIX.4.1", "FIX.4.2", "FIX.4.3", "FIX.4.4", "FIXT.1.1");
    private static final long[] LAST_TAG = {140, 211, 446, 659, 956, 1621};
    private static final int NO_VERSION = -1;

    enum Verdict {
        INVALID, NEED_MORE_DATA, VALID
    }

    static void register() {
        Converters.def("fix_is_valid", 0, 0, a -> (t, v) -> switch (validate(Samples.bytes(v))) {
            case VALID -> Boolean.TRUE;
            case INVALID -> Boolean.FALSE;
            case NEED_MORE_DATA -> null;
        });
        Converters.def("fix_tag_value", 1, 1, a -> {
            long tag = tagArgument(a.get(0));
            return (t, v) -> tagValue(Samples.bytes(v), tag);
        });
    }

    /** sample_conv_fix_value_check with fix_tagid: a positive number, else one of six names in any case. */
    static long tagArgument(String s) {
        byte[] b = new byte[s.length()];
        for (int i = 0; i < b.length; i++) {
            char c = s.charAt(i);
            b[i] = c < 0x80 ? (byte) c : (byte) 0x80;
        }
        long id = checkId(b, 0, b.length, NO_VERSION);
        if (id != 0) {
            return id;
        }
        String[] names = {"MsgType", "CheckSum", "BodyLength", "TargetCompID", "BeginString", "SenderCompID"};
        int[] ids = {MSG_TYPE, CHECKSUM, BODY_LENGTH, TARGET_COMP_ID, BEGIN_STRING, SENDER_COMP_ID};
        for (int i = 0; i < names.length; i++) {
            if (asciiEqualsIgnoreCase(s, names[i])) {
                return ids[i];
            }
        }
        throw new IllegalArgumentException("Unknown FIX tag name '" + s + "'");
    }

    private static boolean asciiEqualsIgnoreCase(String s, String name) {
        if (s.length() != name.length()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (lower(s.charAt(i)) != lower(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static char lower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    /**
     * read_uint over the whole of {@code [from, to)}: the digits' value as a C unsigned int (wrapping modulo 2^32), or -1
     * when a byte is not a digit (read_uint stopped before the end). An empty range is 0.
     */
    static long uint(byte[] b, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            value = value * 10 + d;
        }
        return Integer.toUnsignedLong(value);
    }

    /**
     * fix_check_id: the tag number in {@code [from, to)}, or 0 when it is not all digits or is 0; with a version, also 0
     * when it is past that version's range and not a user-defined tag (10000-19999).
     */
    static long checkId(byte[] b, int from, int to, int version) {
        long id = uint(b, from, to);
        if (id <= 0) {
            return 0;
        }
        if (version == NO_VERSION || id >= 10000 && id <= 19999) {
            return id;
        }
        return id <= LAST_TAG[version] ? id : 0;
    }

    /** fix_version: the index of the version string in {@code [from, to)}, exactly, or NO_VERSION. */
    private static int version(byte[] b, int from, int to) {
        for (int i = 0; i < VERSIONS.size(); i++) {
            String v = VERSIONS.get(i);
            if (to - from == v.length() && Arrays.equals(b, from, to, Samples.bytes(v), 0, v.length())) {
                return i;
            }
        }
        return NO_VERSION;
    }

    private static int indexOf(byte[] b, int from, byte c) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** strl2ui on three characters: no check that they are digits, each one's code less '0' is added as is. */
    private static int strl2ui(byte[] b, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            value = value * 10 - '0' + (b[i] & 0xff);
        }
        return value;
    }

    /** fix_validate_message. */
    static Verdict validate(byte[] m) {
        if (m.length < MIN_SIZE) {
            return Verdict.NEED_MORE_DATA;
        }
        int version = NO_VERSION;
        int checksum = 0;
        int fields = 0;
        long bodyLength = 0;
        int body = -1;
        int pos = 0;
        while (pos < m.length) {
            // the tag ends at the first '=', the value at the first SOH after it (a SOH before '=' is in the tag)
            int eq = indexOf(m, pos, (byte) '=');
            int end = eq < 0 ? -1 : indexOf(m, eq, SOH);
            if (end < 0) {
                return Verdict.NEED_MORE_DATA;
            }
            // an empty tag is refused; HAProxy's empty-value test counts the '=', so an empty value is not
            if (eq == pos) {
                return Verdict.INVALID;
            }
            long id = checkId(m, pos, eq, version);
            if (id == 0) {
                return Verdict.INVALID;
            }
            fields++;
            int valueFrom = eq + 1;
            if (fields == 1) {
                if (id != BEGIN_STRING) {
                    return Verdict.INVALID;
                }
                version = version(m, valueFrom, end);
                if (version == NO_VERSION) {
                    return Verdict.INVALID;
                }
            } else if (fields == 2) {
                if (id != BODY_LENGTH) {
                    return Verdict.INVALID;
                }
                bodyLength = uint(m, valueFrom, end);
                if (bodyLength <= 0) {
                    return Verdict.INVALID;
                }
                body = end + 1;
            } else if (fields == 3) {
                if (id != MSG_TYPE) {
                    return Verdict.INVALID;
                }
            } else if (id == CHECKSUM) {
                // the body runs from after BodyLength to the CheckSum field, which the checksum does not cover either
                if (bodyLength != pos - body || end - valueFrom != 3 || checksum != strl2ui(m, valueFrom, end)) {
                    return Verdict.INVALID;
                }
                return Verdict.VALID;
            }
            for (int i = pos; i <= end; i++) {
                checksum = (checksum + m[i]) & 0xff;
            }
            pos = end + 1;
        }
        // every field read: without BodyLength yet the message is invalid, with it the CheckSum is still to come
        return body >= 0 ? Verdict.NEED_MORE_DATA : Verdict.INVALID;
    }

    /** fix_tag_value: the first value of the tag, or null (not found, invalid, not ended, empty, after CheckSum). */
    static byte[] tagValue(byte[] m, long tag) {
        int pos = 0;
        while (pos < m.length) {
            int eq = indexOf(m, pos, (byte) '=');
            int end = eq < 0 ? -1 : indexOf(m, eq, SOH);
            if (end < 0 || eq == pos) {
                return null;
            }
            long id = checkId(m, pos, eq, NO_VERSION);
            if (id == 0) {
                return null;
            }
            if (id == tag) {
                return end == eq + 1 ? null : Arrays.copyOfRange(m, eq + 1, end);
            }
            if (id == CHECKSUM) {
                return null;
            }
            pos = end + 1;
        }
        return null;
    }
}

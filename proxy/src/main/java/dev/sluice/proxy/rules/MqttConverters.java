package dev.sluice.proxy.rules;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code mqtt_is_valid} and {@code mqtt_field_value(<packettype>,<fieldname_or_property_ID>)}, HAProxy 2.6's mqtt.c
 * ported: the validation of an MQTT 3.1, 3.1.1 or 5.0 packet, of which only CONNECT and CONNACK are ever valid, and the
 * value of one of their fields or MQTT 5.0 properties, always as a string (numbers in decimal). Where HAProxy answers
 * "may change" (a packet shorter than its remaining length, or shorter than two bytes) there is no sample here.
 *
 * <p>HAProxy's quirks are kept: the packet type argument goes through {@code strl2ui}, which reads any character as a
 * digit (so {@code ?} is type 15, AUTH); a field only reached through another packet type is accepted at configuration
 * time and never found; a CONNACK is MQTT 3.1.1 only when exactly two bytes follow its fixed header (trailing bytes make
 * it an MQTT 5.0 one); a CONNACK property CONNACK does not know answers "need more data" (no sample), not "invalid"; a
 * variable byte integer cut by the end of the bytes counts as complete; bytes after the packet are ignored; the will QoS
 * is refused without the will flag only when both of its bits are set (and the will retain bit clear); integer
 * properties absent from an MQTT 5.0 packet read 0, string ones and empty strings are not found; user properties (38)
 * are parsed but never returned.
 */
final class MqttConverters {
    private MqttConverters() {
    }

    // mqtt_validate_message's answers
    static final int INVALID = -1;
    static final int NEED_MORE_DATA = 0;
    static final int VALID = 1;

    // control packet types (MQTT_CPT_*)
    static final int CONNECT = 1;
    static final int CONNACK = 2;
    private static final int CPT_ENTRIES = 16;
    private static final List<String> TYPE_NAMES = List.of("", "CONNECT", "CONNACK", "PUBLISH", "PUBACK", "PUBREC", "PUBREL",
            "PUBCOMP", "SUBSCRIBE", "SUBACK", "UNSUBSCRIBE", "UNSUBACK", "PINGREQ", "PINGRESP", "DISCONNECT", "AUTH");

    /** The fixed header flags each packet type must carry (PUBLISH: all four bits, as HAProxy 2.6 wants them). */
    private static final int[] CPT_FLAGS = {0, 0, 0, 0x0F, 0, 0, 0x02, 0, 0x02, 0, 0x02, 0, 0, 0, 0, 0};

    // field names (MQTT_FN_*), in mqtt-t.h's order: an index here is a bit in FIELDS_PER_PACKET
    static final int FLAGS = 1;
    static final int REASON_CODE = 2;
    static final int PROTOCOL_NAME = 3;
    static final int PROTOCOL_VERSION = 4;
    static final int CLIENT_IDENTIFIER = 5;
    static final int WILL_TOPIC = 6;
    static final int WILL_PAYLOAD = 7;
    static final int USERNAME = 8;
    static final int PASSWORD = 9;
    static final int KEEPALIVE = 10;
    static final int PAYLOAD_FORMAT_INDICATOR = 11;
    static final int MESSAGE_EXPIRY_INTERVAL = 12;
    static final int CONTENT_TYPE = 13;
    static final int RESPONSE_TOPIC = 14;
    static final int CORRELATION_DATA = 15;
    static final int SUBSCRIPTION_IDENTIFIER = 16;
    static final int SESSION_EXPIRY_INTERVAL = 17;
    static final int ASSIGNED_CLIENT_IDENTIFIER = 18;
    static final int SERVER_KEEPALIVE = 19;
    static final int AUTHENTICATION_METHOD = 20;
    static final int AUTHENTICATION_DATA = 21;
    static final int REQUEST_PROBLEM_INFORMATION = 22;
    static final int DELAY_INTERVAL = 23;
    static final int REQUEST_RESPONSE_INFORMATION = 24;
    static final int RESPONSE_INFORMATION = 25;
    static final int SERVER_REFERENCE = 26;
    static final int REASON_STRING = 27;
    static final int RECEIVE_MAXIMUM = 28;
    static final int TOPIC_ALIAS_MAXIMUM = 29;
    static final int TOPIC_ALIAS = 30;
    static final int MAXIMUM_QOS = 31;
    static final int RETAIN_AVAILABLE = 32;
    static final int USER_PROPERTY = 33;
    static final int MAXIMUM_PACKET_SIZE = 34;
    static final int WILDCARD_SUBSCRIPTION_AVAILABLE = 35;
    static final int SUBSCRIPTION_IDENTIFIERS_AVAILABLE = 36;
    static final int SHARED_SUBSCRIPTION_AVAILABLE = 37;
    private static final int FN_ENTRIES = 38;

    /** mqtt_fields_string: the names, then the MQTT 5.0 property identifiers in decimal. */
    private static final List<String> FIELD_NAMES = List.of("", "flags", "reason_code", "protocol_name", "protocol_version",
            "client_identifier", "will_topic", "will_payload", "username", "password", "keepalive", "1", "2", "3", "8", "9", "11",
            "17", "18", "19", "21", "22", "23", "24", "25", "26", "28", "31", "33", "34", "35", "36", "37", "38", "39", "40", "41",
            "42");

    /** mqtt_fields_per_packet: the fields each packet type lets a configuration name. */
    private static final long[] FIELDS_PER_PACKET = {
        0,
        bits(PROTOCOL_NAME, PROTOCOL_VERSION, FLAGS, KEEPALIVE, SESSION_EXPIRY_INTERVAL, RECEIVE_MAXIMUM, MAXIMUM_PACKET_SIZE,
                TOPIC_ALIAS_MAXIMUM, REQUEST_RESPONSE_INFORMATION, REQUEST_PROBLEM_INFORMATION, USER_PROPERTY, AUTHENTICATION_METHOD,
                AUTHENTICATION_DATA, CLIENT_IDENTIFIER, DELAY_INTERVAL, PAYLOAD_FORMAT_INDICATOR, MESSAGE_EXPIRY_INTERVAL,
                CONTENT_TYPE, RESPONSE_TOPIC, CORRELATION_DATA, WILL_TOPIC, WILL_PAYLOAD, USERNAME, PASSWORD),
        bits(FLAGS, PROTOCOL_VERSION, REASON_CODE, SESSION_EXPIRY_INTERVAL, RECEIVE_MAXIMUM, MAXIMUM_QOS, RETAIN_AVAILABLE,
                MAXIMUM_PACKET_SIZE, ASSIGNED_CLIENT_IDENTIFIER, TOPIC_ALIAS_MAXIMUM, REASON_STRING, WILDCARD_SUBSCRIPTION_AVAILABLE,
                SUBSCRIPTION_IDENTIFIERS_AVAILABLE, SHARED_SUBSCRIPTION_AVAILABLE, SERVER_KEEPALIVE, RESPONSE_INFORMATION,
                SERVER_REFERENCE, USER_PROPERTY, AUTHENTICATION_METHOD, AUTHENTICATION_DATA),
        bits(PAYLOAD_FORMAT_INDICATOR, MESSAGE_EXPIRY_INTERVAL, CONTENT_TYPE, RESPONSE_TOPIC, CORRELATION_DATA,
                SUBSCRIPTION_IDENTIFIER, TOPIC_ALIAS, USER_PROPERTY),
        bits(REASON_CODE, REASON_STRING, USER_PROPERTY),
        bits(REASON_CODE, REASON_STRING, USER_PROPERTY),
        bits(REASON_CODE, REASON_STRING, USER_PROPERTY),
        bits(REASON_CODE, REASON_STRING, USER_PROPERTY),
        bits(SUBSCRIPTION_IDENTIFIER, USER_PROPERTY),
        bits(REASON_STRING, USER_PROPERTY),
        bits(USER_PROPERTY),
        bits(REASON_STRING, USER_PROPERTY),
        0,
        0,
        bits(REASON_CODE, SESSION_EXPIRY_INTERVAL, SERVER_REFERENCE, REASON_STRING, USER_PROPERTY),
        bits(AUTHENTICATION_METHOD, AUTHENTICATION_DATA, REASON_STRING, USER_PROPERTY),
    };

    // CONNECT flags
    private static final int FL_RESERVED = 0x01;
    private static final int FL_WILL = 0x04;
    private static final int FL_WILL_QOS = 0x18;
    private static final int FL_WILL_RETAIN = 0x20;
    private static final int FL_PASSWORD = 0x40;
    private static final int FL_USERNAME = 0x80;

    private static final int V3_1 = 3;
    private static final int V3_1_1 = 4;
    private static final int V5_0 = 5;

    static void register() {
        Converters.def("mqtt_is_valid", 0, 0, a -> (t, v) -> {
            byte[] b = Samples.bytes(v);
            if (b == null) {
                return null;
            }
            int r = validate(b, new Packet());
            return r == NEED_MORE_DATA ? null : (Object) (r == VALID);
        });
        Converters.def("mqtt_field_value", 2, 2, a -> {
            int type = typeId(a.get(0));
            if (type == 0) {
                throw new IllegalArgumentException("Unknown MQTT type '" + a.get(0) + "'");
            }
            int field = fieldId(type, a.get(1));
            if (field == 0) {
                throw new IllegalArgumentException("Unknown MQTT field name '" + a.get(1) + "' for packet type '" + a.get(0) + "'");
            }
            return (t, v) -> {
                byte[] b = Samples.bytes(v);
                return b == null ? null : fieldValue(b, type, field);
            };
        });
    }

    private static long bits(int... fields) {
        long m = 0;
        for (int f : fields) {
            m |= 1L << f;
        }
        return m;
    }

    /**
     * mqtt_typeid: {@code strl2ui} first, which takes every character for a digit ({@code i * 10 - '0' + c} on 32
     * unsigned bits), then the names, ignoring ASCII case; 0 when neither gives a type.
     */
    static int typeId(String s) {
        int id = 0;
        for (int i = 0; i < s.length(); i++) {
            id = id * 10 - '0' + (s.charAt(i) & 0xff);
        }
        if (id >= CONNECT && id < CPT_ENTRIES) {
            return id;
        }
        for (int t = CONNECT; t < CPT_ENTRIES; t++) {
            if (eqi(s, TYPE_NAMES.get(t))) {
                return t;
            }
        }
        return 0;
    }

    /** mqtt_check_type_fieldname: the first name matching (ASCII case ignored), if {@code type} has it; 0 otherwise. */
    static int fieldId(int type, String s) {
        for (int i = 0; i < FN_ENTRIES; i++) {
            if (eqi(s, FIELD_NAMES.get(i))) {
                return (FIELDS_PER_PACKET[type] & 1L << i) != 0 ? i : 0;
            }
        }
        return 0;
    }

    /** isteqi: same length, same bytes but for the case of ASCII letters. */
    private static boolean eqi(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        for (int i = 0; i < a.length(); i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y && lower(x) != lower(y)) {
                return false;
            }
        }
        return true;
    }

    private static char lower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
    }

    /** What a parse found: integers by field name (0 unless read) and strings as offset and length (null unless read). */
    static final class Packet {
        int type;
        long remainingLength;
        final long[] ints = new long[FN_ENTRIES];
        final int[][] strs = new int[FN_ENTRIES][];

        int version() {
            return (int) ints[PROTOCOL_VERSION];
        }
    }

    /** A position in the bytes and where they end (an {@code ist} of HAProxy's), with its readers. */
    private static final class Reader {
        final byte[] b;
        int pos;
        final int end;

        Reader(byte[] b, int pos, int end) {
            this.b = b;
            this.pos = pos;
            this.end = end;
        }

        int left() {
            return end - pos;
        }

        /** mqtt_read_1byte_int, _2byte_int, _4byte_int: big-endian, -1 (nothing moved) when fewer bytes are left. */
        long uint(int n) {
            if (left() < n) {
                return -1;
            }
            long v = 0;
            for (int i = 0; i < n; i++) {
                v = v << 8 | b[pos++] & 0xff;
            }
            return v;
        }

        /**
         * mqtt_read_varint: up to four bytes, seven bits each, least significant first; -1 when the fourth still has
         * its continuation bit. Bytes that end before the last one give what was read so far.
         */
        long varint() {
            long v = 0;
            int m = 0;
            int off;
            for (off = 0; off < 4 && left() > 0; off++) {
                int x = b[pos++] & 0xff;
                v += (long) (x & 127) << m;
                m += 7;
                if (x <= 127) {
                    break;
                }
            }
            return off == 4 ? -1 : v;
        }

        /** mqtt_read_string: a two-byte length then that many bytes, as {offset, length}; null when they are not all there. */
        int[] string() {
            if (left() < 2) {
                return null;
            }
            int len = (int) uint(2);
            if (left() < len) {
                return null;
            }
            int[] s = {pos, len};
            pos += len;
            return s;
        }
    }

    /**
     * mqtt_validate_message: {@link #VALID}, {@link #INVALID} or {@link #NEED_MORE_DATA}, filling {@code p}. Only
     * CONNECT and CONNACK can be valid.
     */
    static int validate(byte[] msg, Packet p) {
        if (msg.length < 2) {
            return NEED_MORE_DATA;
        }
        int first = msg[0] & 0xff;
        int type = first >> 4;
        if (type == 0 || (first & 0x0F) != CPT_FLAGS[type]) {
            return INVALID;
        }
        p.type = type;
        Reader r = new Reader(msg, 1, msg.length);
        p.remainingLength = r.varint();
        if (p.remainingLength < 0) {
            return INVALID;
        }
        if (r.left() < p.remainingLength) {
            return NEED_MORE_DATA;
        }
        // the parsers see every byte left, the packet's and any after it
        return switch (type) {
            case CONNECT -> parseConnect(r, p);
            case CONNACK -> parseConnack(r, p);
            default -> INVALID;
        };
    }

    /** Reads a one-byte property into {@code field}, false when it is missing or above {@code max}. */
    private static boolean byteProp(Reader props, Packet p, int field, int max) {
        long v = props.uint(1);
        if (v < 0 || v > max) {
            return false;
        }
        p.ints[field] = v;
        return true;
    }

    /** Reads an integer property of {@code n} bytes into {@code field}, false when it is missing or 0 and {@code nonZero}. */
    private static boolean intProp(Reader props, Packet p, int field, int n, boolean nonZero) {
        long v = props.uint(n);
        if (v < 0 || nonZero && v == 0) {
            return false;
        }
        p.ints[field] = v;
        return true;
    }

    /** Reads a string property into {@code field}, false when it is cut, or empty and {@code nonEmpty}. */
    private static boolean stringProp(Reader props, Packet p, int field, boolean nonEmpty) {
        int[] s = props.string();
        if (s == null || nonEmpty && s[1] == 0) {
            return false;
        }
        p.strs[field] = s;
        return true;
    }

    /** A user property: a name and a value, kept by HAProxy (five at most, in a ring) but never returned. */
    private static boolean userProp(Reader props) {
        return props.string() != null && props.string() != null;
    }

    /** The properties' length, then a reader of them, the main reader moved past them; null when they do not fit. */
    private static Reader properties(Reader r) {
        long plen = r.varint();
        if (plen < 0 || r.left() < plen) {
            return null;
        }
        Reader props = new Reader(r.b, r.pos, r.pos + (int) plen);
        r.pos += (int) plen;
        return props;
    }

    /** mqtt_parse_connect. */
    private static int parseConnect(Reader r, Packet p) {
        int origLen = r.left();
        int[] name = r.string();
        if (name == null) {
            return INVALID;
        }
        String n = new String(r.b, name[0], name[1], StandardCharsets.ISO_8859_1);
        if (!eqi(n, "MQTT") && !eqi(n, "MQIsdp")) {
            return INVALID;
        }
        p.strs[PROTOCOL_NAME] = name;
        long version = r.uint(1);
        if (version != V3_1 && version != V3_1_1 && version != V5_0) {
            return INVALID;
        }
        p.ints[PROTOCOL_VERSION] = version;
        long flags = r.uint(1);
        if (flags < 0 || (flags & FL_RESERVED) != 0) {
            return INVALID;
        }
        p.ints[FLAGS] = flags;
        // the will QoS without the will flag, but only when both QoS bits are set and the will retain bit is not
        if ((flags & (FL_WILL | FL_WILL_QOS | FL_WILL_RETAIN)) == FL_WILL_QOS) {
            return INVALID;
        }
        long keepalive = r.uint(2);
        if (keepalive < 0) {
            return INVALID;
        }
        p.ints[KEEPALIVE] = keepalive;

        if (version == V5_0) {
            Reader props = properties(r);
            if (props == null) {
                return INVALID;
            }
            // the bit that guards against a repeated property (Topic Alias Maximum's is Topic Alias's, as in HAProxy)
            int v = properties(props, id -> switch (id) {
                case 0x11 -> SESSION_EXPIRY_INTERVAL;
                case 0x21 -> RECEIVE_MAXIMUM;
                case 0x27 -> MAXIMUM_PACKET_SIZE;
                case 0x22 -> TOPIC_ALIAS;
                case 0x19 -> REQUEST_RESPONSE_INFORMATION;
                case 0x17 -> REQUEST_PROBLEM_INFORMATION;
                case 0x15 -> AUTHENTICATION_METHOD;
                case 0x16 -> AUTHENTICATION_DATA;
                default -> 0;
            }, id -> switch (id) {
                case 0x11 -> intProp(props, p, SESSION_EXPIRY_INTERVAL, 4, false);
                case 0x21 -> intProp(props, p, RECEIVE_MAXIMUM, 2, true);
                case 0x27 -> intProp(props, p, MAXIMUM_PACKET_SIZE, 4, true);
                case 0x22 -> intProp(props, p, TOPIC_ALIAS_MAXIMUM, 2, false);
                case 0x19 -> byteProp(props, p, REQUEST_RESPONSE_INFORMATION, 1);
                case 0x17 -> byteProp(props, p, REQUEST_PROBLEM_INFORMATION, 1);
                case 0x26 -> userProp(props);
                case 0x15 -> stringProp(props, p, AUTHENTICATION_METHOD, false);
                case 0x16 -> stringProp(props, p, AUTHENTICATION_DATA, false);
                default -> false;
            });
            if (v != VALID) {
                return v;
            }
        }

        // no authentication data without an authentication method (an empty one counts as none)
        if (len(p, AUTHENTICATION_METHOD) == 0 && len(p, AUTHENTICATION_DATA) > 0) {
            return INVALID;
        }

        // the payload: client identifier, will properties (5.0), will topic, will payload, user name, password
        p.strs[CLIENT_IDENTIFIER] = r.string();
        if (p.strs[CLIENT_IDENTIFIER] == null) {
            return INVALID;
        }
        if (version == V5_0 && (flags & FL_WILL) != 0) {
            Reader props = properties(r);
            if (props == null) {
                return INVALID;
            }
            int v = properties(props, id -> switch (id) {
                case 0x18 -> DELAY_INTERVAL;
                case 0x01 -> PAYLOAD_FORMAT_INDICATOR;
                case 0x02 -> MESSAGE_EXPIRY_INTERVAL;
                case 0x03 -> CONTENT_TYPE;
                case 0x08 -> RESPONSE_TOPIC;
                case 0x09 -> CORRELATION_DATA;
                default -> 0;
            }, id -> switch (id) {
                case 0x18 -> intProp(props, p, DELAY_INTERVAL, 4, false);
                case 0x01 -> byteProp(props, p, PAYLOAD_FORMAT_INDICATOR, 1);
                case 0x02 -> intProp(props, p, MESSAGE_EXPIRY_INTERVAL, 4, false);
                case 0x03 -> stringProp(props, p, CONTENT_TYPE, false);
                case 0x08 -> stringProp(props, p, RESPONSE_TOPIC, false);
                case 0x09 -> stringProp(props, p, CORRELATION_DATA, false);
                case 0x26 -> userProp(props);
                default -> false;
            });
            if (v != VALID) {
                return v;
            }
        }
        if ((flags & FL_WILL) != 0) {
            p.strs[WILL_TOPIC] = r.string();
            if (p.strs[WILL_TOPIC] == null) {
                return INVALID;
            }
            p.strs[WILL_PAYLOAD] = r.string();
            if (p.strs[WILL_PAYLOAD] == null) {
                return INVALID;
            }
        }
        // a password without a user name is let through
        if ((flags & FL_USERNAME) != 0) {
            p.strs[USERNAME] = r.string();
            if (p.strs[USERNAME] == null) {
                return INVALID;
            }
        }
        if ((flags & FL_PASSWORD) != 0) {
            p.strs[PASSWORD] = r.string();
            if (p.strs[PASSWORD] == null) {
                return INVALID;
            }
        }
        return origLen - r.left() == p.remainingLength ? VALID : INVALID;
    }

    /** mqtt_parse_connack. */
    private static int parseConnack(Reader r, Packet p) {
        int origLen = r.left();
        if (origLen < 2) {
            return INVALID;
        }
        // MQTT 3.1.1 when exactly two bytes are left (whatever the remaining length says), 5.0 otherwise
        int version = origLen == 2 ? V3_1_1 : V5_0;
        p.ints[PROTOCOL_VERSION] = version;
        long flags = r.uint(1);
        if ((flags & 0xFE) != 0) {
            return INVALID;
        }
        p.ints[FLAGS] = flags;
        p.ints[REASON_CODE] = r.uint(1);
        if (version == V3_1_1) {
            return origLen - r.left() == p.remainingLength ? VALID : INVALID;
        }

        Reader props = properties(r);
        if (props == null) {
            return INVALID;
        }
        // (Subscription Identifiers Available's guard bit is Subscription Identifier's, as in HAProxy)
        int v = properties(props, id -> switch (id) {
            case 0x11 -> SESSION_EXPIRY_INTERVAL;
            case 0x21 -> RECEIVE_MAXIMUM;
            case 0x24 -> MAXIMUM_QOS;
            case 0x25 -> RETAIN_AVAILABLE;
            case 0x27 -> MAXIMUM_PACKET_SIZE;
            case 0x12 -> ASSIGNED_CLIENT_IDENTIFIER;
            case 0x22 -> TOPIC_ALIAS_MAXIMUM;
            case 0x1F -> REASON_STRING;
            case 0x28 -> WILDCARD_SUBSCRIPTION_AVAILABLE;
            case 0x29 -> SUBSCRIPTION_IDENTIFIER;
            case 0x2A -> SHARED_SUBSCRIPTION_AVAILABLE;
            case 0x13 -> SERVER_KEEPALIVE;
            case 0x1A -> RESPONSE_INFORMATION;
            case 0x1C -> SERVER_REFERENCE;
            case 0x15 -> AUTHENTICATION_METHOD;
            case 0x16 -> AUTHENTICATION_DATA;
            case 0x26 -> 0;
            // a property CONNACK does not have: HAProxy answers "need more data"
            default -> -1;
        }, id -> switch (id) {
            case 0x11 -> intProp(props, p, SESSION_EXPIRY_INTERVAL, 4, false);
            case 0x21 -> intProp(props, p, RECEIVE_MAXIMUM, 2, true);
            case 0x24 -> byteProp(props, p, MAXIMUM_QOS, 1);
            case 0x25 -> byteProp(props, p, RETAIN_AVAILABLE, 1);
            case 0x27 -> intProp(props, p, MAXIMUM_PACKET_SIZE, 4, true);
            case 0x12 -> stringProp(props, p, ASSIGNED_CLIENT_IDENTIFIER, true);
            case 0x22 -> intProp(props, p, TOPIC_ALIAS_MAXIMUM, 2, false);
            case 0x1F -> stringProp(props, p, REASON_STRING, false);
            case 0x28 -> byteProp(props, p, WILDCARD_SUBSCRIPTION_AVAILABLE, 1);
            case 0x29 -> byteProp(props, p, SUBSCRIPTION_IDENTIFIERS_AVAILABLE, 1);
            case 0x2A -> byteProp(props, p, SHARED_SUBSCRIPTION_AVAILABLE, 1);
            case 0x13 -> intProp(props, p, SERVER_KEEPALIVE, 2, false);
            case 0x1A -> stringProp(props, p, RESPONSE_INFORMATION, false);
            case 0x1C -> stringProp(props, p, SERVER_REFERENCE, false);
            case 0x26 -> userProp(props);
            case 0x15 -> stringProp(props, p, AUTHENTICATION_METHOD, false);
            case 0x16 -> stringProp(props, p, AUTHENTICATION_DATA, false);
            default -> false;
        });
        if (v != VALID) {
            return v;
        }
        return origLen - r.left() == p.remainingLength ? VALID : INVALID;
    }

    /**
     * Reads every property of {@code props}: {@code guard} gives an id's bit against a repeat (0: none, -1: a property the
     * packet does not have, which HAProxy takes as "need more data"), {@code read} reads its value (false: bad or unknown).
     * VALID when all were read, else the verdict.
     */
    private static int properties(Reader props, java.util.function.IntUnaryOperator guard, java.util.function.IntPredicate read) {
        long seen = 0;
        while (props.left() > 0) {
            int id = props.b[props.pos++];
            int bit = guard.applyAsInt(id);
            if (bit < 0) {
                return NEED_MORE_DATA;
            }
            if (bit != 0) {
                if ((seen & 1L << bit) != 0) {
                    return INVALID;
                }
                seen |= 1L << bit;
            }
            if (!read.test(id)) {
                return INVALID;
            }
        }
        return VALID;
    }

    private static int len(Packet p, int field) {
        return p.strs[field] == null ? 0 : p.strs[field][1];
    }

    /**
     * mqtt_field_value: the field of a valid packet of {@code type}, a string; null when the packet is not valid, not
     * complete, of another type, or when the field is not there.
     */
    static String fieldValue(byte[] msg, int type, int field) {
        Packet p = new Packet();
        if (validate(msg, p) != VALID || p.type != type) {
            return null;
        }
        boolean v5 = p.version() == V5_0;
        boolean will = (p.ints[FLAGS] & FL_WILL) != 0;
        if (type == CONNECT) {
            return switch (field) {
                case FLAGS, PROTOCOL_VERSION, KEEPALIVE -> number(p, field);
                case PROTOCOL_NAME, CLIENT_IDENTIFIER, WILL_TOPIC, WILL_PAYLOAD, USERNAME, PASSWORD -> string(msg, p, field);
                case PAYLOAD_FORMAT_INDICATOR, MESSAGE_EXPIRY_INTERVAL, DELAY_INTERVAL -> v5 && will ? number(p, field) : null;
                case CONTENT_TYPE, RESPONSE_TOPIC, CORRELATION_DATA -> v5 && will ? string(msg, p, field) : null;
                case SESSION_EXPIRY_INTERVAL, REQUEST_PROBLEM_INFORMATION, REQUEST_RESPONSE_INFORMATION, RECEIVE_MAXIMUM,
                        TOPIC_ALIAS_MAXIMUM, MAXIMUM_PACKET_SIZE -> v5 ? number(p, field) : null;
                case AUTHENTICATION_METHOD, AUTHENTICATION_DATA -> v5 ? string(msg, p, field) : null;
                default -> null;
            };
        }
        if (type == CONNACK) {
            return switch (field) {
                case FLAGS, REASON_CODE, PROTOCOL_VERSION -> number(p, field);
                case SESSION_EXPIRY_INTERVAL, SERVER_KEEPALIVE, RECEIVE_MAXIMUM, TOPIC_ALIAS_MAXIMUM, MAXIMUM_QOS, RETAIN_AVAILABLE,
                        MAXIMUM_PACKET_SIZE, WILDCARD_SUBSCRIPTION_AVAILABLE, SUBSCRIPTION_IDENTIFIERS_AVAILABLE,
                        SHARED_SUBSCRIPTION_AVAILABLE -> v5 ? number(p, field) : null;
                case ASSIGNED_CLIENT_IDENTIFIER, AUTHENTICATION_METHOD, AUTHENTICATION_DATA, RESPONSE_INFORMATION, SERVER_REFERENCE,
                        REASON_STRING -> v5 ? string(msg, p, field) : null;
                default -> null;
            };
        }
        return null;
    }

    /** mqtt_uint2str: the integer in decimal, "0" when the packet did not carry it. */
    private static String number(Packet p, int field) {
        return Long.toString(p.ints[field]);
    }

    /** The string's bytes, one char each; null when absent or empty. */
    private static String string(byte[] msg, Packet p, int field) {
        int[] s = p.strs[field];
        return s == null || s[1] == 0 ? null : new String(msg, s[0], s[1], StandardCharsets.ISO_8859_1);
    }
}

package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * {@code mqtt_is_valid} and {@code mqtt_field_value} over hand-made packets, each expectation read from HAProxy 2.6's
 * mqtt.c (MqttConverterParityTest holds the same packets against HAProxy itself).
 */
class MqttConvertersTest {
    /** An MQTT string: two bytes of length, then the text. */
    static String s(String text) {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
        return String.format("%04x", b.length) + HexFormat.of().formatHex(b);
    }

    /** A variable byte integer (the remaining length, a properties' length). */
    static String varint(int n) {
        StringBuilder sb = new StringBuilder();
        do {
            int x = n % 128;
            n /= 128;
            sb.append(String.format("%02x", n > 0 ? x | 0x80 : x));
        } while (n > 0);
        return sb.toString();
    }

    /** A packet: its first byte, the remaining length, then {@code body}. */
    static String pkt(int first, String body) {
        return String.format("%02x", first) + varint(body.length() / 2) + body;
    }

    /** Properties: their length, then them. */
    static String props(String hex) {
        return varint(hex.length() / 2) + hex;
    }

    /** CONNECT 3.1.1: clean session, will (QoS 1, retained), user name and a password with a NUL byte; keepalive 60. */
    static final String CONNECT_311 = pkt(0x10, s("MQTT") + "04" + "ee" + "003c" + s("cid1") + s("wt") + s("bye") + s("user") + "0003700077");

    /** CONNECT 5.0 with every connect property, a user property, will properties, user name and password. */
    static final String CONNECT_5 = pkt(0x10, s("MQTT") + "05" + "c6" + "001e"
            + props("110000012c" + "210014" + "2700010000" + "22000a" + "1901" + "1700" + "26" + s("k") + s("v") + "15" + s("SCRAM")
                    + "16000200ab")
            + s("c5")
            + props("1800000005" + "0101" + "0200000e10" + "03" + s("text/plain") + "08" + s("resp/t") + "09000200ff" + "26" + s("a")
                    + s("b"))
            + s("wt5") + s("gone") + s("u5") + s("p5"));

    /** CONNECT 5.0 with nothing: no property, an empty client identifier, no flag but clean session, keepalive 0. */
    static final String CONNECT_5_BARE = pkt(0x10, s("MQTT") + "05" + "02" + "0000" + "00" + s(""));

    /** CONNECT 3.1 (MQIsdp). */
    static final String CONNECT_31 = pkt(0x10, s("MQIsdp") + "03" + "02" + "003c" + s("old"));

    /** CONNACK 3.1.1: session present, accepted. */
    static final String CONNACK_311 = "20020100";

    /** CONNACK 5.0 with every CONNACK property and a user property; reason 0x86. */
    static final String CONNACK_5 = pkt(0x20, "0186" + props("1100000078" + "210064" + "2401" + "2500" + "2700100000" + "12"
            + s("assigned-1") + "220005" + "1f" + s("ok") + "2801" + "2900" + "2a01" + "13003c" + "1a" + s("info") + "1c" + s("other:1883")
            + "26" + s("x") + s("y") + "15" + s("m") + "16" + s("d")));

    /** CONNACK 5.0 with no property. */
    static final String CONNACK_5_BARE = "2003000000";

    private static Object eval(String expr) {
        return RuleCompiler.sample(expr).get(new FakeTxn("GET", "/"));
    }

    private static String field(String packet, String type, String field) {
        Object v = eval("bin(" + packet + "),mqtt_field_value(" + type + "," + field + ")");
        return v == null ? null : Samples.str(v).toString();
    }

    private static String hexField(String packet, String type, String field) {
        Object v = eval("bin(" + packet + "),mqtt_field_value(" + type + "," + field + "),hex");
        return v == null ? null : Samples.str(v).toString();
    }

    private static Object valid(String packet) {
        return eval("bin(" + packet + "),mqtt_is_valid");
    }

    /** A CONNECT 3.1.1 with these flags, a client identifier and nothing else. */
    private static String connectFlags(String flags) {
        return pkt(0x10, s("MQTT") + "04" + flags + "003c" + s("id"));
    }

    /** A CONNECT 5.0 with these properties and a client identifier. */
    private static String connect5(String properties) {
        return pkt(0x10, s("MQTT") + "05" + "02" + "003c" + props(properties) + s("id"));
    }

    @Test
    void connect311Fields() {
        assertThat(valid(CONNECT_311)).isEqualTo(true);
        assertThat(field(CONNECT_311, "connect", "flags")).isEqualTo("238");
        assertThat(field(CONNECT_311, "connect", "protocol_name")).isEqualTo("MQTT");
        assertThat(field(CONNECT_311, "connect", "protocol_version")).isEqualTo("4");
        assertThat(field(CONNECT_311, "connect", "client_identifier")).isEqualTo("cid1");
        assertThat(field(CONNECT_311, "connect", "will_topic")).isEqualTo("wt");
        assertThat(field(CONNECT_311, "connect", "will_payload")).isEqualTo("bye");
        assertThat(field(CONNECT_311, "connect", "username")).isEqualTo("user");
        assertThat(hexField(CONNECT_311, "connect", "password")).isEqualTo("700077");
        assertThat(field(CONNECT_311, "connect", "keepalive")).isEqualTo("60");
        // the output is a string (HAProxy's SMP_T_STR), numbers included
        assertThat(eval("bin(" + CONNECT_311 + "),mqtt_field_value(connect,keepalive)")).isEqualTo("60");
        // the type by number or in any case, the field in any case
        assertThat(field(CONNECT_311, "1", "username")).isEqualTo("user");
        assertThat(field(CONNECT_311, "01", "username")).isEqualTo("user");
        assertThat(field(CONNECT_311, "CoNNeCT", "USERNAME")).isEqualTo("user");
        // MQTT 5.0 properties are not looked for in a 3.1.1 packet, not even as 0
        assertThat(field(CONNECT_311, "connect", "17")).isNull();
        assertThat(field(CONNECT_311, "connect", "1")).isNull();
        assertThat(field(CONNECT_311, "connect", "21")).isNull();
        // another packet type
        assertThat(field(CONNECT_311, "connack", "flags")).isNull();
        assertThat(field(CONNECT_311, "publish", "1")).isNull();
    }

    @Test
    void connect5FieldsAndProperties() {
        assertThat(valid(CONNECT_5)).isEqualTo(true);
        assertThat(field(CONNECT_5, "connect", "flags")).isEqualTo("198");
        assertThat(field(CONNECT_5, "connect", "protocol_version")).isEqualTo("5");
        assertThat(field(CONNECT_5, "connect", "keepalive")).isEqualTo("30");
        assertThat(field(CONNECT_5, "connect", "17")).isEqualTo("300");
        assertThat(field(CONNECT_5, "connect", "33")).isEqualTo("20");
        assertThat(field(CONNECT_5, "connect", "39")).isEqualTo("65536");
        assertThat(field(CONNECT_5, "connect", "34")).isEqualTo("10");
        assertThat(field(CONNECT_5, "connect", "25")).isEqualTo("1");
        assertThat(field(CONNECT_5, "connect", "23")).isEqualTo("0");
        assertThat(field(CONNECT_5, "connect", "21")).isEqualTo("SCRAM");
        assertThat(hexField(CONNECT_5, "connect", "22")).isEqualTo("00AB");
        assertThat(field(CONNECT_5, "connect", "client_identifier")).isEqualTo("c5");
        // the will properties; the will delay interval is 24 (HAProxy's documentation says 18)
        assertThat(field(CONNECT_5, "connect", "24")).isEqualTo("5");
        assertThat(field(CONNECT_5, "connect", "1")).isEqualTo("1");
        assertThat(field(CONNECT_5, "connect", "2")).isEqualTo("3600");
        assertThat(field(CONNECT_5, "connect", "3")).isEqualTo("text/plain");
        assertThat(field(CONNECT_5, "connect", "8")).isEqualTo("resp/t");
        assertThat(hexField(CONNECT_5, "connect", "9")).isEqualTo("00FF");
        assertThat(field(CONNECT_5, "connect", "will_topic")).isEqualTo("wt5");
        assertThat(field(CONNECT_5, "connect", "will_payload")).isEqualTo("gone");
        assertThat(field(CONNECT_5, "connect", "username")).isEqualTo("u5");
        assertThat(field(CONNECT_5, "connect", "password")).isEqualTo("p5");
        // user properties are accepted as an argument but never returned
        assertThat(field(CONNECT_5, "connect", "38")).isNull();
    }

    @Test
    void connect5WithoutPropertiesReadsZeroes() {
        assertThat(valid(CONNECT_5_BARE)).isEqualTo(true);
        // an empty string is not found
        assertThat(field(CONNECT_5_BARE, "connect", "client_identifier")).isNull();
        // absent integer properties read 0, absent strings are not found
        assertThat(field(CONNECT_5_BARE, "connect", "17")).isEqualTo("0");
        assertThat(field(CONNECT_5_BARE, "connect", "33")).isEqualTo("0");
        assertThat(field(CONNECT_5_BARE, "connect", "39")).isEqualTo("0");
        assertThat(field(CONNECT_5_BARE, "connect", "21")).isNull();
        assertThat(field(CONNECT_5_BARE, "connect", "keepalive")).isEqualTo("0");
        // will properties need the will flag
        assertThat(field(CONNECT_5_BARE, "connect", "1")).isNull();
        assertThat(field(CONNECT_5_BARE, "connect", "24")).isNull();
        assertThat(field(CONNECT_5_BARE, "connect", "username")).isNull();
        // MQTT 3.1
        assertThat(valid(CONNECT_31)).isEqualTo(true);
        assertThat(field(CONNECT_31, "connect", "protocol_name")).isEqualTo("MQIsdp");
        assertThat(field(CONNECT_31, "connect", "protocol_version")).isEqualTo("3");
        assertThat(field(CONNECT_31, "connect", "client_identifier")).isEqualTo("old");
    }

    @Test
    void connackFields() {
        assertThat(valid(CONNACK_311)).isEqualTo(true);
        assertThat(field(CONNACK_311, "connack", "flags")).isEqualTo("1");
        assertThat(field(CONNACK_311, "connack", "reason_code")).isEqualTo("0");
        assertThat(field(CONNACK_311, "2", "protocol_version")).isEqualTo("4");
        assertThat(field(CONNACK_311, "connack", "17")).isNull();
        assertThat(field("20020005", "connack", "reason_code")).isEqualTo("5");
        assertThat(field(CONNACK_311, "connect", "flags")).isNull();

        assertThat(valid(CONNACK_5)).isEqualTo(true);
        assertThat(field(CONNACK_5, "connack", "flags")).isEqualTo("1");
        assertThat(field(CONNACK_5, "connack", "reason_code")).isEqualTo("134");
        assertThat(field(CONNACK_5, "connack", "protocol_version")).isEqualTo("5");
        assertThat(field(CONNACK_5, "connack", "17")).isEqualTo("120");
        assertThat(field(CONNACK_5, "connack", "33")).isEqualTo("100");
        assertThat(field(CONNACK_5, "connack", "36")).isEqualTo("1");
        assertThat(field(CONNACK_5, "connack", "37")).isEqualTo("0");
        assertThat(field(CONNACK_5, "connack", "39")).isEqualTo("1048576");
        assertThat(field(CONNACK_5, "connack", "18")).isEqualTo("assigned-1");
        assertThat(field(CONNACK_5, "connack", "34")).isEqualTo("5");
        assertThat(field(CONNACK_5, "connack", "31")).isEqualTo("ok");
        assertThat(field(CONNACK_5, "connack", "40")).isEqualTo("1");
        assertThat(field(CONNACK_5, "connack", "41")).isEqualTo("0");
        assertThat(field(CONNACK_5, "connack", "42")).isEqualTo("1");
        assertThat(field(CONNACK_5, "connack", "19")).isEqualTo("60");
        assertThat(field(CONNACK_5, "connack", "26")).isEqualTo("info");
        assertThat(field(CONNACK_5, "connack", "28")).isEqualTo("other:1883");
        assertThat(field(CONNACK_5, "connack", "21")).isEqualTo("m");
        assertThat(field(CONNACK_5, "connack", "22")).isEqualTo("d");
        assertThat(field(CONNACK_5, "connack", "38")).isNull();

        assertThat(valid(CONNACK_5_BARE)).isEqualTo(true);
        assertThat(field(CONNACK_5_BARE, "connack", "protocol_version")).isEqualTo("5");
        assertThat(field(CONNACK_5_BARE, "connack", "33")).isEqualTo("0");
        assertThat(field(CONNACK_5_BARE, "connack", "18")).isNull();
    }

    @Test
    void truncatedAndMalformed() {
        // fewer than two bytes, or fewer than the remaining length: "may change", no sample
        assertThat(valid("10")).isNull();
        assertThat(eval("str(),mqtt_is_valid")).isNull();
        assertThat(valid(CONNECT_311.substring(0, CONNECT_311.length() - 2))).isNull();
        assertThat(field(CONNECT_311.substring(0, CONNECT_311.length() - 2), "connect", "username")).isNull();
        assertThat(valid("10ffffff7f")).isNull();
        // a remaining length whose fourth byte still continues
        assertThat(valid("10ffffffff")).isEqualTo(false);
        // a remaining length cut by the end of the bytes counts as complete (0 here): then nothing to parse
        assertThat(valid("1080")).isEqualTo(false);
        // bytes after the packet are ignored; a remaining length shorter than what the parse reads is not
        assertThat(valid(CONNECT_311 + "00")).isEqualTo(true);
        assertThat(field(CONNECT_311 + "00", "connect", "username")).isEqualTo("user");
        assertThat(valid("10" + String.format("%02x", CONNECT_311.length() / 2 - 3) + CONNECT_311.substring(4))).isEqualTo(false);
        // a CONNACK 3.1.1 followed by a byte is read as a 5.0 one, whose length then does not match
        assertThat(valid("2002000000")).isEqualTo(false);
        // a properties length cut by the end of the bytes: read as 0, the packet is valid
        assertThat(valid("2003000080")).isEqualTo(true);
        // a property CONNACK does not know: "need more data"
        assertThat(valid("20050000020100")).isNull();
        assertThat(field("20050000020100", "connack", "flags")).isNull();
        assertThat(valid("20020200")).isEqualTo(false);
        assertThat(valid("20010000")).isEqualTo(false);
        assertThat(valid("200100")).isEqualTo(false);
        assertThat(valid(pkt(0x20, "0000" + props("210000")))).isEqualTo(false);
        assertThat(valid(pkt(0x20, "0000" + props("1100000001" + "1100000002")))).isEqualTo(false);
        assertThat(valid(pkt(0x20, "0000" + props("120000")))).isEqualTo(false);
        assertThat(valid(pkt(0x20, "0000" + props("2402")))).isEqualTo(false);
    }

    @Test
    void fixedHeaders() {
        assertThat(valid("0000")).isEqualTo(false);
        assertThat(valid("1100")).isEqualTo(false);
        // PUBLISH must have all four flags set; any other type than CONNECT and CONNACK is invalid anyway
        assertThat(valid("3000")).isEqualTo(false);
        assertThat(valid("3f00")).isEqualTo(false);
        assertThat(valid("6200")).isEqualTo(false);
        assertThat(valid("c000")).isEqualTo(false);
        assertThat(valid("e000")).isEqualTo(false);
        assertThat(field("3f00", "publish", "1")).isNull();
    }

    @Test
    void connectFlagsAndHeader() {
        assertThat(valid(connectFlags("02"))).isEqualTo(true);
        // the reserved bit
        assertThat(valid(connectFlags("03"))).isEqualTo(false);
        // will QoS without will: refused only with both QoS bits and no will retain
        assertThat(valid(connectFlags("18"))).isEqualTo(false);
        assertThat(valid(connectFlags("08"))).isEqualTo(true);
        assertThat(valid(connectFlags("10"))).isEqualTo(true);
        assertThat(valid(connectFlags("20"))).isEqualTo(true);
        assertThat(valid(connectFlags("38"))).isEqualTo(true);
        // a will flag without will topic and payload
        assertThat(valid(connectFlags("04"))).isEqualTo(false);
        // a user name flag without a user name
        assertThat(valid(connectFlags("80"))).isEqualTo(false);
        // a password without a user name
        String pw = pkt(0x10, s("MQTT") + "04" + "42" + "003c" + s("id") + s("pw"));
        assertThat(valid(pw)).isEqualTo(true);
        assertThat(field(pw, "connect", "password")).isEqualTo("pw");
        assertThat(field(pw, "connect", "username")).isNull();
        // the protocol name, any case; the version
        assertThat(valid(pkt(0x10, s("mqtt") + "04" + "02" + "003c" + s("id")))).isEqualTo(true);
        assertThat(field(pkt(0x10, s("mqtt") + "04" + "02" + "003c" + s("id")), "connect", "protocol_name")).isEqualTo("mqtt");
        assertThat(valid(pkt(0x10, s("MQTX") + "04" + "02" + "003c" + s("id")))).isEqualTo(false);
        assertThat(valid(pkt(0x10, s("MQTT") + "06" + "02" + "003c" + s("id")))).isEqualTo(false);
        assertThat(valid(pkt(0x10, s("MQTT") + "03" + "02" + "003c" + s("id")))).isEqualTo(true);
        assertThat(valid(pkt(0x10, s("MQIsdp") + "05" + "02" + "003c" + "00" + s("id")))).isEqualTo(true);
    }

    @Test
    void connect5Properties() {
        assertThat(valid(connect5(""))).isEqualTo(true);
        assertThat(valid(connect5("1701"))).isEqualTo(true);
        assertThat(field(connect5("1701"), "connect", "23")).isEqualTo("1");
        // authentication data without a method, or with an empty one
        assertThat(valid(connect5("16" + s("x")))).isEqualTo(false);
        assertThat(valid(connect5("15" + s("") + "16" + s("x")))).isEqualTo(false);
        assertThat(valid(connect5("15" + s("m") + "16" + s("x")))).isEqualTo(true);
        // out of range, zero, repeated, unknown here, cut
        assertThat(valid(connect5("1702"))).isEqualTo(false);
        assertThat(valid(connect5("210000"))).isEqualTo(false);
        assertThat(valid(connect5("22000122000a"))).isEqualTo(false);
        assertThat(valid(connect5("0101"))).isEqualTo(false);
        assertThat(valid(connect5("26" + s("k")))).isEqualTo(false);
        assertThat(valid(connect5("1100"))).isEqualTo(false);
        // will properties
        String will = pkt(0x10, s("MQTT") + "05" + "06" + "003c" + "00" + s("id") + props("0102") + s("t") + s("p"));
        assertThat(valid(will)).isEqualTo(false);
        String willNoProps = pkt(0x10, s("MQTT") + "05" + "06" + "003c" + "00" + s("id") + "00" + s("t") + s("p"));
        assertThat(valid(willNoProps)).isEqualTo(true);
        assertThat(field(willNoProps, "connect", "1")).isEqualTo("0");
        assertThat(field(willNoProps, "connect", "24")).isEqualTo("0");
        assertThat(field(willNoProps, "connect", "3")).isNull();
        assertThat(field(willNoProps, "connect", "will_topic")).isEqualTo("t");
        // many user properties
        String users = connect5(("26" + s("k") + s("v")).repeat(7));
        assertThat(valid(users)).isEqualTo(true);
        assertThat(field(users, "connect", "38")).isNull();
    }

    @Test
    void packetTypeArgument() {
        // strl2ui takes any character for a digit: ':' is 10 (UNSUBSCRIBE), '?' 15 (AUTH)
        assertThat(MqttConverters.typeId("?")).isEqualTo(15);
        assertThat(MqttConverters.typeId(":")).isEqualTo(10);
        assertThat(MqttConverters.typeId("01")).isEqualTo(1);
        assertThat(MqttConverters.typeId("connack")).isEqualTo(2);
        assertThat(MqttConverters.typeId("0")).isZero();
        assertThat(MqttConverters.typeId("16")).isZero();
        assertThat(field(CONNECT_5, "?", "21")).isNull();
        assertThat(field(CONNECT_5, ":", "38")).isNull();
    }

    @Test
    void argumentErrorsAsHaproxy() {
        assertThatThrownBy(() -> eval("bin(1000),mqtt_field_value(bogus,flags)")).hasMessageContaining("Unknown MQTT type 'bogus'");
        assertThatThrownBy(() -> eval("bin(1000),mqtt_field_value(0,flags)")).hasMessageContaining("Unknown MQTT type '0'");
        assertThatThrownBy(() -> eval("bin(1000),mqtt_field_value(connect,reason_code)"))
                .hasMessageContaining("Unknown MQTT field name 'reason_code' for packet type 'connect'");
        // the documentation's "18: Will Delay Interval" is the Assigned Client Identifier, a CONNACK property
        assertThatThrownBy(() -> eval("bin(1000),mqtt_field_value(connect,18)"))
                .hasMessageContaining("Unknown MQTT field name '18' for packet type 'connect'");
        assertThatThrownBy(() -> eval("bin(1000),mqtt_field_value(CONNACK,username)"))
                .hasMessageContaining("Unknown MQTT field name 'username' for packet type 'CONNACK'");
        assertThatThrownBy(() -> eval("bin(1000),mqtt_field_value(connect,017)"))
                .hasMessageContaining("Unknown MQTT field name '017' for packet type 'connect'");
        assertThatThrownBy(() -> eval("bin(1000),mqtt_field_value(pingreq,)"))
                .hasMessageContaining("Unknown MQTT field name '' for packet type 'pingreq'");
        assertThatThrownBy(() -> eval("bin(1000),mqtt_field_value(connect)")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> eval("bin(1000),mqtt_is_valid(x)")).isInstanceOf(IllegalArgumentException.class);
    }
}

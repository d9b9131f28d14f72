package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code mqtt_is_valid} and {@code mqtt_field_value} converters against HAProxy 2.6
 * ({@link HaproxyParityTest#compareRecording}): every CONNECT and CONNACK field name and property HAProxy knows, on MQTT
 * 3.1, 3.1.1 and 5.0 packets with and without properties, then truncated, malformed and quirky packets, and the packet
 * type argument's quirks. The packets are hand-made constants ({@code bin(<hex>)}); fields that may hold NUL bytes are
 * read through {@code hex}.
 */
class MqttConverterParityTest {
    private static String s(String text) {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
        return String.format("%04x", b.length) + HexFormat.of().formatHex(b);
    }

    private static String varint(int n) {
        StringBuilder sb = new StringBuilder();
        do {
            int x = n % 128;
            n /= 128;
            sb.append(String.format("%02x", n > 0 ? x | 0x80 : x));
        } while (n > 0);
        return sb.toString();
    }

    private static String pkt(int first, String body) {
        return String.format("%02x", first) + varint(body.length() / 2) + body;
    }

    private static String props(String hex) {
        return varint(hex.length() / 2) + hex;
    }

    private static final String CONNECT_311 = pkt(0x10, s("MQTT") + "04" + "ee" + "003c" + s("cid1") + s("wt") + s("bye") + s("user") + "0003700077");
    private static final String CONNECT_5 = pkt(0x10, s("MQTT") + "05" + "c6" + "001e"
            + props("110000012c" + "210014" + "2700010000" + "22000a" + "1901" + "1700" + "26" + s("k") + s("v") + "15" + s("SCRAM")
                    + "16000200ab")
            + s("c5")
            + props("1800000005" + "0101" + "0200000e10" + "03" + s("text/plain") + "08" + s("resp/t") + "09000200ff" + "26" + s("a")
                    + s("b"))
            + s("wt5") + s("gone") + s("u5") + s("p5"));
    private static final String CONNECT_5_BARE = pkt(0x10, s("MQTT") + "05" + "02" + "0000" + "00" + s(""));
    private static final String CONNECT_5_WILL = pkt(0x10, s("MQTT") + "05" + "06" + "003c" + "00" + s("id") + "00" + s("t") + s("p"));
    private static final String CONNECT_31 = pkt(0x10, s("MQIsdp") + "03" + "02" + "003c" + s("old"));
    private static final String CONNACK_311 = "20020100";
    private static final String CONNACK_5 = pkt(0x20, "0186" + props("1100000078" + "210064" + "2401" + "2500" + "2700100000" + "12"
            + s("assigned-1") + "220005" + "1f" + s("ok") + "2801" + "2900" + "2a01" + "13003c" + "1a" + s("info") + "1c" + s("other:1883")
            + "26" + s("x") + s("y") + "15" + s("m") + "16" + s("d")));
    private static final String CONNACK_5_BARE = "2003000000";

    /** CONNECT's fields and properties; those that may hold binary through hex. */
    private static final String[] CONNECT_FIELDS = {
        "flags", "protocol_name", "protocol_version", "client_identifier", "will_topic", "will_payload", "username", "password,hex",
        "keepalive", "17", "33", "39", "34", "25", "23", "21", "22,hex", "24", "1", "2", "3", "8", "9,hex", "38",
    };
    private static final String[] CONNACK_FIELDS = {
        "flags", "protocol_version", "reason_code", "17", "33", "36", "37", "39", "18", "34", "31", "40", "41", "42", "19", "26", "28",
        "38", "21", "22,hex",
    };

    private static String connect(String name, String version, String flags, String rest) {
        return pkt(0x10, s(name) + version + flags + "003c" + rest);
    }

    private static String connect5(String properties) {
        return pkt(0x10, s("MQTT") + "05" + "02" + "003c" + props(properties) + s("id"));
    }

    /** Packets for mqtt_is_valid (and username/flags), by name. */
    private static Map<String, String> oddPackets() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("connect311", CONNECT_311);
        m.put("connect5", CONNECT_5);
        m.put("connect5bare", CONNECT_5_BARE);
        m.put("connect5will", CONNECT_5_WILL);
        m.put("connect31", CONNECT_31);
        m.put("connack311", CONNACK_311);
        m.put("connack5", CONNACK_5);
        m.put("connack5bare", CONNACK_5_BARE);
        // need more data
        m.put("oneByte", "10");
        m.put("cut", CONNECT_311.substring(0, CONNECT_311.length() - 2));
        m.put("bigRemaining", "10ffffff7f");
        // remaining length
        m.put("fiveByteVarint", "10ffffffff");
        m.put("cutVarint", "1080");
        m.put("trailing", CONNECT_311 + "00");
        m.put("shortRemaining", "10" + String.format("%02x", CONNECT_311.length() / 2 - 3) + CONNECT_311.substring(4));
        // fixed headers
        m.put("type0", "0000");
        m.put("connectFlag1", "1100");
        m.put("publish0", "3000");
        m.put("publishF", "3f00");
        m.put("pubrel", "6200");
        m.put("pingreq", "c000");
        m.put("disconnect", "e000");
        // CONNACK
        m.put("connack311Trailing", "2002000000");
        m.put("connackCutPropLen", "2003000080");
        m.put("connackUnknownProp", "20050000020100");
        m.put("connackFlags2", "20020200");
        m.put("connackRemaining1", "20010000");
        m.put("connackOneByte", "200100");
        m.put("connackReceiveMax0", pkt(0x20, "0000" + props("210000")));
        m.put("connackDup", pkt(0x20, "0000" + props("1100000001" + "1100000002")));
        m.put("connackEmptyAssigned", pkt(0x20, "0000" + props("120000")));
        m.put("connackQos2", pkt(0x20, "0000" + props("2402")));
        m.put("connackCutProp", pkt(0x20, "0000" + props("2100")));
        // CONNECT flags and header
        m.put("flags02", connect("MQTT", "04", "02", s("id")));
        m.put("flags03", connect("MQTT", "04", "03", s("id")));
        m.put("flags18", connect("MQTT", "04", "18", s("id")));
        m.put("flags08", connect("MQTT", "04", "08", s("id")));
        m.put("flags10", connect("MQTT", "04", "10", s("id")));
        m.put("flags20", connect("MQTT", "04", "20", s("id")));
        m.put("flags38", connect("MQTT", "04", "38", s("id")));
        m.put("flags1c", connect("MQTT", "04", "1c", s("id") + s("t") + s("p")));
        m.put("willMissing", connect("MQTT", "04", "04", s("id")));
        m.put("userMissing", connect("MQTT", "04", "80", s("id")));
        m.put("passwordOnly", connect("MQTT", "04", "42", s("id") + s("pw")));
        m.put("lowerMqtt", connect("mqtt", "04", "02", s("id")));
        m.put("mqtx", connect("MQTX", "04", "02", s("id")));
        m.put("version6", connect("MQTT", "06", "02", s("id")));
        m.put("mqttV3", connect("MQTT", "03", "02", s("id")));
        m.put("mqisdpV5", connect("MQIsdp", "05", "02", "00" + s("id")));
        m.put("noClientId", connect("MQTT", "04", "02", ""));
        // CONNECT 5.0 properties
        m.put("p1701", connect5("1701"));
        m.put("pAuthDataOnly", connect5("16" + s("x")));
        m.put("pAuthEmptyMethod", connect5("15" + s("") + "16" + s("x")));
        m.put("pAuth", connect5("15" + s("m") + "16" + s("x")));
        m.put("p1702", connect5("1702"));
        m.put("pReceiveMax0", connect5("210000"));
        m.put("pDupTopicAlias", connect5("22000122000a"));
        m.put("pWillPropInHeader", connect5("0101"));
        m.put("pCutUserProp", connect5("26" + s("k")));
        m.put("pCutInt", connect5("1100"));
        m.put("pManyUsers", connect5(("26" + s("k") + s("v")).repeat(7)));
        m.put("pLongerThanPacket", pkt(0x10, s("MQTT") + "05" + "02" + "003c" + "09" + "1100000001"));
        m.put("willPfi2", pkt(0x10, s("MQTT") + "05" + "06" + "003c" + "00" + s("id") + props("0102") + s("t") + s("p")));
        m.put("willDup", pkt(0x10, s("MQTT") + "05" + "06" + "003c" + "00" + s("id") + props("03" + s("a") + "03" + s("b")) + s("t")
                + s("p")));
        return m;
    }

    @Test
    void mqttConvertersAsHaproxy() throws Exception {
        List<String> exprs = new ArrayList<>();
        Map<String, Integer> at = new LinkedHashMap<>();
        Map<String, String> connects = new LinkedHashMap<>();
        connects.put("connect311", CONNECT_311);
        connects.put("connect5", CONNECT_5);
        connects.put("connect5bare", CONNECT_5_BARE);
        connects.put("connect5will", CONNECT_5_WILL);
        connects.put("connect31", CONNECT_31);
        for (var e : connects.entrySet()) {
            for (String f : CONNECT_FIELDS) {
                at.put(e.getKey() + " " + f, exprs.size());
                exprs.add("%[bin(" + e.getValue() + "),mqtt_field_value(connect," + f.replace(",hex", "") + ")" + (f.endsWith(",hex") ? ",hex" : "")
                        + "]");
            }
        }
        Map<String, String> connacks = new LinkedHashMap<>();
        connacks.put("connack311", CONNACK_311);
        connacks.put("connack5", CONNACK_5);
        connacks.put("connack5bare", CONNACK_5_BARE);
        for (var e : connacks.entrySet()) {
            for (String f : CONNACK_FIELDS) {
                at.put(e.getKey() + " " + f, exprs.size());
                exprs.add("%[bin(" + e.getValue() + "),mqtt_field_value(connack," + f.replace(",hex", "") + ")" + (f.endsWith(",hex") ? ",hex" : "")
                        + "]");
            }
        }
        for (var e : oddPackets().entrySet()) {
            at.put(e.getKey() + " valid", exprs.size());
            exprs.add("%[bin(" + e.getValue() + "),mqtt_is_valid]");
            at.put(e.getKey() + " flags", exprs.size());
            exprs.add("%[bin(" + e.getValue() + "),mqtt_field_value(connect,flags)]");
            at.put(e.getKey() + " connack flags", exprs.size());
            exprs.add("%[bin(" + e.getValue() + "),mqtt_field_value(connack,flags)]");
            at.put(e.getKey() + " username", exprs.size());
            exprs.add("%[bin(" + e.getValue() + "),mqtt_field_value(connect,username)]");
        }
        // the packet type: by number, any case, strl2ui's reading of any character as a digit, a type never parsed
        for (String t : new String[] {"1,username", "01,username", "CoNNeCT,USERNAME", "2,flags", "connack,flags", "?,21", ":,38", "publish,1",
            "auth,31", "disconnect,reason_code"}) {
            at.put("type " + t, exprs.size());
            exprs.add("%[bin(" + CONNECT_311 + "),mqtt_field_value(" + t + ")]");
        }
        at.put("publish publish,1", exprs.size());
        exprs.add("%[bin(3f00),mqtt_field_value(publish,1)]");
        // a string input, cast to binary
        at.put("str input", exprs.size());
        exprs.add("%[str(abc),mqtt_is_valid]");

        String config = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:@FE@
                    http-request return status 200 content-type text/plain lf-string "%s"
                """.formatted(String.join("|", exprs));
        List<String> theirs = HaproxyParityTest.compareRecording(config, List.of("fields"), ports -> {
            try (RawClient c = new RawClient(ports[0])) {
                return List.of(c.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read().bodyText());
            }
        });
        String[] v = theirs.get(0).split("\\|", -1);
        assertThat(v).hasSize(exprs.size());
        // what HAProxy answered, for some of them (the compare holds Sluice to all)
        assertThat(v[at.get("connect311 username")]).isEqualTo("user");
        assertThat(v[at.get("connect311 password,hex")]).isEqualTo("700077");
        assertThat(v[at.get("connect311 flags")]).isEqualTo("238");
        assertThat(v[at.get("connect311 17")]).isEmpty();
        assertThat(v[at.get("connect5 17")]).isEqualTo("300");
        assertThat(v[at.get("connect5 24")]).isEqualTo("5");
        assertThat(v[at.get("connect5 9,hex")]).isEqualTo("00FF");
        assertThat(v[at.get("connect5 21")]).isEqualTo("SCRAM");
        assertThat(v[at.get("connect5bare 33")]).isEqualTo("0");
        assertThat(v[at.get("connect5bare client_identifier")]).isEmpty();
        assertThat(v[at.get("connack311 protocol_version")]).isEqualTo("4");
        assertThat(v[at.get("connack5 reason_code")]).isEqualTo("134");
        assertThat(v[at.get("connack5 18")]).isEqualTo("assigned-1");
        assertThat(v[at.get("connack5 38")]).isEmpty();
        assertThat(v[at.get("connect311 valid")]).isEqualTo("1");
        assertThat(v[at.get("trailing valid")]).isEqualTo("1");
        assertThat(v[at.get("cut valid")]).isEmpty();
        assertThat(v[at.get("connack311Trailing valid")]).isEqualTo("0");
        assertThat(v[at.get("connackCutPropLen valid")]).isEqualTo("1");
        assertThat(v[at.get("connackUnknownProp valid")]).isEmpty();
        assertThat(v[at.get("flags18 valid")]).isEqualTo("0");
        assertThat(v[at.get("flags08 valid")]).isEqualTo("1");
        assertThat(v[at.get("pingreq valid")]).isEqualTo("0");
        assertThat(v[at.get("type CoNNeCT,USERNAME")]).isEqualTo("user");
    }
}

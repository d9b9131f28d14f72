package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class KeysTest {

    private static StickTable table(KeyType type, int len) {
        StickTableSpec spec = StickTableSpec.of(type, 100, 0);
        if (type.hasCustomLength()) {
            spec = spec.withKeyLength(len);
        }
        return new StickTable("t", spec, ManualClock.options(new ManualClock(1)));
    }

    @Test
    void ipv4KeysParseStrictlyAndPrintDotted() throws Exception {
        StickTable t = table(KeyType.IP, 4);
        StickKey k = t.parseKey("10.0.0.1");
        assertThat(k.bytes()).containsExactly(10, 0, 0, 1);
        assertThat(t.formatKey(k)).isEqualTo("10.0.0.1");
        assertThat(k).isEqualTo(StickKey.ipv4(0x0A000001)).isEqualTo(t.keyOfAddress(InetAddress.getByName("10.0.0.1")));
        assertThat(t.formatKey(t.parseKey("255.255.255.255"))).isEqualTo("255.255.255.255");
        for (String bad : new String[] {"notanip", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", "", "1..2.3", "example.com"}) {
            assertThat(t.parseKey(bad)).as(bad).isNull();
        }
        // An IPv4-mapped IPv6 address fits an ip table; a real IPv6 one does not.
        assertThat(t.keyOfAddress(InetAddress.getByName("::ffff:10.0.0.1"))).isEqualTo(k);
        assertThat(t.keyOfAddress(InetAddress.getByName("2001:db8::1"))).isNull();
        assertThat(t.keyOfInteger(0x0A000001)).isEqualTo(k);
    }

    @Test
    void ipv6KeysParseAndPrintLikeInetNtop() throws Exception {
        StickTable t = table(KeyType.IPV6, 16);
        String[][] cases = {
            {"2001:db8::1", "2001:db8::1"},
            {"2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1"},
            {"::", "::"},
            {"::1", "::1"},
            {"1::", "1::"},
            {"::ffff:1.2.3.4", "::ffff:1.2.3.4"},
            {"::1.2.3.4", "::1.2.3.4"},
            {"1:0:0:2:0:0:0:3", "1:0:0:2::3"},
            {"1:0:0:2:0:0:3:4", "1::2:0:0:3:4"},
            {"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"},
            {"1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"},
            {"fe80::1:2", "fe80::1:2"},
        };
        for (String[] c : cases) {
            StickKey k = t.parseKey(c[0]);
            assertThat(k).as(c[0]).isNotNull();
            assertThat(t.formatKey(k)).as(c[0]).isEqualTo(c[1]);
            assertThat(k.bytes()).as(c[0]).isEqualTo(InetAddress.getByName(c[0]).getAddress().length == 16
                    ? InetAddress.getByName(c[0]).getAddress() : k.bytes());
        }
        for (String bad : new String[] {"1.2.3.4", ":::", "1:::2", "1::2::3", "12345::", "g::1", "[::1]", "::1%eth0", "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7", "", "1.2.3.4::"}) {
            assertThat(t.parseKey(bad)).as(bad).isNull();
        }
        // IPv4 samples are mapped into ::ffff:a.b.c.d.
        assertThat(t.formatKey(t.keyOfAddress(InetAddress.getByName("10.1.2.3")))).isEqualTo("::ffff:10.1.2.3");
    }

    @Test
    void integerKeysAreUnsigned32Bit() {
        StickTable t = table(KeyType.INTEGER, 4);
        assertThat(t.formatKey(t.parseKey("0"))).isEqualTo("0");
        assertThat(t.formatKey(t.parseKey("4294967295"))).isEqualTo("4294967295");
        assertThat(t.parseKey("4294967296")).isNull();
        assertThat(t.parseKey("-1")).isNull();
        assertThat(t.parseKey("12a")).isNull();
        // A 64-bit sample keeps its low 32 bits, as HAProxy's cast does.
        assertThat(t.keyOfInteger(0x1_0000_0005L)).isEqualTo(t.parseKey("5"));
        assertThat(t.formatKey(t.keyOfInteger(-1))).isEqualTo("4294967295");
    }

    @Test
    void stringKeysAreTruncatedToLen() {
        StickTable t = table(KeyType.STRING, 5);
        StickKey k = t.keyOfString("abcdefgh");
        assertThat(k.length()).isEqualTo(5);
        assertThat(t.formatKey(k)).isEqualTo("abcde");
        assertThat(k).isEqualTo(t.keyOfString("abcdeXYZ")).isNotEqualTo(t.keyOfString("abcd"));
        assertThat(t.keyOfString("ab").length()).isEqualTo(2);
        // Default length is 32.
        assertThat(table(KeyType.STRING, 32).keyOfString("x".repeat(40)).length()).isEqualTo(32);
        // Latin-1 chars map to single bytes; anything wider falls back to UTF-8.
        assertThat(t.keyOfString("\u00e9").bytes()).containsExactly(0xE9);
        assertThat(t.keyOfString("\u20ac").bytes()).containsExactly(0xE2, 0x82, 0xAC);
    }

    @Test
    void stringKeysAreEscapedLikeDumpText() {
        StickTable t = table(KeyType.STRING, 64);
        assertThat(t.formatKey(t.keyOfString("/index.html"))).isEqualTo("/index.html");
        assertThat(t.formatKey(t.keyOfString("a b=c\\d\te\nf\rg\u001bh\u0001i\u00ff"))).isEqualTo("a\\ b\\=c\\\\d\\te\\nf\\rg\\eh\\x01i\\xFF");
        assertThat(t.formatKey(t.keyOfBytes(new byte[] {'a', 0, 'b'}))).isEqualTo("a");
    }

    @Test
    void binaryKeysAreZeroPaddedAndPrintedInHex() {
        StickTable t = table(KeyType.BINARY, 4);
        StickKey k = t.keyOfBytes(new byte[] {(byte) 0xAB, 1});
        assertThat(k.bytes()).containsExactly(0xAB, 1, 0, 0);
        assertThat(t.formatKey(k)).isEqualTo("AB010000");
        assertThat(t.keyOfBytes(new byte[] {1, 2, 3, 4, 5, 6})).isEqualTo(t.keyOfBytes(new byte[] {1, 2, 3, 4}));
        assertThat(t.keyOfString("ab").bytes()).containsExactly('a', 'b', 0, 0);
        // Default length 32.
        assertThat(table(KeyType.BINARY, 32).keyOfBytes(new byte[1]).length()).isEqualTo(32);
        // The CLI cannot address binary keys.
        assertThat(t.parseKey("AB010000")).isNull();
    }

    @Test
    void keysSpreadOverShards() {
        StickTable t = table(KeyType.IP, 4);
        int[] hits = new int[t.shardCount()];
        for (int i = 0; i < 16_000; i++) {
            hits[t.shardIndex(StickKey.ipv4(0x0A000000 + i))]++;
        }
        assertThat(hits).hasSize(TableOptions.DEFAULT_SHARDS);
        for (int h : hits) {
            assertThat(h).isBetween(700, 1300);
        }
    }
}

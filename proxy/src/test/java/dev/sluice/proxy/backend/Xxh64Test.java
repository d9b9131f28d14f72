package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.rules.XxHash;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** XXH64 ({@link XxHash}) against the reference vectors, and HAProxy's dynamic cookie against what haproxy 2.6 computed. */
class Xxh64Test {

    @Test
    void referenceVectors() {
        assertThat(XxHash.xxh64(new byte[0], 0)).isEqualTo(0xEF46DB3751D8E999L);
        assertThat(XxHash.xxh64("a".getBytes(StandardCharsets.US_ASCII), 0)).isEqualTo(0xD24EC4F1A98C6E5BL);
        assertThat(XxHash.xxh64("abc".getBytes(StandardCharsets.US_ASCII), 0)).isEqualTo(0x44BC2CF5AD770999L);
    }

    @Test
    void longInputsTakeTheStripedPath() {
        byte[] in = new byte[100];
        for (int i = 0; i < in.length; i++) {
            in[i] = (byte) i;
        }
        // every length from 0 to 100 hashes differently (the 32-byte stripes, the 8, 4 and 1-byte tails)
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (int n = 0; n <= in.length; n++) {
            seen.add(XxHash.xxh64(java.util.Arrays.copyOf(in, n), 0));
        }
        assertThat(seen).hasSize(101);
    }

    @Test
    void dynamicCookieIsHaproxys() {
        // haproxy 2.6.12: dynamic-cookie-key mysecret, server 127.0.0.1:19001 -> set-cookie SRV=4e72904fb66e8b79
        assertThat(DynamicCookie.value("mysecret", new InetSocketAddress("127.0.0.1", 19001))).isEqualTo("4e72904fb66e8b79");
        assertThat(DynamicCookie.value("mysecret", InetSocketAddress.createUnresolved("x", 1))).isNull();
    }
}

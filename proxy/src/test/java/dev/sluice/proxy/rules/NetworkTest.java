package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** CIDR and dotted-mask networks, and address text as inet_ntop writes it (RFC 5952). */
class NetworkTest {

    private static InetAddress ip(String s) {
        return InetAddress.ofLiteral(s);
    }

    /** An IPv4-mapped IPv6 address kept as an {@link Inet6Address} (InetAddress would turn it into IPv4). */
    private static InetAddress mapped(String v4) {
        byte[] a = new byte[16];
        a[10] = (byte) 0xff;
        a[11] = (byte) 0xff;
        System.arraycopy(ip(v4).getAddress(), 0, a, 12, 4);
        try {
            return Inet6Address.getByAddress(null, a, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static Inet6Address v6(byte[] a) {
        try {
            return Inet6Address.getByAddress(null, a, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    // ------------------------------------------------------------------ contains

    @ParameterizedTest
    @CsvSource({
        "10.0.0.0/8, 10.0.0.0, true", "10.0.0.0/8, 10.255.255.255, true", "10.0.0.0/8, 10.1.2.3, true", "10.0.0.0/8, 11.0.0.0, false",
        "10.0.0.0/8, 9.255.255.255, false",
        "192.168.1.0/24, 192.168.1.0, true", "192.168.1.0/24, 192.168.1.255, true", "192.168.1.0/24, 192.168.2.0, false",
        "172.16.0.0/12, 172.16.0.0, true", "172.16.0.0/12, 172.31.255.255, true", "172.16.0.0/12, 172.32.0.0, false",
        "172.16.0.0/12, 172.15.255.255, false",
        "192.168.1.128/25, 192.168.1.200, true", "192.168.1.128/25, 192.168.1.127, false",
        "203.0.113.7/31, 203.0.113.6, true", "203.0.113.7/31, 203.0.113.8, false",
        "127.0.0.1/32, 127.0.0.1, true", "127.0.0.1/32, 127.0.0.2, false",
        "127.0.0.1, 127.0.0.1, true", "127.0.0.1, 127.0.0.2, false",
        "0.0.0.0/0, 1.2.3.4, true", "0.0.0.0/0, 255.255.255.255, true",
        // host bits in the network are ignored
        "10.1.2.3/8, 10.200.0.1, true", "192.168.1.77/24, 192.168.1.1, true", "192.168.1.77/24, 192.168.0.77, false",
        // dotted masks
        "10.0.0.0/255.0.0.0, 10.9.9.9, true", "10.0.0.0/255.0.0.0, 11.9.9.9, false",
        "192.168.1.0/255.255.255.0, 192.168.1.9, true", "192.168.1.0/255.255.255.0, 192.168.2.9, false",
        "172.16.0.0/255.240.0.0, 172.31.0.1, true", "172.16.0.0/255.240.0.0, 172.32.0.1, false",
        "192.168.1.128/255.255.255.128, 192.168.1.129, true", "192.168.1.128/255.255.255.128, 192.168.1.1, false",
        "1.2.3.4/255.255.255.255, 1.2.3.4, true", "1.2.3.4/255.255.255.255, 1.2.3.5, false",
        "0.0.0.0/0.0.0.0, 8.8.8.8, true",
        // IPv6
        "2001:db8::/32, 2001:db8::1, true", "2001:db8::/32, 2001:db8:ffff:ffff:ffff:ffff:ffff:ffff, true",
        "2001:db8::/32, 2001:db9::1, false", "2001:db8::/32, 2001:db7:ffff::1, false",
        "fe80::/10, fe80::1, true", "fe80::/10, febf:ffff::1, true", "fe80::/10, fec0::1, false",
        "2001:db8:abcd:12::/64, 2001:db8:abcd:12:1:2:3:4, true", "2001:db8:abcd:12::/64, 2001:db8:abcd:13::1, false",
        "::1, ::1, true", "::1/128, ::1, true", "::1/128, ::2, false", "::/0, 2001:db8::1, true", "::/0, ::, true",
        "2001:db8::8/125, 2001:db8::f, true", "2001:db8::8/125, 2001:db8::10, false",
        // families do not mix
        "10.0.0.0/8, ::1, false", "0.0.0.0/0, 2001:db8::1, false", "::/0, 10.0.0.1, false", "::1, 127.0.0.1, false"})
    void contains(String network, String address, boolean expected) {
        assertThat(Network.parse(network).contains(ip(address))).as("%s contains %s", network, address).isEqualTo(expected);
    }

    @Test
    void ipv4MappedAddressesMatchIpv4Networks() {
        assertThat(mapped("10.1.2.3")).isInstanceOf(Inet6Address.class);
        assertThat(Network.parse("10.0.0.0/8").contains(mapped("10.1.2.3"))).isTrue();
        assertThat(Network.parse("10.0.0.0/8").contains(mapped("11.1.2.3"))).isFalse();
        assertThat(Network.parse("127.0.0.1").contains(mapped("127.0.0.1"))).isTrue();
        assertThat(Network.parse("192.168.0.0/255.255.0.0").contains(mapped("192.168.44.1"))).isTrue();
        assertThat(Network.parse("0.0.0.0/0").contains(mapped("1.1.1.1"))).isTrue();
    }

    @Test
    void onlyMappedIpv6AddressesAreSeenAsIpv4() {
        // IPv4-compatible (::a.b.c.d) and other embeddings are not
        byte[] compat = new byte[16];
        System.arraycopy(ip("10.1.2.3").getAddress(), 0, compat, 12, 4);
        assertThat(Network.parse("10.0.0.0/8").contains(v6(compat))).isFalse();
        byte[] almost = mapped("10.1.2.3").getAddress();
        almost[9] = 1;
        assertThat(Network.parse("10.0.0.0/8").contains(v6(almost))).isFalse();
        byte[] half = mapped("10.1.2.3").getAddress();
        half[10] = 0;
        assertThat(Network.parse("10.0.0.0/8").contains(v6(half))).isFalse();
    }

    @Test
    void mappedLiteralsBecomeIpv4() {
        // the JDK turns an IPv4-mapped literal into an IPv4 address: such a network is an IPv4 host
        Network n = Network.parse("::ffff:10.1.2.3");
        assertThat(n.contains(ip("10.1.2.3"))).isTrue();
        assertThat(n.contains(mapped("10.1.2.3"))).isTrue();
        assertThat(n.contains(ip("10.1.2.4"))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "nope", "10.0.0.0.0", "256.0.0.1", "10.0.0.0/", "10.0.0.0/x", "10.0.0.0/33", "10.0.0.0/-1",
        "::1/129", "2001:db8::/200", "10.0.0.0/255.0.0.x", "10.0.0.0/255.0.0.256", "example.com", "example.com/8", "10.0.0.0/8/8",
        "10.0.0.0/ 8"})
    void invalidNetworksAreRejected(String s) {
        assertThatThrownBy(() -> Network.parse(s)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void boundaryPrefixesAreAccepted() {
        assertThat(Network.parse("1.2.3.4/32").contains(ip("1.2.3.4"))).isTrue();
        assertThat(Network.parse("1.2.3.4/0").contains(ip("4.3.2.1"))).isTrue();
        assertThat(Network.parse("::1/128").contains(ip("::1"))).isTrue();
        assertThat(Network.parse("::1/0").contains(ip("ffff::"))).isTrue();
    }

    // ------------------------------------------------------------------ format

    @ParameterizedTest
    @CsvSource({
        "127.0.0.1, 127.0.0.1", "0.0.0.0, 0.0.0.0", "255.255.255.255, 255.255.255.255", "10.0.0.1, 10.0.0.1",
        "::1, ::1", "::, ::", "0:0:0:0:0:0:0:0, ::", "2001:db8::1, 2001:db8::1", "2001:0db8:0000:0000:0000:0000:0000:0001, 2001:db8::1",
        "1::, 1::", "1:0:0:0:0:0:0:0, 1::", "fe80::1, fe80::1", "2001:DB8::A, 2001:db8::a", "ABCD:EF01:2345:6789:ABCD:EF01:2345:6789, "
        + "abcd:ef01:2345:6789:abcd:ef01:2345:6789",
        // no compression of a single zero group
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1", "0:1:2:3:4:5:6:7, 0:1:2:3:4:5:6:7", "1:2:3:4:5:6:7:0, 1:2:3:4:5:6:7:0",
        "0:1:0:1:0:1:0:1, 0:1:0:1:0:1:0:1",
        // the longest run is compressed
        "2001:0:0:1:0:0:0:1, 2001:0:0:1::1", "1:0:0:0:1:0:0:1, 1::1:0:0:1", "0:0:1:0:0:0:1:1, 0:0:1::1:1",
        // the first run on ties
        "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1", "0:0:1:1:0:0:1:1, ::1:1:0:0:1:1", "1:0:0:1:1:0:0:1, 1::1:1:0:0:1",
        // runs at either end
        "0:0:0:1:2:3:4:5, ::1:2:3:4:5", "1:2:3:4:5:0:0:0, 1:2:3:4:5::", "0:0:1:2:3:4:0:0, ::1:2:3:4:0:0",
        "1:0:0:0:0:0:0:1, 1::1", "0:0:0:0:0:0:1:0, ::1:0",
        // leading zeros dropped in each group
        "2001:db8:00a0:0b00:0c00:000d:e000:000f, 2001:db8:a0:b00:c00:d:e000:f"})
    void format(String literal, String expected) {
        assertThat(Network.format(ip(literal))).isEqualTo(expected);
    }

    @Test
    void formatIgnoresTheScope() throws Exception {
        InetAddress scoped = Inet6Address.getByAddress(null, ip("fe80::1").getAddress(), 3);
        assertThat(Network.format(scoped)).isEqualTo("fe80::1");
    }

    @Test
    void formatWritesMappedAddressesWithADottedQuad() {
        // RFC 5952 section 5 and inet_ntop
        assertThat(Network.format(mapped("10.1.2.3"))).isEqualTo("::ffff:10.1.2.3");
        assertThat(Network.format(mapped("0.0.0.0"))).isEqualTo("::ffff:0.0.0.0");
        assertThat(Network.format(mapped("255.255.255.255"))).isEqualTo("::ffff:255.255.255.255");
    }

    @Test
    void formatOfIpv4() {
        assertThat(Network.format(ip("192.0.2.1"))).isEqualTo("192.0.2.1");
        assertThat(ip("::ffff:192.0.2.1")).isInstanceOf(Inet4Address.class);
        assertThat(Network.format(ip("::ffff:192.0.2.1"))).isEqualTo("192.0.2.1");
    }
}

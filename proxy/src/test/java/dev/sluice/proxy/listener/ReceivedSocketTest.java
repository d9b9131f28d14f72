package dev.sluice.proxy.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.BindSocket;
import dev.sluice.config.model.ListenAddress;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which received socket a {@code bind} takes: HAProxy's sockets (IPv4 ones on AF_INET) and Sluice's (IPv4 on Netty's
 * dual-stack AF_INET6 sockets), the options that are matched, the kinds that never are.
 */
class ReceivedSocketTest {
    private static final int INET = PassingCalls.AF_INET;
    private static final int INET6 = PassingCalls.AF_INET6;

    static ReceivedSocket tcp(int family, String addr, int port) {
        return new ReceivedSocket(3, family, address(addr), port, false, true, false, false, "", "");
    }

    static InetAddress address(String a) {
        try {
            return InetAddress.getByName(a);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static ListenAddress.Inet at(String host, int port) {
        return new ListenAddress.Inet(host, port);
    }

    static BindSocket opts(boolean transparent, boolean v4v6, boolean v6only, String iface) {
        return new BindSocket(null, -1, 0, false, false, transparent, v4v6, v6only, 0, 0, iface);
    }

    @Test
    void anIpv4AddressTakesHaproxysSocketOrSluicesMappedOne() {
        BindSocket none = BindSocket.DEFAULT;
        assertThat(tcp(INET, "127.0.0.1", 80).matches(at("127.0.0.1", 80), none)).isTrue();
        // getsockname's ::ffff:127.0.0.1 on an AF_INET6 socket
        assertThat(tcp(INET6, "127.0.0.1", 80).matches(at("127.0.0.1", 80), none)).isTrue();
        assertThat(tcp(INET, "127.0.0.1", 81).matches(at("127.0.0.1", 80), none)).isFalse();
        assertThat(tcp(INET, "127.0.0.2", 80).matches(at("127.0.0.1", 80), none)).isFalse();
        assertThat(tcp(INET, "0.0.0.0", 80).matches(at("127.0.0.1", 80), none)).isFalse();
    }

    @Test
    void theWildcardTakesHaproxysIpv4SocketOrSluicesDualStackOne() {
        BindSocket none = BindSocket.DEFAULT;
        for (String host : List.of("", "0.0.0.0")) {
            assertThat(tcp(INET, "0.0.0.0", 80).matches(at(host, 80), none)).as(host).isTrue();
            assertThat(tcp(INET6, "::", 80).matches(at(host, 80), none)).as(host).isTrue();
            ReceivedSocket v6only = new ReceivedSocket(3, INET6, address("::"), 80, false, true, true, false, "", "");
            assertThat(v6only.matches(at(host, 80), none)).as("an IPv6-only socket does not take IPv4").isFalse();
            assertThat(tcp(INET6, "::1", 80).matches(at(host, 80), none)).isFalse();
        }
    }

    @Test
    void anIpv6AddressWantsTheSameV6only() {
        ReceivedSocket dual = tcp(INET6, "::", 443);
        ReceivedSocket only = new ReceivedSocket(3, INET6, address("::"), 443, false, true, true, false, "", "");
        assertThat(dual.matches(at("::", 443), BindSocket.DEFAULT)).isTrue();
        assertThat(dual.matches(at("::", 443), opts(false, true, false, null))).isTrue();
        assertThat(dual.matches(at("::", 443), opts(false, false, true, null))).isFalse();
        assertThat(only.matches(at("::", 443), opts(false, false, true, null))).isTrue();
        assertThat(only.matches(at("::", 443), BindSocket.DEFAULT)).isFalse();
        // the kernel sets IPV6_V6ONLY when it binds a given IPv6 address: whatever the bind says, the socket is the same
        ReceivedSocket loopback = new ReceivedSocket(3, INET6, address("::1"), 443, false, true, true, false, "", "");
        assertThat(loopback.matches(at("::1", 443), BindSocket.DEFAULT)).isTrue();
        assertThat(loopback.matches(at("::1", 443), opts(false, false, true, null))).isTrue();
        assertThat(tcp(INET6, "::1", 443).matches(at("::1", 443), BindSocket.DEFAULT)).isTrue();
        assertThat(tcp(INET6, "::1", 443).matches(at("::2", 443), BindSocket.DEFAULT)).isFalse();
        assertThat(tcp(INET, "0.0.0.0", 443).matches(at("::", 443), BindSocket.DEFAULT)).isFalse();
    }

    @Test
    void transparentInterfaceAndNamespaceMustAgree() {
        ReceivedSocket plain = tcp(INET, "10.0.0.1", 80);
        ReceivedSocket transparent = new ReceivedSocket(3, INET, address("10.0.0.1"), 80, false, true, false, true, "", "");
        ReceivedSocket onEth0 = new ReceivedSocket(3, INET, address("10.0.0.1"), 80, false, true, false, false, "eth0", "");
        ReceivedSocket inNamespace = new ReceivedSocket(3, INET, address("10.0.0.1"), 80, false, true, false, false, "", "blue");
        ListenAddress.Inet a = at("10.0.0.1", 80);
        assertThat(plain.matches(a, opts(true, false, false, null))).isFalse();
        assertThat(transparent.matches(a, opts(true, false, false, null))).isTrue();
        assertThat(transparent.matches(a, BindSocket.DEFAULT)).isFalse();
        assertThat(onEth0.matches(a, opts(false, false, false, "eth0"))).isTrue();
        assertThat(onEth0.matches(a, opts(false, false, false, "eth1"))).isFalse();
        assertThat(onEth0.matches(a, BindSocket.DEFAULT)).isFalse();
        assertThat(plain.matches(a, opts(false, false, false, "eth0"))).isFalse();
        // Sluice's binds have no namespace
        assertThat(inNamespace.matches(a, BindSocket.DEFAULT)).isFalse();
    }

    @Test
    void onlyListeningStreamSockets() {
        ReceivedSocket udp = new ReceivedSocket(3, INET, address("0.0.0.0"), 443, true, false, false, false, "", "");
        ReceivedSocket notListening = new ReceivedSocket(3, INET, address("0.0.0.0"), 443, false, false, false, false, "", "");
        ReceivedSocket unix = new ReceivedSocket(3, PassingCalls.AF_UNIX, null, 0, false, true, false, false, "", "");
        assertThat(udp.matches(at("", 443), BindSocket.DEFAULT)).isFalse();
        assertThat(notListening.matches(at("", 443), BindSocket.DEFAULT)).isFalse();
        assertThat(unix.matches(at("", 0), BindSocket.DEFAULT)).isFalse();
        assertThat(udp.describe()).isEqualTo("udp 0.0.0.0:443");
        assertThat(unix.describe()).isEqualTo("a UNIX socket");
        assertThat(tcp(INET6, "::", 80).describe()).isEqualTo("[0:0:0:0:0:0:0:0]:80");
    }

    @Test
    void eachSocketGoesToOneBindAndQuicOrInheritedBindsTakeNone() {
        ReceivedSocket a = new ReceivedSocket(7, INET, address("127.0.0.1"), 80, false, true, false, false, "", "");
        ReceivedSocket b = new ReceivedSocket(8, INET6, address("::"), 443, false, true, false, false, "", "");
        ReceivedSockets got = new ReceivedSockets(List.of(a, b));
        SourceRef at = new SourceRef("t.cfg", 1);
        assertThat(got.take(new Bind(at, new ListenAddress.Quic("0.0.0.0", 443), "quic4@:443"))).isEqualTo(-1);
        assertThat(got.take(new Bind(at, new ListenAddress.InheritedFd(8), "fd@8"))).isEqualTo(-1);
        assertThat(got.take(new Bind(at, at("127.0.0.1", 80), "127.0.0.1:80"))).isEqualTo(7);
        assertThat(got.take(new Bind(at, at("127.0.0.1", 80), "127.0.0.1:80"))).as("taken already").isEqualTo(-1);
        assertThat(got.left()).containsExactly(b);
        assertThat(got.take(new Bind(at, at("", 443), ":443"))).isEqualTo(8);
        assertThat(got.left()).isEmpty();
        assertThat(got.closeUnused()).isEmpty();
    }

    static ReceivedSocket unix(String path) {
        return new ReceivedSocket(3, PassingCalls.AF_UNIX, null, 0, false, true, false, false, "", "", path);
    }

    @Test
    void aUnixPathTakesTheSocketBoundUnderItsTemporaryName() {
        ListenAddress.Unix at = new ListenAddress.Unix("/run/fe.sock");
        assertThat(unix("/run/fe.sock.1234.tmp").matchesUnix(at)).isTrue();
        assertThat(unix("/run/fe.sock").matchesUnix(at)).isTrue();
        assertThat(unix("/run/fe.sock.12x4.tmp").matchesUnix(at)).isFalse();
        assertThat(unix("/run/fe.sock.1234.bak").matchesUnix(at)).isFalse();
        assertThat(unix("/run/other.sock.1234.tmp").matchesUnix(at)).isFalse();
        assertThat(unix("/run/fe.sock.1234.tmp").describe()).isEqualTo("unix@/run/fe.sock.1234.tmp");
        // a socket of the network never matches a UNIX bind, nor a UNIX socket a TCP one
        assertThat(tcp(INET, "127.0.0.1", 80).matchesUnix(at)).isFalse();
        assertThat(unix("/run/fe.sock").matches(at("127.0.0.1", 80), BindSocket.DEFAULT)).isFalse();
    }

    @Test
    void anAbstractNameTakesTheSocketWithHaproxysPaddedAddress() {
        String padded = "\0fe" + "\0".repeat(105);
        ListenAddress.Abstract at = new ListenAddress.Abstract("fe");
        assertThat(unix(padded).matchesUnix(at)).isTrue();
        // bound by a program that does not pad: another address
        assertThat(unix("\0fe").matchesUnix(at)).isFalse();
        assertThat(unix(padded).matchesUnix(new ListenAddress.Abstract("fe2"))).isFalse();
        assertThat(unix(padded).matchesUnix(new ListenAddress.Unix("fe"))).isFalse();
        assertThat(unix(padded).describe()).isEqualTo("abns@fe");
    }
}

package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client connection's socket fetches where no socket is needed: their arguments, what they give without a TCP socket,
 * and the local-address test (the values on a real socket are compared with HAProxy 2.6's in SampleParityTest).
 */
class ConnectionFetchesTest {
    private static final ProxyNames NAMES = new ProxyNames().add("fe", true, false, List.of());

    private static Object get(String expr, FakeTxn t) {
        return CompileScope.in(new StickTables().names(NAMES), "fe", null, () -> RuleCompiler.sample(expr)).get(t);
    }

    @Test
    void timesTakeUsOrMsAndNothingElse() {
        FakeTxn t = new FakeTxn("GET", "/");
        assertThat(get("fc_rtt(us)", t)).isNull();
        assertThat(get("fc_rttvar(ms)", t)).isNull();
        assertThatThrownBy(() -> get("fc_rtt(s)", t)).hasMessageContaining("expects 'us' or 'ms', got 's'");
        // a counter ignores an argument, as HAProxy 2.6 does (it warns)
        assertThat(get("fc_retrans(x)", t)).isNull();
    }

    @Test
    void withoutATcpSocketThereIsNoTcpInfo() {
        assertThat(FetchesConnection.tcpInfo(null)).isNull();
        EmbeddedChannel ch = new EmbeddedChannel();
        assertThat(FetchesConnection.tcpInfo(ch)).isNull();
        ch.finishAndReleaseAll();
    }

    @Test
    void httpMajorOnlyOnHttpStreams() {
        // FakeTxn is not an HTTP stream: no sample, as on HAProxy's raw (TCP) mux
        assertThat(get("fc_http_major", new FakeTxn("GET", "/"))).isNull();
    }

    @Test
    void localAddressesAreThoseTheSystemCanBindTo() throws Exception {
        assertThat(FetchesConnection.isLocal(InetAddress.getByName("127.0.0.1"))).isTrue();
        // all of 127/8 is the loopback's
        assertThat(FetchesConnection.isLocal(InetAddress.getByName("127.3.4.5"))).isTrue();
        assertThat(FetchesConnection.isLocal(InetAddress.getByName("::1"))).isTrue();
        // TEST-NET-1: on no interface here
        assertThat(FetchesConnection.isLocal(InetAddress.getByName("192.0.2.1"))).isFalse();
    }
}

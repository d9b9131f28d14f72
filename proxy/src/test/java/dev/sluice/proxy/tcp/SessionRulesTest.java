package dev.sluice.proxy.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import dev.sluice.sticktable.DataType;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickTable;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tcp-request session} rules on embedded channels, in a TCP and in an HTTP frontend: a rejected session is closed
 * without a stream nor a log line and counted as HAProxy 2.6 counts it (live: {@code conn_tot} 1, {@code dses} 1,
 * {@code stot} 0); an accepted one goes on, with the stick counters its rules track counting the session.
 */
class SessionRulesTest {
    private final LogCatcher log = new LogCatcher();
    private EmbeddedProxy proxy;

    @AfterEach
    void tearDown() {
        if (proxy != null) {
            proxy.close();
        }
        log.close();
    }

    private EmbeddedProxy proxy(String mode, String rule) {
        proxy = EmbeddedProxy.of("""
                defaults
                    mode %s
                    %s
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend f
                    bind 127.0.0.1:8080
                    stick-table type ip size 10 expire 1m store sess_cnt,conn_cnt
                    %s
                    default_backend b
                backend b
                    server s1 127.0.0.1:9001
                """.formatted(mode, log.logLine(), rule), "f");
        return proxy;
    }

    private static void assertRejected(EmbeddedProxy p, EmbeddedChannel client) {
        assertThat(client.isOpen()).isFalse();
        assertThat(p.servers()).isEmpty();
        Counters.Snapshot s = p.frontend().snapshot();
        assertThat(s.get(Counter.CONNECTIONS)).isEqualTo(1);
        assertThat(s.get(Counter.DENIED_SESSIONS)).isEqualTo(1);
        assertThat(s.get(Counter.DENIED_CONNECTIONS)).isZero();
        assertThat(s.get(Counter.SESSIONS)).isZero();
    }

    @Test
    void aRejectedTcpSessionClosesWithoutAStreamNorALine() {
        EmbeddedProxy p = proxy("tcp", "tcp-request session reject if { src 127.0.0.1 }");
        // closed as soon as it starts: before reading anything
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        assertRejected(p, client);
        assertThat(log.poll(200)).isNull();
    }

    @Test
    void aRejectedHttpSessionClosesWithoutAnAnswer() {
        EmbeddedProxy p = proxy("http", "tcp-request session reject if { src 127.0.0.1 }");
        EmbeddedChannel client = p.h1Client();
        p.run();
        assertRejected(p, client);
        assertThat((Object) client.readOutbound()).isNull();
    }

    @Test
    void anAcceptedSessionIsTrackedAndCounted() {
        EmbeddedProxy p = proxy("tcp", "tcp-request session track-sc0 src unless { src 10.0.0.0/8 }");
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("hello");
        p.run();
        assertThat(p.servers()).hasSize(1);
        assertThat(p.frontend().snapshot().get(Counter.SESSIONS)).isEqualTo(1);
        assertThat(p.frontend().snapshot().get(Counter.DENIED_SESSIONS)).isZero();
        StickTable table = p.tables().get("f");
        StickEntry e = table.lookup(table.keyOfAddress(EmbeddedProxy.CLIENT.getAddress()));
        // tracked by the session rule, before the session was counted
        assertThat(e.get(DataType.SESS_CNT)).isEqualTo(1);
    }
}

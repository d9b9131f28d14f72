package dev.sluice.proxy.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import dev.sluice.proxy.stats.Counter;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code mode tcp} frontend on embedded channels: {@link TcpClientConnection}, the stream it creates and the
 * {@link TcpServerConnection} the layer-4 connector opens, driven by hand with a mock clock. Bytes both ways, FINs
 * carried and the clean end ({@code --}); a refused server through its retries and HAProxy's turn-around ({@code SC});
 * a frontend without a backend; a server reset ({@code SD}, srv_abrt); {@code timeout client} ({@code cD}); a
 * {@code use_backend} condition on HTTP samples, which does not apply to a stream without a request. The log lines
 * come from the real log writer through a UDP catcher.
 */
class TcpStreamTest {
    private final LogCatcher log = new LogCatcher();
    private EmbeddedProxy proxy;

    private EmbeddedProxy proxy(String frontend, String rest) {
        proxy = EmbeddedProxy.of("""
                defaults
                    mode tcp
                    %s
                    option tcplog
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                """.formatted(log.logLine()) + rest, frontend);
        return proxy;
    }

    @AfterEach
    void tearDown() {
        if (proxy != null) {
            proxy.close();
        }
        log.close();
    }

    /** The fields of a tcplog line from the flags on: {@code ts ac/fc/bc/sc/rc sq/bq}, and what precedes them. */
    private static String[] fields(String line) {
        return line.split(" ");
    }

    @Test
    void bytesGoBothWaysAndTheStreamEndsWhenBothFinsAreCarried() {
        EmbeddedProxy p = proxy("l", """
                listen l
                    bind 127.0.0.1:8080
                    server s1 127.0.0.1:9001
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        client.receive("hello");
        assertThat(server.readText()).isEqualTo("hello");
        server.receive("world!");
        assertThat(client.readText()).isEqualTo("world!");
        client.receiveFin();
        p.run();
        assertThat(server.outputShut()).isTrue();
        assertThat(client.isOpen()).isTrue();
        server.receiveFin();
        p.run();
        assertThat(client.outputShut()).isTrue();
        assertThat(client.isOpen()).isFalse();
        assertThat(server.isOpen()).isFalse();
        String[] f = fields(log.next());
        assertThat(f[2]).isEqualTo("l");
        assertThat(f[3]).isEqualTo("l/s1");
        // Tw/Tc/Tt on the real clock: a slot was had (Tw is the wait plus one), never -1
        assertThat(f[4]).matches("[1-9]\\d*/\\d+/\\d+");
        assertThat(f[5]).isEqualTo("6");
        assertThat(f[6]).isEqualTo("--");
        Backend be = p.backend("l");
        assertThat(be.counters().get(Counter.SESSIONS)).isEqualTo(1);
        assertThat(be.counters().get(Counter.REQUESTS)).isZero();
        assertThat(be.counters().get(Counter.BYTES_IN)).isEqualTo(5);
        assertThat(be.counters().get(Counter.BYTES_OUT)).isEqualTo(6);
        assertThat(p.frontend().counters().get(Counter.REQUESTS)).isZero();
    }

    @Test
    void aQueuedStreamCountsInTheBackendAndInTheServerOnlyOnceConnecting() {
        EmbeddedProxy p = proxy("l", """
                listen l
                    bind 127.0.0.1:8080
                    timeout queue 5s
                    server s1 127.0.0.1:9001 maxconn 1
                """);
        Backend be = p.backend("l");
        dev.sluice.proxy.backend.Server s1 = be.servers().getFirst();
        EmbeddedProxy.Duplex a = p.tcpClient();
        p.run();
        EmbeddedProxy.Duplex b = p.tcpClient();
        p.run();
        // HAProxy's beconn counts the one waiting in the queue; cur_sess only the one connected
        assertThat(be.activeStreams()).isEqualTo(2);
        assertThat(be.queue().length()).isEqualTo(1);
        assertThat(s1.currentSessions()).isEqualTo(1);
        assertThat(s1.activeStreams()).isEqualTo(1);
        EmbeddedProxy.Duplex sa = (EmbeddedProxy.Duplex) p.server(0);
        a.receiveFin();
        p.run();
        sa.receiveFin();
        p.run();
        // A's line: the backend's other stream (B, waiting), no stream on s1 yet (B connects after the line)
        String[] f = fields(log.next());
        assertThat(f[7]).isEqualTo("2/2/1/0/0");
        assertThat(f[8]).isEqualTo("0/0");
        assertThat(s1.currentSessions()).isEqualTo(1);
        EmbeddedProxy.Duplex sb = (EmbeddedProxy.Duplex) p.server(1);
        b.receiveFin();
        p.run();
        sb.receiveFin();
        p.run();
        f = fields(log.next());
        assertThat(f[7]).isEqualTo("1/1/0/0/0");
        assertThat(f[8]).isEqualTo("0/1");
        assertThat(be.activeStreams()).isZero();
        assertThat(be.served()).isZero();
        assertThat(s1.currentSessions()).isZero();
        assertThat(be.snapshot().currentMax()).isEqualTo(2);
        assertThat(s1.snapshot().currentMax()).isEqualTo(1);
    }

    @Test
    void aRefusedServerIsRetriedAfterTheTurnAroundThenSc() {
        EmbeddedProxy p = proxy("l", """
                listen l
                    bind 127.0.0.1:8080
                    retries 2
                    server s1 127.0.0.1:9001
                """);
        p.refuseConnects(3, new ConnectException("refused"));
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("x");
        p.run();
        assertThat(client.isOpen()).isTrue();
        p.advance(1000);
        assertThat(client.isOpen()).isTrue();
        p.advance(1000);
        assertThat(client.isOpen()).isFalse();
        String[] f = fields(log.next());
        // the turn-around waits are on the mock clock, the log's timers on the real one
        assertThat(f[4]).as("Tw/Tc/Tt").matches("\\d+/-1/\\d+");
        assertThat(f[6]).isEqualTo("SC");
        assertThat(f[7]).endsWith("/2");
        Backend be = p.backend("l");
        assertThat(be.counters().get(Counter.CONNECT_ERRORS)).isEqualTo(1);
        assertThat(be.counters().get(Counter.RETRIES)).isEqualTo(2);
        // the stream left the server's cur_sess and the backend's beconn at its end
        assertThat(be.servers().getFirst().currentSessions()).isZero();
        assertThat(be.activeStreams()).isZero();
    }

    @Test
    void aFrontendWithoutBackendClosesAtOnce() {
        EmbeddedProxy p = proxy("nobe", """
                frontend nobe
                    bind 127.0.0.1:8080
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(log.next()).endsWith(" nobe nobe/<NOSRV> -1/-1/0 0 SC 1/1/0/0/0 0/0");
    }

    @Test
    void aServerResetIsSd() {
        EmbeddedProxy p = proxy("l", """
                listen l
                    bind 127.0.0.1:8080
                    server s1 127.0.0.1:9001
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        server.receive("part");
        server.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
        p.run();
        assertThat(client.readText()).isEqualTo("part");
        assertThat(client.isOpen()).isFalse();
        assertThat(fields(log.next())[6]).isEqualTo("SD");
        assertThat(p.backend("l").counters().get(Counter.SERVER_ABORTS)).isEqualTo(1);
        assertThat(p.backend("l").counters().get(Counter.RESPONSE_ERRORS)).isEqualTo(1);
    }

    @Test
    void anIdleClientTimesOutCd() {
        EmbeddedProxy p = proxy("l", """
                listen l
                    bind 127.0.0.1:8080
                    timeout client 2s
                    server s1 127.0.0.1:9001
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        p.advance(1999);
        assertThat(client.isOpen()).isTrue();
        p.advance(2);
        assertThat(client.isOpen()).isFalse();
        assertThat(fields(log.next())[6]).isEqualTo("cD");
        assertThat(p.backend("l").counters().get(Counter.CLIENT_ABORTS)).isEqualTo(1);
    }

    @Test
    void useBackendOnHttpSamplesDoesNotApplyToALayer4Stream() {
        EmbeddedProxy p = proxy("fe", """
                frontend fe
                    bind 127.0.0.1:8080
                    use_backend other if { req.hdr(host) -m str x }
                    use_backend other if { src 10.0.0.0/8 }
                    default_backend be
                backend be
                    server s1 127.0.0.1:9001
                backend other
                    server s1 127.0.0.1:9002
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        client.receiveFin();
        ((EmbeddedProxy.Duplex) p.server(0)).receiveFin();
        p.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(fields(log.next())[3]).isEqualTo("be/s1");
    }
}

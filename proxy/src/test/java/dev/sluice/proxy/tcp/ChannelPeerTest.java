package dev.sluice.proxy.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What both ends of a layer-4 stream do on their sockets ({@link ChannelPeer}): a FIN the socket cannot send (its peer
 * reset it, and shutdown fails without closing) closes the channel, so the stream ends at once as the peer's failure
 * rather than waiting for a timeout. A FIN towards a side whose own FIN came first is the socket's close; a side that
 * closes after the proxy's FIN has sent its own.
 */
class ChannelPeerTest {
    private final LogCatcher log = new LogCatcher();
    private EmbeddedProxy proxy;

    @AfterEach
    void tearDown() {
        if (proxy != null) {
            proxy.close();
        }
        log.close();
    }

    private EmbeddedProxy proxy() {
        return EmbeddedProxy.of("""
                defaults
                    mode tcp
                    %s
                    option tcplog
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen l
                    bind 127.0.0.1:8080
                    server s1 127.0.0.1:9001
                """.formatted(log.logLine()), "l");
    }

    @Test
    void aFinTheClientSocketRefusesEndsTheStreamCd() {
        proxy = proxy();
        EmbeddedProxy.Duplex client = proxy.tcpClient();
        proxy.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) proxy.server(0);
        client.receive("bye");
        proxy.run();
        assertThat(server.readText()).isEqualTo("bye");
        // the client is gone: its socket was reset, and only the shutdown tells
        client.refuseFin();
        server.receiveFin();
        proxy.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(server.isOpen()).isFalse();
        assertThat(log.next().split(" ")[6]).isEqualTo("CD");
    }

    @Test
    void theFinToASideWhoseFinCameFirstIsItsClose() {
        proxy = proxy();
        EmbeddedProxy.Duplex client = proxy.tcpClient();
        proxy.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) proxy.server(0);
        client.receive("ask");
        client.receiveFin();
        proxy.run();
        assertThat(server.readText()).isEqualTo("ask");
        // a half-close: the server may still answer
        assertThat(server.outputShut()).isTrue();
        assertThat(server.isOpen()).isTrue();
        server.receive("answer");
        server.receiveFin();
        proxy.run();
        assertThat(client.readText()).isEqualTo("answer");
        // no shutdown asked of the client's socket: its input is over, the close sends the FIN after the answer
        assertThat(client.shutdowns()).isZero();
        assertThat(client.queuedAtFin()).isEqualTo(6);
        assertThat(client.isOpen()).isFalse();
        assertThat(log.next().split(" ")[6]).isEqualTo("--");
    }

    @Test
    void aSideClosingAfterOurFinHasSentItsFinNotFailed() {
        proxy = proxy();
        EmbeddedProxy.Duplex client = proxy.tcpClient();
        proxy.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) proxy.server(0);
        server.receive("banner");
        server.receiveFin();
        proxy.run();
        assertThat(client.readText()).isEqualTo("banner");
        assertThat(client.shutdowns()).isEqualTo(1);
        assertThat(client.isOpen()).isTrue();
        // the client still sends, then its FIN: once ours went, the socket closes on it (no half-closed input kept)
        client.receive("late");
        client.close();
        proxy.run();
        assertThat(server.readText()).isEqualTo("late");
        assertThat(server.isOpen()).isFalse();
        assertThat(log.next().split(" ")[6]).isEqualTo("--");
    }

    @Test
    void anEndAfterAResetASpliceCallTookIsTheServersFailure() {
        proxy = proxy();
        EmbeddedProxy.Duplex client = proxy.tcpClient();
        proxy.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) proxy.server(0);
        server.receive("part");
        proxy.run();
        assertThat(client.readText()).isEqualTo("part");
        // splice(2) got the reset: the socket's error is gone, Netty's next read finds only the end of the stream
        server.pipeline().get(TcpServerConnection.class).failed(new java.io.IOException("splice failed: errno 104"));
        server.receiveFin();
        proxy.run();
        assertThat(server.isOpen()).isFalse();
        assertThat(client.isOpen()).isFalse();
        assertThat(client.shutdowns()).isZero();
        assertThat(log.next().split(" ")[6]).isEqualTo("SD");
    }
}

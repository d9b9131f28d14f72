package dev.sluice.proxy.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What both ends of a layer-4 stream do on their sockets ({@link ChannelPeer}): a FIN the socket cannot send (its peer
 * reset it, and shutdown fails without closing) closes the channel, so the stream ends at once as the peer's failure
 * rather than waiting for a timeout.
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

    @Test
    void aFinTheClientSocketRefusesEndsTheStreamCd() {
        proxy = EmbeddedProxy.of("""
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
        EmbeddedProxy.Duplex client = proxy.tcpClient();
        proxy.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) proxy.server(0);
        client.receive("bye");
        client.receiveFin();
        proxy.run();
        assertThat(server.readText()).isEqualTo("bye");
        assertThat(server.outputShut()).isTrue();
        // the client is gone: its socket was reset after its FIN
        client.refuseFin();
        server.receiveFin();
        proxy.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(server.isOpen()).isFalse();
        assertThat(log.next().split(" ")[6]).isEqualTo("CD");
    }
}

package dev.sluice.proxy.h2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import org.junit.jupiter.api.Test;

/**
 * The global {@code tune.h2.*} keywords change the SETTINGS an HTTP/2 client gets, as HAProxy 2.6 sends them: the table
 * and frame sizes only when they differ from the protocol's defaults, the frame size bounded by tune.bufsize, no stream
 * limit with 0.
 */
class H2TuningTest {
    private static String settings(String global) throws Exception {
        try (EmbeddedProxy proxy = EmbeddedProxy.of("""
                global
                %s
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:8080 proto h2
                    default_backend be
                backend be
                    server s1 127.0.0.1:9001
                """.formatted(global.indent(4)))) {
            EmbeddedProxy.Channel client = proxy.h2Client();
            H2ClientConnectionTest.Peer peer = new H2ClientConnectionTest.Peer();
            try {
                peer.preface().settingsAck().sendTo(client);
                return peer.read(client).get(0);
            } finally {
                peer.close();
            }
        }
    }

    @Test
    void theSettingsFollowTheGlobalSection() throws Exception {
        assertThat(settings("tune.h2.header-table-size 8192\ntune.h2.initial-window-size 131072\ntune.h2.max-concurrent-streams 50"))
                .isEqualTo("SETTINGS {HEADER_TABLE_SIZE=8192, MAX_CONCURRENT_STREAMS=50, INITIAL_WINDOW_SIZE=131072, MAX_HEADER_LIST_SIZE=30720}");
        assertThat(settings("tune.h2.max-concurrent-streams 0"))
                .isEqualTo("SETTINGS {INITIAL_WINDOW_SIZE=65535, MAX_HEADER_LIST_SIZE=30720}");
        // HAProxy announces its buffer size as the largest frame, unless tune.h2.max-frame-size says less
        assertThat(settings("tune.bufsize 32768"))
                .isEqualTo("SETTINGS {MAX_CONCURRENT_STREAMS=100, INITIAL_WINDOW_SIZE=65535, MAX_FRAME_SIZE=32768, MAX_HEADER_LIST_SIZE=63488}");
        assertThat(settings("tune.bufsize 32768\ntune.h2.max-frame-size 20000"))
                .isEqualTo("SETTINGS {MAX_CONCURRENT_STREAMS=100, INITIAL_WINDOW_SIZE=65535, MAX_FRAME_SIZE=20000, MAX_HEADER_LIST_SIZE=63488}");
        assertThat(settings("tune.h2.max-frame-size 65536"))
                .isEqualTo("SETTINGS {MAX_CONCURRENT_STREAMS=100, INITIAL_WINDOW_SIZE=65535, MAX_HEADER_LIST_SIZE=30720}");
    }
}

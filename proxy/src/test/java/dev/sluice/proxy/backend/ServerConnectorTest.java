package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerConnector} through real HTTP/1 client and server connections on embedded channels
 * ({@link EmbeddedProxy}): which idle server connection a request gets under each {@code http-reuse} policy, a
 * private connection going with its client, and {@code pool-purge-delay 0} keeping nothing idle.
 */
class ServerConnectorTest {

    private static EmbeddedProxy proxy(String backendLines) {
        return proxy(backendLines, "");
    }

    private static EmbeddedProxy proxy(String backendLines, String serverOptions) {
        return EmbeddedProxy.of("""
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:8080
                    default_backend be
                backend be
                    %s
                    server s1 127.0.0.1:9001 %s
                """.formatted(backendLines, serverOptions));
    }

    /** One exchange on {@code client}; returns the index of the server connection that carried it. */
    private static int exchange(EmbeddedProxy p, EmbeddedProxy.Channel client, String path) {
        int before = p.servers().size();
        client.receive("GET " + path + " HTTP/1.1\r\nhost: a\r\n\r\n");
        int used = -1;
        for (int i = 0; i < p.servers().size(); i++) {
            String sent = p.server(i).readText();
            if (!sent.isEmpty()) {
                assertThat(sent).startsWith("GET " + path + " ");
                used = i;
            }
        }
        assertThat(used).as("a server connection got %s (%d before)", path, before).isGreaterThanOrEqualTo(0);
        p.server(used).receive("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        return used;
    }

    @Test
    void underSafeAClientsFirstRequestOpensANewConnectionAndItsNextOnesReuse() {
        try (EmbeddedProxy p = proxy("http-reuse safe")) {
            EmbeddedProxy.Channel a = p.h1Client();
            EmbeddedProxy.Channel b = p.h1Client();
            assertThat(exchange(p, a, "/a1")).isEqualTo(0);
            assertThat(exchange(p, b, "/b1")).isEqualTo(1);
            // one connection was ever used at a time: the estimated need keeps one idle, so the second one closed
            p.run();
            assertThat(p.server(1).isOpen()).isFalse();
            assertThat(exchange(p, b, "/b2")).isEqualTo(0);
            assertThat(exchange(p, a, "/a2")).isEqualTo(0);
            assertThat(p.servers()).hasSize(2);
        }
    }

    @Test
    void underAlwaysAnyRequestTakesAnIdleConnection() {
        try (EmbeddedProxy p = proxy("http-reuse always")) {
            EmbeddedProxy.Channel a = p.h1Client();
            EmbeddedProxy.Channel b = p.h1Client();
            assertThat(exchange(p, a, "/a1")).isEqualTo(0);
            assertThat(exchange(p, b, "/b1")).isEqualTo(0);
            assertThat(p.servers()).hasSize(1);
        }
    }

    @Test
    void underNeverAConnectionIsPrivateToItsClientAndClosesWithIt() {
        try (EmbeddedProxy p = proxy("http-reuse never")) {
            EmbeddedProxy.Channel a = p.h1Client();
            EmbeddedProxy.Channel b = p.h1Client();
            assertThat(exchange(p, a, "/a1")).isEqualTo(0);
            assertThat(exchange(p, b, "/b1")).isEqualTo(1);
            assertThat(exchange(p, b, "/b2")).isEqualTo(1);
            assertThat(exchange(p, a, "/a2")).isEqualTo(0);
            a.close();
            p.run();
            assertThat(p.server(0).isOpen()).isFalse();
            assertThat(p.server(1).isOpen()).isTrue();
        }
    }

    @Test
    void withPoolPurgeDelayZeroNoConnectionIsKeptIdle() {
        try (EmbeddedProxy p = proxy("pool-purge-delay 0")) {
            EmbeddedProxy.Channel a = p.h1Client();
            assertThat(exchange(p, a, "/1")).isEqualTo(0);
            p.run();
            assertThat(p.server(0).isOpen()).isFalse();
            assertThat(exchange(p, a, "/2")).isEqualTo(1);
        }
    }

    @Test
    void theServersPoolPurgeDelayZeroOrPoolMaxConnZeroKeepsNothingIdle() {
        for (String options : new String[] {"pool-purge-delay 0", "pool-max-conn 0"}) {
            try (EmbeddedProxy p = proxy("http-reuse always", options)) {
                EmbeddedProxy.Channel a = p.h1Client();
                assertThat(exchange(p, a, "/1")).as(options).isEqualTo(0);
                p.run();
                assertThat(p.server(0).isOpen()).as(options).isFalse();
                assertThat(exchange(p, a, "/2")).as(options).isEqualTo(1);
            }
        }
        // the server's own delay wins over the backend's
        try (EmbeddedProxy p = proxy("pool-purge-delay 0", "pool-purge-delay 5s")) {
            EmbeddedProxy.Channel a = p.h1Client();
            assertThat(exchange(p, a, "/1")).isEqualTo(0);
            assertThat(exchange(p, a, "/2")).isEqualTo(0);
        }
    }

    /** Two requests at once open two connections; both may wait idle after, unless pool-max-conn 1 allows a single one. */
    @Test
    void poolMaxConnBoundsTheIdleConnections() {
        for (int max : new int[] {-1, 1}) {
            try (EmbeddedProxy p = proxy("http-reuse always", "pool-max-conn " + max)) {
                EmbeddedProxy.Channel a = p.h1Client();
                EmbeddedProxy.Channel b = p.h1Client();
                a.receive("GET /a HTTP/1.1\r\nhost: a\r\n\r\n");
                b.receive("GET /b HTTP/1.1\r\nhost: a\r\n\r\n");
                assertThat(p.servers()).hasSize(2);
                for (int i = 0; i < 2; i++) {
                    assertThat(p.server(i).readText()).startsWith("GET /");
                    p.server(i).receive("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
                }
                assertThat(a.readText()).startsWith("HTTP/1.1 200 OK");
                assertThat(b.readText()).startsWith("HTTP/1.1 200 OK");
                p.run();
                assertThat(p.server(0).isOpen()).as("max %d", max).isTrue();
                assertThat(p.server(1).isOpen()).as("max %d", max).isEqualTo(max == -1);
            }
        }
    }
}

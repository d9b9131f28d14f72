package dev.sluice.proxy.tls;

import static dev.sluice.proxy.tls.Fixtures.A;
import static dev.sluice.proxy.tls.Fixtures.DEFAULT;
import static dev.sluice.proxy.tls.Fixtures.with;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.TlsVersion;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session resumption on the server side: a second handshake from the same client context resumes (the
 * server's and the client's BoringSSL both say so) through tickets (TLS 1.3 and 1.2) or the session cache
 * (TLS 1.2 without tickets); {@code tune.ssl.cachesize 0} and {@code no-tls-tickets} turn them off; ticket
 * keys rotate without breaking recent tickets.
 */
class SessionResumptionTest {
    @TempDir
    static Path dir;
    static Path aPem;
    static Path defaultPem;

    @BeforeAll
    static void files() {
        aPem = Fixtures.combined(dir, "a.pem", A);
        defaultPem = Fixtures.combined(dir, "default.pem", DEFAULT);
    }

    private static ServerTlsContext server(BindTls t, Global g, SessionTicketKeys keys) {
        return ServerTlsContext.build(t, g, TlsProvider.detect(), keys, w -> {
        });
    }

    /** Two handshakes with one client context; returns whether the second one resumed, checking both ends agree. */
    private static boolean secondResumes(ServerTlsContext tls, SslContext client, String sni) throws Exception {
        try (Loopback lb = new Loopback(tls)) {
            Loopback.Result first = lb.connect(client, sni);
            assertThat(first.ok()).as("%s", first.clientFailure()).isTrue();
            assertThat(first.server().resumed()).isFalse();
            Loopback.Result second = lb.connect(client, sni);
            assertThat(second.ok()).isTrue();
            assertThat(second.client().resumed()).isEqualTo(second.server().resumed());
            return second.server().resumed();
        }
    }

    @Test
    void tls13ResumesWithTickets() throws Exception {
        ServerTlsContext tls = server(Fixtures.bind(aPem), Fixtures.global(), new SessionTicketKeys(new SecureRandom()));
        assertThat(secondResumes(tls, Fixtures.client().build(), "a.example.com")).isTrue();
    }

    @Test
    void tls12ResumesWithTheSessionCache() throws Exception {
        BindTls t = with(with(Fixtures.bind(aPem), "tickets", false), "max", TlsVersion.TLSV12);
        ServerTlsContext tls = server(t, Fixtures.global(), new SessionTicketKeys(new SecureRandom()));
        assertThat(secondResumes(tls, Fixtures.client().build(), "a.example.com")).isTrue();
    }

    @Test
    void tls12TicketsWorkWithoutTheCache() throws Exception {
        // Netty's BoringSSL client sends no TLS 1.2 ticket unless a system property says so; the JDK's client does
        SslContext jdkClient = io.netty.handler.ssl.SslContextBuilder.forClient().sslProvider(io.netty.handler.ssl.SslProvider.JDK)
                .trustManager(Fixtures.CA.cert()).endpointIdentificationAlgorithm(null).protocols("TLSv1.2").build();
        ServerTlsContext tls = server(with(Fixtures.bind(aPem), "max", TlsVersion.TLSV12), Fixtures.global(0, "300s"),
                new SessionTicketKeys(new SecureRandom()));
        try (Loopback lb = new Loopback(tls)) {
            assertThat(lb.connect(jdkClient, "a.example.com").server().resumed()).isFalse();
            Loopback.Result second = lb.connect(jdkClient, "a.example.com");
            assertThat(second.server().protocol()).isEqualTo("TLSv1.2");
            assertThat(second.server().resumed()).isTrue();
        }
    }

    @Test
    void cacheSizeZeroWithoutTicketsNeverResumes() throws Exception {
        BindTls t = with(with(Fixtures.bind(aPem), "tickets", false), "max", TlsVersion.TLSV12);
        ServerTlsContext tls = server(t, Fixtures.global(0, "300s"), new SessionTicketKeys(new SecureRandom()));
        assertThat(secondResumes(tls, Fixtures.client().build(), "a.example.com")).isFalse();
    }

    @Test
    void noTlsTicketsTurnsTls13ResumptionOff() throws Exception {
        // BoringSSL resumes TLS 1.3 with tickets only
        ServerTlsContext tls = server(with(Fixtures.bind(aPem), "tickets", false), Fixtures.global(), new SessionTicketKeys(new SecureRandom()));
        assertThat(secondResumes(tls, Fixtures.client().build(), "a.example.com")).isFalse();
    }

    @Test
    void resumesThroughTheSniSelector() throws Exception {
        ServerTlsContext tls = server(Fixtures.bind(defaultPem, aPem), Fixtures.global(), new SessionTicketKeys(new SecureRandom()));
        assertThat(tls.selectsBySni()).isTrue();
        assertThat(secondResumes(tls, Fixtures.client().build(), "a.example.com")).isTrue();
    }

    @Test
    void ticketKeysRotate() throws Exception {
        SessionTicketKeys keys = new SessionTicketKeys(new SecureRandom());
        ServerTlsContext tls = server(Fixtures.bind(aPem), Fixtures.global(), keys);
        assertThat(keys.installedContexts()).isEqualTo(1);
        SslContext client = Fixtures.client().build();
        try (Loopback lb = new Loopback(tls)) {
            assertThat(lb.connect(client, "a.example.com").server().resumed()).isFalse();
            keys.rotate();
            assertThat(keys.keyNames()).hasSize(2);
            // the ticket was made with the previous key, which still decrypts
            assertThat(lb.connect(client, "a.example.com").server().resumed()).isTrue();
            for (int i = 0; i < SessionTicketKeys.KEPT; i++) {
                keys.rotate();
            }
            assertThat(keys.keyNames()).hasSize(SessionTicketKeys.KEPT);
            // the last ticket's key is gone: full handshake
            assertThat(lb.connect(client, "a.example.com").server().resumed()).isFalse();
        }
        tls.close(keys);
        assertThat(keys.installedContexts()).isZero();
    }

    @Test
    void ticketsAreSharedByContextsWithTheSameSettingsOnly() throws Exception {
        SessionTicketKeys keys = new SessionTicketKeys(new SecureRandom());
        BindTls t = Fixtures.bind(aPem);
        ServerTlsContext one = server(t, Fixtures.global(), keys);
        ServerTlsContext same = server(t, Fixtures.global(), keys);
        ServerTlsContext other = server(with(t, "alpn", java.util.List.of("http/1.1")), Fixtures.global(), keys);
        SslContext client = Fixtures.client().build();
        try (Loopback a = new Loopback(one); Loopback b = new Loopback(same); Loopback c = new Loopback(other)) {
            assertThat(a.connect(client, "a.example.com").server().resumed()).isFalse();
            // same port in the client's cache key is needed to offer the session: use the session through each server
            Loopback.Result viaSame = b.connect(alloc -> client.newHandler(alloc, "a.example.com", a.port()));
            assertThat(viaSame.server().resumed()).as("another process context with the same settings and keys").isTrue();
            Loopback.Result viaOther = c.connect(alloc -> client.newHandler(alloc, "a.example.com", a.port()));
            assertThat(viaOther.ok()).isTrue();
            assertThat(viaOther.server().resumed()).as("different TLS settings: different session id context").isFalse();
        }
    }
}

package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The server name sent to a TLS server, as taken from an {@code sni} expression's value. */
class ServerSniTest {

    @Test
    void aHostKeepsItsNameAndLosesItsPort() {
        assertThat(ServerSni.hostOnly("origin.test")).isEqualTo("origin.test");
        assertThat(ServerSni.hostOnly("www.origin.test:8443")).isEqualTo("www.origin.test");
        assertThat(ServerSni.hostOnly("localhost")).isEqualTo("localhost");
    }

    @Test
    void addressesAndEmptyValuesNameNothing() {
        // RFC 6066: SNI carries host names only
        assertThat(ServerSni.hostOnly("127.0.0.1")).isNull();
        assertThat(ServerSni.hostOnly("127.0.0.1:443")).isNull();
        assertThat(ServerSni.hostOnly("[::1]:443")).isNull();
        assertThat(ServerSni.hostOnly("::1")).isNull();
        assertThat(ServerSni.hostOnly("")).isNull();
        assertThat(ServerSni.hostOnly(":443")).isNull();
        assertThat(ServerSni.hostOnly(null)).isNull();
    }
}

package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** {@link Addresses#literal}: what inet_pton takes, as HAProxy reads a server's address. */
class AddressesLiteralTest {
    @Test
    void theFullDottedQuadAndIpv6AreLiterals() throws Exception {
        assertThat(Addresses.literal("127.0.0.1")).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(Addresses.literal("10.200.3.255")).isEqualTo(InetAddress.getByName("10.200.3.255"));
        assertThat(Addresses.literal("::1")).isEqualTo(InetAddress.getByName("::1"));
        assertThat(Addresses.literal("2001:db8::2")).isEqualTo(InetAddress.getByName("2001:db8::2"));
    }

    @Test
    void shorthandsNamesAndBrokenQuadsAreNot() {
        for (String s : new String[] {"", "127.1", "10.0.0", "1.2.3.4.5", "1..2.3", ".1.2.3", "1.2.3.", "1.2.3.1234", "256.1.1.1",
                "1.2.3.a", "localhost", "example.com", "[::1]", "1.2.3.4 "}) {
            assertThat(Addresses.literal(s)).as(s).isNull();
        }
    }
}

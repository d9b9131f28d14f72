package dev.sluice.proxy.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Sockets in the abstract namespace with HAProxy 2.6's address: the whole {@code sun_path}, the name padded with NULs
 * (what /proc/net/unix shows as '@' characters), reached by a connect with the same address, a second bind refused.
 */
class AbstractSocketsTest {
    private static final String NAME = "sluice-ut-" + ProcessHandle.current().pid();

    @Test
    void theAddressIsTheNamePaddedTo108Bytes() {
        byte[] p = AbstractSockets.sunPath("ab");
        assertThat(p).hasSize(108);
        assertThat(p[0]).isZero();
        assertThat(p[1]).isEqualTo((byte) 'a');
        assertThat(p[2]).isEqualTo((byte) 'b');
        for (int i = 3; i < 108; i++) {
            assertThat(p[i]).isZero();
        }
        assertThat(AbstractSockets.sunPath("x".repeat(107))).hasSize(108);
        assertThatThrownBy(() -> AbstractSockets.sunPath("x".repeat(108))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void listenConnectAndRefuse() throws Exception {
        int server = AbstractSockets.listen(NAME, 16);
        try {
            // HAProxy's padded address, as the kernel lists it
            List<String> lines = Files.readAllLines(Path.of("/proc/net/unix"));
            assertThat(lines).anyMatch(l -> l.endsWith(" @" + NAME + "@".repeat(107 - NAME.length())));
            int client = AbstractSockets.connect(NAME);
            assertThat(client).isPositive();
            AbstractSockets.close(client);
            assertThatThrownBy(() -> AbstractSockets.listen(NAME, 16)).isInstanceOf(IOException.class).hasMessage("already in use");
        } finally {
            AbstractSockets.close(server);
        }
        assertThatThrownBy(() -> AbstractSockets.connect(NAME)).isInstanceOf(IOException.class)
                .hasMessage("connect(abns@" + NAME + ") failed: Connection refused");
    }
}

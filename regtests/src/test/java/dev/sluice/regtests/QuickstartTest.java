package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ./sluice} with no argument runs examples/quickstart.cfg, which answers by itself. */
class QuickstartTest {

    @Test
    void quickstartAnswersAndAlternatesBetweenItsTwoServers() {
        ProcessBuilder pb = Sluice.launcher(List.of(), Map.of());
        try (Sluice s = Sluice.startWith(pb, Sluice.writeConfig("").getParent(), 8080, 8081, 8082)) {
            String[] bodies = new String[4];
            for (int i = 0; i < 4; i++) {
                try (RawClient c = new RawClient(8080)) {
                    RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").read();
                    assertThat(r.status()).isEqualTo(200);
                    bodies[i] = r.bodyText();
                }
            }
            assertThat(bodies).containsExactly("hello from server 1\n", "hello from server 2\n", "hello from server 1\n",
                    "hello from server 2\n");
        }
    }

    @Test
    void quickstartIsAValidConfiguration() {
        Sluice.Result r = Sluice.run(List.of("-c", "-f", Sluice.ROOT.resolve("examples/quickstart.cfg").toString()), Map.of());
        assertThat(r.exitCode()).isZero();
        assertThat(r.output()).contains("Configuration file is valid");
    }
}

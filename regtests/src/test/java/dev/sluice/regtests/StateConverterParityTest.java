package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code nbsrv} and {@code srv_queue} converters against HAProxy 2.6 ({@link HaproxyParityTest#compare}): a backend
 * named by the sample (usable servers: a disabled one does not count), a server as {@code backend/server} or, in a
 * proxy that is a backend itself, alone; no sample for a name that is no backend or no server (nor, in a frontend, for
 * a server without its backend).
 */
class StateConverterParityTest {

    private static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            listen l
                bind 127.0.0.1:@FE@
                http-request return status 200 content-type text/plain lf-string "%[str(be),nbsrv] %[str(l),nbsrv] %[str(nope),nbsrv] %[str(be/s1),srv_queue] %[str(s9),srv_queue] %[str(be/zz),srv_queue] %[str(nope/s1),srv_queue]"
                server s9 127.0.0.1:@O1@
            frontend f
                bind 127.0.0.1:@FE2@
                http-request return status 200 content-type text/plain lf-string "%[str(s1),srv_queue] %[str(be/s2),srv_queue] %[str(be),nbsrv]"
            backend be
                server s1 127.0.0.1:@O1@
                server s2 127.0.0.1:@O2@ disabled
                server s3 127.0.0.1:@O2@
            """;

    @Test
    void convertersReadServersAsHaproxy() throws Exception {
        List<String> theirs = HaproxyParityTest.compareRecording(CONFIG, List.of("listen", "frontend"), ports -> {
            List<String> seen = new ArrayList<>();
            for (int p : ports) {
                try (RawClient c = new RawClient(p)) {
                    seen.add(c.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read().bodyText());
                }
            }
            return seen;
        });
        assertThat(theirs).containsExactly("2 1  0 0  ", " 0 2");
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code req.hdrs_bin} and {@code res.hdrs_bin} against HAProxy 2.6 ({@link HaproxyParityTest#compare}): the same request
 * (a value over 240 bytes, whose length takes HAProxy's two-byte varint) and the same server response give the same
 * bytes. A request without an upgrade: both drop {@code Connection: close}. The server's response keeps the order of
 * the wire, its content-length included, in both.
 */
class HeadersBinParityTest {

    private static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:@FE@
                http-request return status 200 content-type text/plain lf-string "%[req.hdrs_bin,hex]" if !{ path /res }
                http-response set-header x-res %[res.hdrs_bin,hex]
                default_backend inner
            backend inner
                server o 127.0.0.1:@FE2@
            frontend o
                bind 127.0.0.1:@FE2@
                http-request return status 200 hdr x-a b
            """;

    private static List<String> exchange(int port) {
        try (RawClient req = new RawClient(port); RawClient res = new RawClient(port)) {
            String request = req.send("GET / HTTP/1.1\r\nHost: x\r\nX-Foo: Bar\r\nX-Long: " + "v".repeat(300) + "\r\nConnection: close\r\n\r\n")
                    .read().bodyText();
            String response = res.send("GET /res HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read().header("x-res");
            return List.of(request, response);
        }
    }

    @Test
    void headersInBinaryAreHaproxys() throws Exception {
        List<String> theirs = HaproxyParityTest.compareRecording(CONFIG, List.of("req.hdrs_bin", "res.hdrs_bin"), ports -> exchange(ports[0]));
        // host, x-foo, x-long (300 = fc 03), then the two zero lengths
        assertThat(theirs.get(0)).startsWith("04686F737401780578").contains("06782D6C6F6E67FC03").endsWith("0000");
        // the server's fields, x-a among them
        assertThat(theirs.get(1)).contains("03782D610162").endsWith("0000");
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code capture-req} and {@code capture-res} converters against HAProxy 2.6 ({@link HaproxyParityTest#compare}): the
 * sample goes into the declared slot cut to its length and passes on whole; a slot that does not exist gives no sample
 * and captures nothing; the slots read back with {@code capture.req.hdr} and {@code capture.res.hdr}.
 */
class CaptureConverterParityTest {

    private static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:@FE@
                declare capture request len 5
                declare capture request len 20
                declare capture response len 3
                http-request set-header x-passed "%[req.hdr(x-a),capture-req(0)]|%[req.hdr(x-a),capture-req(7)]|%[str(second),capture-req(1)]"
                http-response set-header x-res-passed "%[res.hdr(x-b),capture-res(0)]|%[res.hdr(x-b),capture-res(1)]"
                http-after-response set-header x-caps "%[capture.req.hdr(0)]|%[capture.req.hdr(1)]|%[capture.res.hdr(0)]"
                default_backend be
            backend be
                server o 127.0.0.1:@FE2@
            frontend o
                bind 127.0.0.1:@FE2@
                http-request return status 200 content-type text/plain lf-string "%[req.hdr(x-passed)]" hdr x-b "response-value"
            """;

    @Test
    void capturesFromConvertersAreHaproxys() throws Exception {
        List<String> theirs = HaproxyParityTest.compareRecording(CONFIG, List.of("long", "short"), ports -> {
            java.util.List<String> out = new java.util.ArrayList<>();
            for (String a : List.of("request-value", "ab")) {
                try (RawClient c = new RawClient(ports[0])) {
                    RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: x\r\nx-a: " + a + "\r\nConnection: close\r\n\r\n").read();
                    out.add(r.bodyText() + " / " + r.header("x-res-passed") + " / " + r.header("x-caps"));
                }
            }
            return out;
        });
        assertThat(theirs).containsExactly("request-value||second / response-value| / reque|second|res", "ab||second / response-value| / ab|second|res");
    }
}

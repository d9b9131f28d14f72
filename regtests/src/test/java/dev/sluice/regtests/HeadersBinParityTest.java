package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code req.hdrs_bin} against HAProxy 2.6: the same request (a value over 240 bytes, whose length takes HAProxy's
 * two-byte varint) gives the same bytes. A request without an upgrade: both drop {@code Connection: close}.
 */
class HeadersBinParityTest {

    private static String config(int port) {
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain lf-string "%%[req.hdrs_bin,hex]"
                """.formatted(port);
    }

    private static String ask(int port) {
        try (RawClient c = new RawClient(port)) {
            return c.send("GET / HTTP/1.1\r\nHost: x\r\nX-Foo: Bar\r\nX-Long: " + "v".repeat(300) + "\r\nConnection: close\r\n\r\n").read()
                    .bodyText();
        }
    }

    @Test
    void headersInBinaryAreHaproxys() throws Exception {
        String haproxyPath = Program.HAPROXY.require();
        Path dir = Files.createTempDirectory("hdrs-bin");
        int hport = Ports.free();
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, config(hport));
        Process haproxy = new ProcessBuilder(haproxyPath, "-f", cfg.toString(), "-db").redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        int sport = Ports.free();
        try (Sluice sluice = Sluice.start(config(sport), sport)) {
            CrossProtocolTest.awaitPort(hport);
            String theirs = ask(hport);
            assertThat(ask(sport)).isEqualTo(theirs);
            // host, x-foo, x-long (300 = fc 03), then the two zero lengths
            assertThat(theirs).startsWith("04686F737401780578").contains("06782D6C6F6E67FC03").endsWith("0000");
        } finally {
            haproxy.destroy();
            if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                haproxy.destroyForcibly();
            }
        }
    }
}

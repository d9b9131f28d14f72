package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The {@code xxh3} converter against HAProxy 2.6 ({@link HaproxyParityTest#compare}): inputs of every length class of
 * XXH3 (1-3, 4-8, 9-16, 17-128, 129-240, and the long path over one and several 1 KiB blocks), without a seed and with a
 * small and a large one (a non-zero seed derives its own secret on the long path).
 */
class Xxh3ParityTest {
    private static final int[] LENGTHS = {1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 96, 97, 128, 129, 200, 240, 241, 256, 1023, 1024,
            1025, 2048, 2100};

    @Test
    void hashesAreHaproxys() throws Exception {
        StringBuilder body = new StringBuilder();
        for (int l : LENGTHS) {
            body.append(l).append("=%[req.hdr(x-d),bytes(0,").append(l).append("),xxh3] %[req.hdr(x-d),bytes(0,").append(l)
                    .append("),xxh3(1)] %[req.hdr(x-d),bytes(0,").append(l).append("),xxh3(123456789012)]|");
        }
        String config = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:@FE@
                    http-request return status 200 content-type text/plain lf-string "%s"
                """.formatted(body);
        Random r = new Random(42);
        StringBuilder data = new StringBuilder();
        for (int i = 0; i < 2100; i++) {
            data.append((char) ('!' + r.nextInt(90)));
        }
        String d = data.toString().replace(",", ";");
        List<String> theirs = HaproxyParityTest.compareRecording(config, List.of("hashes"), ports -> {
            try (RawClient c = new RawClient(ports[0])) {
                return List.of(c.send("GET / HTTP/1.1\r\nHost: x\r\nx-d: " + d + "\r\nConnection: close\r\n\r\n").read().bodyText());
            }
        });
        // every length gave three hashes
        assertThat(theirs.get(0).split("\\|")).hasSize(LENGTHS.length).allSatisfy(s -> assertThat(s).matches("\\d+=-?\\d+ -?\\d+ -?\\d+"));
    }
}

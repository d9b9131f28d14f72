package dev.sluice.proxy.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TimeStatsAndErrorCaptureTest {

    @Test
    void averagesAreMeansUntil1024SamplesThenSlide() {
        TimeStats t = new TimeStats(2);
        t.record(0, 0, 10, 100, 200);
        t.record(1, 0, 30, 300, 400);
        TimeStats.Snapshot s = t.snapshot();
        assertThat(s.connect()).isEqualTo(20);
        assertThat(s.response()).isEqualTo(200);
        assertThat(s.total()).isEqualTo(300);
        assertThat(s.responseMax()).isEqualTo(300);
        // far past the window, the old values have decayed away: the average follows the recent ones
        for (int i = 0; i < 20_000; i++) {
            t.record(0, 0, 5, 50, 60);
            t.record(1, 0, 5, 50, 60);
        }
        s = t.snapshot();
        assertThat(s.response()).isBetween(49L, 51L);
        assertThat(s.responseMax()).isEqualTo(300);
        t.clear(false);
        assertThat(t.snapshot().responseMax()).isZero();
        assertThat(t.snapshot().response()).isBetween(49L, 51L);
        t.clear(true);
        assertThat(t.snapshot().response()).isZero();
    }

    @Test
    void dumpLinesFollowHaproxysDumpTextLine() {
        StringBuilder out = new StringBuilder();
        byte[] msg = ("GET /" + "a".repeat(100) + " HTTP/1.1\r\n\tx\\\u001b\u0001\n").getBytes(StandardCharsets.ISO_8859_1);
        int ptr = 0;
        int[] line = {0};
        while (ptr < msg.length) {
            ptr = ErrorCapture.textLine(out, msg, ptr, line);
        }
        // a line longer than 80 columns goes on under a '+'; escapes as HAProxy writes them
        // (HAProxy's test is "more than 78 columns written": 70 bytes after the 9-column prefix)
        assertThat(out.toString()).isEqualTo("  00000  GET /" + "a".repeat(65) + "\n"
                + "  00070+ " + "a".repeat(35) + " HTTP/1.1\\r\\n\n"
                + "  00116  \\tx\\\\\\e\\x01\\n\n");
    }
}

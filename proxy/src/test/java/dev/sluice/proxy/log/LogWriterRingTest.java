package dev.sluice.proxy.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.LogTarget;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The log writer's ring targets: the target's len, the ring's format and maxlen, forwarded messages' own fields. */
class LogWriterRingTest {
    private static LogTarget ring(String name, int len, int level) {
        return new LogTarget(new SourceRef("t.cfg", 1), LogTarget.Kind.RING, name, 0, len, LogTarget.Format.RFC3164, 16, level, 0);
    }

    private static List<String> wait(Ring r, int n) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (r.next() < n && System.nanoTime() < end) {
            r.await(r.next(), 100);
        }
        return r.read(0, 100).stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList();
    }

    @Test
    void linesAreHeadedInTheRingsFormatAndCut() throws Exception {
        Ring raw = new Ring("raw", "raw", LogTarget.Format.RAW, 1000, 10000);
        Ring short_ = new Ring("cut", "cut", LogTarget.Format.RFC3164, 40, 10000);
        try (LogWriter w = new LogWriter()) {
            w.rings(Map.of("raw", raw, "cut", short_));
            w.submit(ring("raw", 10, 7), "haproxy", 6, "0123456789abcdef");
            w.submit(ring("cut", 1024, 7), "haproxy", 6, "a long message that the ring's maxlen cuts");
            // above the target's level: not written
            w.submit(ring("raw", 1024, 3), "haproxy", 6, "too verbose");
            assertThat(wait(raw, 1)).containsExactly("0123456789");
            List<String> cut = wait(short_, 1);
            assertThat(cut).hasSize(1);
            assertThat(cut.get(0)).hasSize(40).startsWith("<134>").contains(" localhost haproxy[");
        }
    }

    @Test
    void forwardedMessagesKeepTheirFields() throws Exception {
        Ring r = new Ring("r", "r", LogTarget.Format.RFC5424, 1000, 10000);
        try (LogWriter w = new LogWriter()) {
            w.rings(Map.of("r", r));
            w.forward(ring("r", 1024, 7), SyslogMessage.parse("<13>Dec  7 02:40:00 myhost app[42]: hello"));
            w.forward(ring("r", 1024, 4), SyslogMessage.parse("<14>Dec  7 02:40:00 myhost app[42]: info is above warning"));
            assertThat(wait(r, 1).get(0)).endsWith("-00:00 myhost app 42 - - hello").startsWith("<13>1 ");
        }
        assertThat(r.next()).isEqualTo(1);
    }

    @Test
    void aMessageTheRingRefusesIsAnnouncedBeforeTheNextOne() throws Exception {
        Ring r = new Ring("r", "r", LogTarget.Format.RFC3164, 1000, 120);
        try (LogWriter w = new LogWriter()) {
            w.rings(Map.of("r", r));
            w.submit(ring("r", 1024, 7), "haproxy", 6, "x".repeat(200));
            long end = System.nanoTime() + 5_000_000_000L;
            while (r.dropped() == 0 && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertThat(r.dropped()).isEqualTo(1);
            assertThat(r.next()).isZero();
            w.submit(ring("r", 1024, 7), "haproxy", 6, "ok");
            List<String> got = wait(r, 2);
            // local0.notice, then the message
            assertThat(got).hasSize(2);
            assertThat(got.get(0)).startsWith("<133>").endsWith(" localhost haproxy[" + ProcessHandle.current().pid() + "]: 1 event dropped");
            assertThat(got.get(1)).startsWith("<134>").endsWith("]: ok");
            assertThat(r.dropped()).isZero();
        }
    }
}

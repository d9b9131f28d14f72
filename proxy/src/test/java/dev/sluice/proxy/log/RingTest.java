package dev.sluice.proxy.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.LogTarget;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RingTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static List<String> all(Ring r, long from) {
        return r.read(from, Integer.MAX_VALUE).stream().map(m -> new String(m, StandardCharsets.US_ASCII)).toList();
    }

    @Test
    void costIsHaproxysVarintLengthPlusMessagePlusReaderByte() {
        assertThat(Ring.cost(0)).isEqualTo(2);
        assertThat(Ring.cost(239)).isEqualTo(241);
        assertThat(Ring.cost(240)).isEqualTo(243);
        // 240 + 16 * 128 = 2288 is the first length needing three bytes
        assertThat(Ring.cost(2287)).isEqualTo(2287 + 3);
        assertThat(Ring.cost(2288)).isEqualTo(2288 + 4);
    }

    @Test
    void aFullRingDropsItsOldestMessages() {
        // each 8-byte message costs 10 bytes: 3 fit in 35
        Ring r = new Ring("r", "r", LogTarget.Format.RAW, 100, 35);
        for (int i = 1; i <= 5; i++) {
            r.write(b("message" + i));
        }
        assertThat(all(r, 0)).containsExactly("message3", "message4", "message5");
        assertThat(r.oldest()).isEqualTo(2);
        assertThat(r.next()).isEqualTo(5);
        assertThat(r.used()).isEqualTo(30);
        // a reader that was at message 1 goes on from the oldest kept
        assertThat(r.start(1)).isEqualTo(2);
        assertThat(all(r, 4)).containsExactly("message5");
        assertThat(all(r, 5)).isEmpty();
    }

    @Test
    void aMessageLargerThanTheRingIsDroppedAndKeepsTheOthers() {
        Ring r = new Ring("r", "r", LogTarget.Format.RAW, 100, 20);
        r.write(b("small"));
        r.write(b("x".repeat(30)));
        assertThat(all(r, 0)).containsExactly("small");
    }

    @Test
    void awaitReturnsWhenAMessageComes() throws Exception {
        Ring r = new Ring("r", "r", LogTarget.Format.RAW, 100, 1000);
        assertThat(r.await(0, 10)).isFalse();
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            r.write(b("late"));
        });
        assertThat(r.await(0, 5000)).isTrue();
        t.join();
        assertThat(all(r, 0)).containsExactly("late");
    }
}

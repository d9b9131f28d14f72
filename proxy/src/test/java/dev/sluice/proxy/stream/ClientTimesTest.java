package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** {@link ClientTimes}: the accept a first handler notes, the handshake time of a first stream, none for the next ones. */
class ClientTimesTest {

    @Test
    void theFirstNotedAcceptWinsAndCountsAsHandshake() {
        EmbeddedChannel ch = new EmbeddedChannel();
        long accepted = System.nanoTime() - 50_000_000L;
        ClientTimes.accepted(ch, 1_000L, accepted);
        ClientTimes.accepted(ch, 2_000L, System.nanoTime());
        ClientTimes t = ClientTimes.of(ch);
        assertThat(t.acceptDate()).isEqualTo(1_000L);
        assertThat(t.streamAcceptNanos()).isEqualTo(accepted);
        assertThat(t.handshakeMs()).isBetween(50L, 5_000L);
        long now = System.nanoTime();
        t.next(now);
        assertThat(t.streamAcceptNanos()).isEqualTo(now);
        assertThat(t.handshakeMs()).isZero();
        assertThat(t.acceptDate()).isEqualTo(1_000L);
        ch.finishAndReleaseAll();
    }

    @Test
    void withoutAnEarlierHandlerTheAcceptIsNowAndALaterHandlerFindsIt() {
        EmbeddedChannel ch = new EmbeddedChannel();
        long before = System.currentTimeMillis();
        ClientTimes first = ClientTimes.of(ch);
        assertThat(first.acceptDate()).isBetween(before, System.currentTimeMillis());
        assertThat(first.handshakeMs()).isZero();
        // an HTTP/2 handler that takes over the connection later sees the same accept
        ClientTimes later = ClientTimes.of(ch);
        assertThat(later.acceptDate()).isEqualTo(first.acceptDate());
        assertThat(later.streamAcceptNanos()).isEqualTo(first.streamAcceptNanos());
        ch.finishAndReleaseAll();
    }
}

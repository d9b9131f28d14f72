package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.stream.Termination.State;
import org.junit.jupiter.api.Test;

/**
 * {@link LiveStreams} with streams of any kind ({@link Live}): ids carry their loop, a stream leaves its loop's list
 * in place of the last one (once), and each stream keeps the epoch it started in.
 */
class LiveStreamsTest {

    /** A stream seen from the admin side only. */
    private static final class Fake extends Live {
        @Override
        public Frontend frontend() {
            return null;
        }

        @Override
        public Backend backend() {
            return null;
        }

        @Override
        public Server server() {
            return null;
        }

        @Override
        public ClientEnd client() {
            return null;
        }

        @Override
        public long startDate() {
            return 0;
        }

        @Override
        public State phase() {
            return State.DATA;
        }

        @Override
        public String describe() {
            return null;
        }

        @Override
        public void kill(Termination.Cause why) {
        }
    }

    @Test
    void streamsComeAndGoPerLoop() {
        LiveStreams live = new LiveStreams(2);
        Fake a = new Fake();
        Fake b = new Fake();
        Fake c = new Fake();
        Fake d = new Fake();
        a.register(live, 1);
        b.register(live, 1);
        c.register(live, 1);
        d.register(live, 0);
        assertThat(live.loopOf(a.id())).isEqualTo(1);
        assertThat(live.loopOf(d.id())).isEqualTo(0);
        assertThat(b.id()).isNotEqualTo(a.id());
        assertThat(live.on(1)).containsExactly(a, b, c);
        live.remove(a, 1);
        assertThat(live.on(1)).containsExactly(c, b);
        live.remove(a, 1);
        live.remove(b, 1);
        assertThat(live.on(1)).containsExactly(c);
        assertThat(live.on(0)).containsExactly(d);
        assertThat(live.created(1)).isEqualTo(3);
    }

    @Test
    void aStreamKeepsTheEpochItStartedIn() {
        LiveStreams live = new LiveStreams(1);
        Fake before = new Fake();
        before.register(live, 0);
        live.nextEpoch();
        Fake after = new Fake();
        after.register(live, 0);
        assertThat(after.epoch()).isEqualTo(before.epoch() + 1);
    }
}

package dev.sluice.config;

import static dev.sluice.config.Configs.frontendOf;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The proxy-wide {@code backlog} and the words of {@code stats show-desc}. */
class ListenerAndPageKeywordsTest {

    @Test
    void backlogIsTheDefaultOfBindsThatSetNone() {
        var fe = frontendOf("backlog 2048\nbind :8081\nbind :8082 backlog 10");
        assertThat(fe.binds()).extracting(b -> b.socket().backlog()).containsExactly(2048, 10, 2048);
        assertThat(frontendOf("bind :8081").binds().getFirst().socket().backlog()).isZero();
    }

    @Test
    void showDescJoinsItsWords() {
        assertThat(frontendOf("stats show-desc Stats for ocp4 cluster").stats().desc()).isEqualTo("Stats for ocp4 cluster");
        assertThat(frontendOf("stats show-desc").stats().desc()).isEmpty();
    }
}

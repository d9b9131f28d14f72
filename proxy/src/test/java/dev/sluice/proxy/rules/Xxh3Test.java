package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** XXH3-64 against the reference's published value (Xxh3ParityTest compares every length class with HAProxy). */
class Xxh3Test {
    @Test
    void emptyInput() {
        assertThat(Xxh3.hash(new byte[0], 0)).isEqualTo(0x2D06800538D394C2L);
    }
}

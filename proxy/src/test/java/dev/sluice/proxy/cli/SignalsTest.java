package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SignalsTest {
    @Test
    void aJvmThatSuspendsThreadsWithSigusr2IsReported() {
        // HotSpot's default (no _JAVA_SR_SIGNUM), SIGUSR2 named, and a value HotSpot rejects (it keeps its default)
        assertThat(Signals.suspendSignalWarning(null)).startsWith("[WARNING] ").contains("SIGUSR2").contains("_JAVA_SR_SIGNUM=40");
        assertThat(Signals.suspendSignalWarning("12")).isNotNull();
        assertThat(Signals.suspendSignalWarning("usr2")).isNotNull();
        assertThat(Signals.suspendSignalWarning("5")).isNotNull();
        assertThat(Signals.suspendSignalWarning("65")).isNotNull();
    }

    @Test
    void anotherSuspendSignalIsQuiet() {
        assertThat(Signals.suspendSignalWarning("40")).isNull();
        assertThat(Signals.suspendSignalWarning(" 40 ")).isNull();
    }
}

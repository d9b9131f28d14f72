package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The settings an in-process reload cannot apply: warned about alone, named for a master that starts a new worker. */
class ReloadTest {
    private static Config parse(String global) {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(k -> null, Set.of(), "2.6"))
                .parse(List.of(new ConfigParser.Source("t.cfg", "global\n" + global + "defaults\n    mode http\n    timeout client 1s\n"
                        + "    timeout server 1s\n    timeout connect 1s\nfrontend fe\n    bind 127.0.0.1:8080\n")));
        assertThat(r.ok()).as("%s", r.diagnostics()).isTrue();
        return r.config();
    }

    @Test
    void threadsCpuMapAndPollEventsNeedANewProcess() {
        Config one = parse("    nbthread 1\n");
        Config two = parse("    nbthread 2\n    cpu-map 1 0\n    tune.maxpollevents 64\n");
        assertThat(Reload.restartChanges(one, one, 1, ProxyRuntime.threads(one))).isEmpty();
        assertThat(Reload.restartChanges(one, two, 1, ProxyRuntime.threads(two))).containsExactly("nbthread 2", "cpu-map", "tune.maxpollevents");
        assertThat(Reload.restartOnly(one, two, 1, 2)).containsExactly(
                "[WARNING] nbthread 2 applies at the next restart: the process keeps its 1 threads.",
                "[WARNING] cpu-map applies at the next restart.", "[WARNING] tune.maxpollevents applies at the next restart.");
    }

    /** The reload notice's figures: milliseconds from nanoseconds, megabytes from bytes, rounded to one decimal. */
    @Test
    void tenths() {
        assertThat(Generations.tenths(12_345_678)).isEqualTo("12.3");
        assertThat(Generations.tenths(12_350_000)).isEqualTo("12.4");
        assertThat(Generations.tenths(49_999)).isEqualTo("0.0");
        assertThat(Generations.tenths(50_000)).isEqualTo("0.1");
        assertThat(Generations.tenths(-5)).isEqualTo("0.0");
        assertThat(Generations.tenths(1_000_000_000)).isEqualTo("1000.0");
    }

    /** After a burst of reloads, the heap is collected once when it grew by more than the slack since the first reload. */
    @Test
    void heapGrownEnoughToCollect() {
        long base = 40L << 20;
        assertThat(Generations.grown(base + Generations.HEAP_SLACK + 1, base)).isTrue();
        assertThat(Generations.grown(base + Generations.HEAP_SLACK, base)).isFalse();
        assertThat(Generations.grown(base / 2, base)).isFalse();
        // no reload yet: nothing to give back
        assertThat(Generations.grown(Long.MAX_VALUE, -1)).isFalse();
    }
}

package dev.sluice.config;

import static dev.sluice.config.Configs.GLOBAL_LINE;
import static dev.sluice.config.Configs.inGlobal;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.CpuMap;
import dev.sluice.config.model.ProcessSettings;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** set-dumpable, insecure-fork-wanted (with "no"), cpu-map: HAProxy 2.6's reading and messages. */
class CpuKeywordsTest {

    private static ProcessSettings process(String lines) {
        return valid(inGlobal(lines)).global().process();
    }

    /** Each thread's CPUs as "0-1|2|..." ("-" for none). */
    private static String pinning(String lines, int threads) {
        return CpuMap.perThread(process(lines).cpuMaps(), threads).stream().map(CpuKeywordsTest::text).collect(Collectors.joining("|"));
    }

    private static String text(BitSet s) {
        if (s.isEmpty()) {
            return "-";
        }
        return s.stream().mapToObj(String::valueOf).collect(Collectors.joining(","));
    }

    @Test
    void setDumpableAndInsecureForkWanted() {
        assertThat(process("set-dumpable").dumpable()).isTrue();
        assertThat(process("set-dumpable\nno set-dumpable").dumpable()).isFalse();
        assertThat(process("nbthread 1").dumpable()).isFalse();
        assertThat(process("insecure-fork-wanted").insecureForkWanted()).isTrue();
        assertThat(process("insecure-fork-wanted\nno insecure-fork-wanted").insecureForkWanted()).isFalse();
    }

    @Test
    void profilingTasksIsReadAsHaproxyReadsIt() {
        for (String v : new String[] {"off", "auto"}) {
            assertThat(parse(inGlobal("profiling.tasks " + v)).diagnostics()).as(v).isEmpty();
        }
        // on: accepted, with a notice (Sluice has no per-task clock), neither an error nor a warning
        assertThat(parse(inGlobal("profiling.tasks on")).diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.severity()).isEqualTo(Diagnostic.Severity.NOTICE);
            assertThat(d.message()).contains("cpu_ns_avg|tot and lat_ns_avg|tot stay 0");
        });
        assertThat(Configs.errors(parse(inGlobal("profiling.tasks maybe")))).singleElement()
                .satisfies(d -> assertThat(d.message()).isEqualTo("'profiling.tasks' expects either 'on', 'auto', or 'off' but got 'maybe'."));
        assertThat(Configs.errors(parse(inGlobal("profiling.tasks on off")))).hasSize(1);
    }

    @Test
    void cpuMapAsHaproxyCombinesIt() {
        assertThat(pinning("cpu-map 1/all 0-1", 3)).isEqualTo("0,1|0,1|0,1");
        assertThat(pinning("cpu-map 1 2-3", 2)).isEqualTo("2,3|2,3");
        assertThat(pinning("cpu-map 1/1 2-3", 2)).isEqualTo("2,3|2,3");
        assertThat(pinning("cpu-map auto:1/1-4 0-3", 4)).isEqualTo("0|1|2|3");
        assertThat(pinning("cpu-map auto:1/1-4 3 2 1 0", 4)).isEqualTo("0|1|2|3");
        assertThat(pinning("cpu-map 1/2 5", 3)).isEqualTo("-|5|-");
        // a later line replaces what an earlier one said of the same threads
        assertThat(pinning("cpu-map 1/all 0-3\ncpu-map 1/2 7", 2)).isEqualTo("0,1,2,3|7");
        // a thread's set narrowed to the process's; a thread without one takes the process's
        assertThat(pinning("cpu-map 1 0-3\ncpu-map 1/2 2-5", 3)).isEqualTo("0,1,2,3|2,3|0,1,2,3");
        // processes other than 1 do not exist any more: ignored, as HAProxy 2.6 does
        assertThat(pinning("cpu-map 2 0", 2)).isEqualTo("-|-");
        assertThat(pinning("cpu-map 1/odd 0", 3)).isEqualTo("0|-|0");
        assertThat(pinning("cpu-map 1/1- 0-", 1)).isEqualTo(java.util.stream.IntStream.range(0, 1024).mapToObj(String::valueOf)
                .collect(Collectors.joining(",")));
        assertThat(pinning("cpu-map 1 0 1 2-3 5-4", 1)).isEqualTo("0,1,2,3,4,5");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "cpu-map 1 => cpu-map expects a process number  ('all', 'odd', 'even', a number from 1 to 64 or a range),  followed by a list of CPU ranges with numbers from 0 to 63.",
            "cpu-map x 0 => cpu-map : 'x' is not a valid number/range.",
            "cpu-map 1 x => cpu-map : 'x' is not a CPU range.",
            "cpu-map 1 -3 => cpu-map : '-3' is not a CPU range.",
            "cpu-map 1/70 0 => cpu-map : '70' is not a valid number/range. It supports numbers from 1 to 64.",
            "cpu-map 0 0 => cpu-map : '0' is not a valid number/range. It supports numbers from 1 to 64.",
            "cpu-map 1 1024 => cpu-map : supports CPU numbers from 0 to 1023.",
            "cpu-map auto:1 0-1 => cpu-map : PROC/THREAD range and CPU sets must have the same size to be automatically bound",
            "cpu-map auto:1/all 0-1 => cpu-map : PROC/THREAD range and CPU sets must have the same size to be automatically bound",
            "set-dumpable x => 'set-dumpable' cannot handle unexpected argument 'x'.",
            "insecure-fork-wanted x => 'insecure-fork-wanted' cannot handle unexpected argument 'x'.",
            "no daemon => negation/default currently supported only for options, log, busy-polling, set-dumpable, strict-limits, insecure-fork-wanted and numa-cpu-mapping.",
    })
    void errorsAreHaproxys(String line, String message) {
        var r = parse(inGlobal(line));
        assertThat(Configs.errors(r)).as(line).singleElement().satisfies(d -> {
            assertThat(d.line()).isEqualTo(GLOBAL_LINE);
            assertThat(d.message()).isEqualTo(message);
        });
    }

    @Test
    void aCpuMapLineKeepsItsSets() {
        List<CpuMap> maps = process("cpu-map auto:1/1-2 4-5").cpuMaps();
        assertThat(maps).singleElement().satisfies(m -> {
            assertThat(m.auto()).isTrue();
            assertThat(m.threads().stream().boxed().toList()).containsExactly(0, 1);
            assertThat(m.cpus().stream().boxed().toList()).containsExactly(4, 5);
        });
    }
}

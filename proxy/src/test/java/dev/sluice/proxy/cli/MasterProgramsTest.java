package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.Diagnostic;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Program;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the configuration cannot tell of programs (master-worker mode, users and groups), and a program's life in
 * {@link MasterPrograms}: started, listed, kept or replaced at a reload, signalled, its end reported.
 */
class MasterProgramsTest {

    private static Config config(String programs) {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "2.6"))
                .parse(List.of(new ConfigParser.Source("t.cfg", "global\n    log stdout local0\n" + programs)));
        assertThat(r.ok()).as(r.diagnostics().toString()).isTrue();
        return r.config();
    }

    @Test
    void problemsAreHaproxysPostParserMessages() {
        Config c = config("program p\n    command true\n    user no-such-user-here\n    group no-such-group-here\n");
        assertThat(MasterPrograms.problems(c, false)).extracting(Diagnostic::toString).containsExactly(
                "t.cfg:5: error: cannot find user id for 'no-such-user-here' (0:Success)",
                "t.cfg:6: error: cannot find group id for 'no-such-group-here' (0:Success)",
                "error: Can't use a 'program' section without master worker mode.");
        assertThat(MasterPrograms.problems(config("program p\n    command true\n    user root\n"), true)).isEmpty();
        assertThat(MasterPrograms.problems(config(""), false)).isEmpty();
    }

    /** Records the messages and the ends. */
    private static final class Recorder implements MasterPrograms.Log, MasterPrograms.Exits {
        final List<String> lines = new ArrayList<>();
        final CompletableFuture<String> ended = new CompletableFuture<>();

        @Override
        public synchronized void notice(String msg) {
            lines.add("notice " + msg);
        }

        @Override
        public synchronized void alert(String msg) {
            lines.add("alert " + msg);
        }

        @Override
        public void exited(MasterPrograms.Proc p, int status, boolean former) {
            ended.complete(p.name + " " + status + " " + former);
        }
    }

    @Test
    void aReloadKeepsOrReplacesAndRetireSignalsTheFormer() throws Exception {
        List<Program> programs = config("program a\n    command sleep 30\nprogram b\n    command sleep 31\n    no option start-on-reload\n").programs();
        Recorder rec = new Recorder();
        MasterPrograms m = new MasterPrograms(rec);
        try {
            assertThat(m.startAll(programs, rec)).isTrue();
            assertThat(m.alive()).isEqualTo(2);
            StringBuilder sb = new StringBuilder();
            m.rows(sb, System.currentTimeMillis());
            assertThat(sb.toString()).matches("(?s)\\d+ +a +0 +0d00h00m00s +- +\n\\d+ +b +0 +0d00h00m00s +- +\n");
            assertThat(m.reload(programs, rec)).isTrue();
            sb.setLength(0);
            m.rows(sb, System.currentTimeMillis());
            // a started again, the former a leaving; b kept, one reload older
            assertThat(sb.toString().lines().map(l -> l.replaceAll("^\\d+ +", "").replaceAll(" +", " ").strip()).toList())
                    .containsExactly("b 1 0d00h00m00s -", "a 0 0d00h00m00s -", "# old programs", "a 1 0d00h00m00s -");
            m.retire();
            assertThat(rec.ended.get(10, TimeUnit.SECONDS)).isEqualTo("a 138 true");
            assertThat(m.alive()).isEqualTo(2);
            assertThat(rec.lines).hasSize(3).allMatch(l -> l.matches("notice New program '[ab]' \\(\\d+\\) forked"));
        } finally {
            m.signalAll("KILL");
        }
    }
}

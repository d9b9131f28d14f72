package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class OptionsTest {

    @Test
    void conditionAndLocalPeer() throws Exception {
        Options o = Options.parse(new String[] {"-cc", "version_atleast(2.6) && feature(OPENSSL)", "-L", "lb1"});
        assertThat(o.condition()).isEqualTo("version_atleast(2.6) && feature(OPENSSL)");
        assertThat(o.localPeer()).isEqualTo("lb1");
        assertThatThrownBy(() -> Options.parse(new String[] {"-cc"})).hasMessage("-cc expects a condition");
        assertThatThrownBy(() -> Options.parse(new String[] {"-L"})).hasMessage("-L expects a local peer name");
    }

    @Test
    void connectionLimitsAndDirectory() throws Exception {
        Options o = Options.parse(new String[] {"-n", "100", "-N", "50", "-C", "/etc/haproxy", "-f", "h.cfg"});
        assertThat(o.maxconn()).isEqualTo(100);
        assertThat(o.defaultMaxconn()).isEqualTo(50);
        assertThat(Main.files(o)).containsExactly(Path.of("/etc/haproxy/h.cfg"));
        assertThatThrownBy(() -> Options.parse(new String[] {"-N", "x"})).hasMessage("-N expects a number of connections, not 'x'");
        Options none = Options.parse(new String[] {"-f", "h.cfg"});
        assertThat(none.maxconn()).isEqualTo(-1);
        assertThat(Main.files(none)).containsExactly(Path.of("h.cfg"));
        assertThat(Main.commandLineSource(none, null)).isNull();
    }

    @Test
    void debugFlagsThatApply() throws Exception {
        Options o = Options.parse(new String[] {"-db", "-dW", "-dV", "-dR", "-dD", "-n", "10", "-q", "-V"});
        assertThat(o.diagnostic()).isTrue();
        assertThat(o.noBackground()).isTrue();
        assertThat(o.zeroWarning()).isTrue();
        assertThat(o.noServerVerify()).isTrue();
        assertThat(o.noReusePort()).isTrue();
        assertThat(o.quiet()).isFalse();
        assertThat(Main.commandLineSource(o, null).text())
                .isEqualTo("global\n    maxconn 10\n    ssl-server-verify none\n    noreuseport\n");
    }

    @Test
    void flagsMeaninglessOnTheJvmAreAcceptedAndListed() throws Exception {
        Options o = Options.parse(new String[] {"-dM", "-dM0x55,help", "-de", "-dp", "-dS", "-dG", "-dL", "-dKall", "-dr"});
        assertThat(o.ignored()).containsExactly("-dM", "-dM", "-de", "-dp", "-dS", "-dG", "-dL", "-dK", "-dr");
        assertThat(Options.IGNORED.keySet()).allSatisfy(f -> assertThat(Options.usage()).contains(f));
        assertThatThrownBy(() -> Options.parse(new String[] {"-dSx"})).hasMessage("unknown option '-dSx'");
        assertThatThrownBy(() -> Options.parse(new String[] {"-dZ"})).hasMessage("unknown option '-dZ'");
    }

    @Test
    void oldProcessSocket() throws Exception {
        assertThat(Options.parse(new String[] {"-f", "a.cfg"}).oldSocket()).isNull();
        assertThat(Options.parse(new String[] {"-x", "/run/old.sock", "-f", "a.cfg"}).oldSocket()).isEqualTo("/run/old.sock");
        // the last one counts, as in HAProxy
        assertThat(Options.parse(new String[] {"-x", "/a.sock", "-x", "/b.sock"}).oldSocket()).isEqualTo("/b.sock");
        assertThat(Options.parse(new String[] {"-x", "/a.sock"}).ignored()).isEmpty();
        assertThatThrownBy(() -> Options.parse(new String[] {"-x"})).hasMessage("-x expects a UNIX socket");
    }

    @Test
    void filesAfterDoubleDash() throws Exception {
        Options o = Options.parse(new String[] {"-c", "--", "a.cfg", "-b.cfg"});
        assertThat(o.files()).containsExactly(Path.of("a.cfg"), Path.of("-b.cfg"));
        assertThat(o.check()).isTrue();
    }

    @Test
    void helpListsTheFlags() {
        assertThat(Options.usage()).contains("-cc", "-L", "-N", "-n", "-db", "-dW", "-dV", "-dR", "-C", "-V");
    }
}

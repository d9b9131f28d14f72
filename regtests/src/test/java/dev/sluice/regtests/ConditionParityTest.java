package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code -cc <condition>} as HAProxy 2.6 answers it: the exit code (0 true, 1 false, 2 error) and the alert's message,
 * compared with {@code haproxy -cc} on true and false conditions, bad syntax and unknown predicates. The conditions
 * avoid what legitimately differs between the two builds (the TLS library, Lua); those are checked on Sluice alone.
 */
class ConditionParityTest {

    /** The exit code and the alert lines without HAProxy's "[ALERT]    (pid) : " prefix. */
    private record Answer(int exitCode, String alerts) {
    }

    private static String alerts(String output) {
        return output.lines().filter(l -> l.startsWith("[ALERT]")).map(l -> l.replaceFirst("^\\[ALERT\\]\\s*(\\(\\d+\\) )?:?\\s*", ""))
                .collect(Collectors.joining("\n"));
    }

    private static Answer haproxy(String condition) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Program.HAPROXY.require(), "-cc", condition).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Answer(p.exitValue(), alerts(out));
    }

    private static Answer sluice(String condition) {
        Sluice.Result r = Sluice.run(List.of("-cc", condition), Map.of());
        return new Answer(r.exitCode(), alerts(r.output()));
    }

    /** What {@code sluice -cc} answers, computed in this JVM by the code the command line runs (a JVM per row is slow). */
    private static Answer sluiceInProcess(String condition) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.checkCondition(condition, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Answer(code, alerts(err.toString(StandardCharsets.UTF_8)));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            // true
            "1", "42", "0x10", "-1", "!0", "!!1", "! (0)", "version_atleast(2.6)", "version_atleast(2.6.12)", "version_atleast(2.6-dev1)",
            "version_before(2.7)", "version_before(3.0)", "feature(OPENSSL)", "feature(EPOLL)", "feature(TFO)", "defined(PATH)",
            "streq(abc,abc)", "streq(\"a b\",\"a b\")", "strneq(a,b)", "1 && 1", "0 || 1", "1 || 0 && 0", "(0 || 1) && !0",
            "defined(PATH) && version_atleast(2.4) && feature(OPENSSL)",
            // false
            "0", "", "version_atleast(2.7)", "version_atleast(2.6.13)", "version_before(2.6)", "feature(NOPE)", "feature(openssl)",
            "feature(OPENSSL )", "defined(SLUICE_NEVER_SET)", "defined()", "streq(a,b)", "streq(a, a)", "streq(a,)", "strneq(a,a)",
            "1 && 0", "(0 || 1) && 0",
            // bad syntax
            "(1", "1 2", "1)", "1 &&", "1 ||", "1 & 1", "!", "()", "08", "streq(a)", "streq", "streq(a,b,c)", "defined(A",
            "streq(a,b)x", "streq(a,\"b)",
            // unknown predicates
            "nope(1)", "abc", "strstr(ab,a)", "enabled(POLL)", "1 || foo", "streqx(a)",
    })
    void sameExitCodeAndMessageAsHaproxy(String condition) throws Exception {
        Answer expected = haproxy(condition);
        assertThat(sluiceInProcess(condition)).isEqualTo(expected);
    }

    /** The command line itself, once per outcome: true, false, a bad condition and a lexer error. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"version_atleast(2.6) && defined(PATH)", "feature(NOPE)", "streq(a)", "streq(a,\"b)"})
    void theDaemonsCommandLineAnswersAsHaproxy(String condition) throws Exception {
        assertThat(sluice(condition)).isEqualTo(haproxy(condition));
    }

    @Test
    void tlsLibraryIsBoringSsl() {
        assertThat(sluice("ssllib_name_startswith(BoringSSL)").exitCode()).isZero();
        assertThat(sluice("ssllib_name_startswith(OpenSSL)").exitCode()).isOne();
        assertThat(sluice("openssl_version_atleast(1.1.0) && openssl_version_before(3.0.0)").exitCode()).isZero();
        Sluice.Result vv = Sluice.run(List.of("-vv"), Map.of());
        assertThat(vv.output()).contains("HAProxy 2.6.12 configuration language").contains("+OPENSSL").contains("BoringSSL");
    }

    @Test
    void debugFlagsMeaninglessOnTheJvmAreWarnedAbout() {
        Sluice.Result r = Sluice.run(List.of("-dM", "-dG", "-c", "-f", Sluice.writeConfig("global\n    maxconn 10\n").toString()), Map.of());
        assertThat(r.output()).contains("[WARNING] -dM is accepted and ignored").contains("[WARNING] -dG is accepted and ignored");
        Sluice.Result help = Sluice.run(List.of("--help"), Map.of());
        assertThat(help.output()).contains("-cc", "-L", "-db", "-dW", "-dV", "-dR", "-dM", "-dG");
    }
}

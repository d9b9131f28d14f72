package dev.sluice.config;

import static dev.sluice.config.Configs.errors;
import static dev.sluice.config.Configs.indent;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.proxy;
import static dev.sluice.config.Configs.valid;
import static dev.sluice.config.Configs.warnings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.HealthChecks;
import java.util.List;
import org.junit.jupiter.api.Test;

/** External checks: the global keyword, the option, command and path, inheritance, and HAProxy 2.6's messages. */
class ExternalCheckKeywordsTest {

    private static String config(String global, String backend) {
        return "global\n" + indent(global) + inBackend(backend);
    }

    private static List<String> messages(List<Diagnostic> d) {
        return d.stream().map(Diagnostic::message).toList();
    }

    @Test
    void optionCommandAndPathMakeTheCheck() {
        var c = valid(config("external-check\ninsecure-fork-wanted",
                "option external-check\nexternal-check command check.sh\nexternal-check path /usr/bin:/bin\nserver s1 10.0.0.1:80 check"));
        assertThat(proxy(c, "be").checks()).isEqualTo(new HealthChecks(null, false, false, false, null,
                new HealthChecks.ExternalCheck("check.sh", "/usr/bin:/bin", true)));
    }

    @Test
    void defaultsPassItOnAndTheLastCheckOptionWins() {
        String text = "global\n    external-check\n    insecure-fork-wanted\n" + Configs.DEFAULTS.replace("defaults\n",
                "defaults\n    option external-check\n    external-check command /bin/true\n") + """
                backend a
                    server s1 10.0.0.1:80 check
                backend b
                    option httpchk
                    server s1 10.0.0.1:80 check
                """;
        var r = parse(text);
        assertThat(r.ok()).isTrue();
        assertThat(proxy(r.config(), "a").checks().external()).isEqualTo(new HealthChecks.ExternalCheck("/bin/true", "", true));
        assertThat(proxy(r.config(), "b").checks().external()).isNull();
        assertThat(proxy(r.config(), "b").checks().http()).isNotNull();
        // b's command is ignored (HAProxy's warning)
        assertThat(messages(warnings(r))).contains("'external-check command' will be ignored for backend 'b' (requires 'option external-check').");
    }

    @Test
    void errorsAndWarningsAreHaproxys() {
        assertThat(messages(errors(parse(config("insecure-fork-wanted", "option external-check\nexternal-check command /bin/true")))))
                .containsExactly("Proxy 'be' : 'option external-check' unable to find required 'global.external-check'.");
        assertThat(messages(errors(parse(config("external-check", "option external-check")))))
                .containsExactly("Proxy 'be' : 'option external-check' unable to find required 'external-check command'.");
        assertThat(messages(errors(parse(config("external-check", "option external-check\nexternal-check command true")))))
                .containsExactly("Proxy 'be': 'external-check command' does not have a leading '/' and 'external-check path' is not set.");
        assertThat(messages(errors(parse(config("external-check", "external-check foo bar")))))
                .containsExactly("'external-check' only supports 'command' and 'path'. but got 'foo'.");
        assertThat(messages(errors(parse(config("external-check", "external-check command")))))
                .containsExactly("missing argument after 'command'.");
        assertThat(messages(errors(parse(config("external-check", "external-check")))))
                .containsExactly("missing argument after 'external-check'.");
        assertThat(messages(errors(parse(config("external-check", "no option external-check")))))
                .containsExactly("negation/default is not supported for option 'external-check'.");
        // without insecure-fork-wanted: a warning, and checks that fail at run time
        var r = parse(config("external-check", "option external-check\nexternal-check command /bin/true\nserver s1 10.0.0.1:80 check"));
        assertThat(r.ok()).isTrue();
        assertThat(messages(warnings(r))).contains(
                "Proxy 'be' : 'insecure-fork-wanted' not enabled in the global section, 'option external-check' will likely fail.");
        assertThat(proxy(r.config(), "be").checks().external().forkAllowed()).isFalse();
    }
}

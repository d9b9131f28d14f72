package dev.sluice.config;

import static dev.sluice.config.Configs.errors;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static dev.sluice.config.Configs.warnings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.FcgiApp;
import org.junit.jupiter.api.Test;

/**
 * The {@code fcgi-app} section, {@code use-fcgi-app}, {@code filter fcgi-app} and {@code server ... proto fcgi}, with the
 * messages of {@code haproxy -c} 2.6.12 (each case was run through it): src/fcgi-app.c's parser and post-parser.
 */
class FcgiAppKeywordsTest {
    private static final String HEAD = Configs.DEFAULTS + """
            frontend fe
                bind :8080
                default_backend be
            backend be
            """;

    private static String config(String backend, String app) {
        return HEAD + Configs.indent(backend) + "\n" + app;
    }

    private static final String SERVER = "use-fcgi-app php\nserver s 127.0.0.1:9000 proto fcgi";

    @Test
    void anApplicationWithItsRulesAndOptions() {
        Config c = valid(config(SERVER, """
                fcgi-app php
                    docroot /var/www
                    index index.php
                    path-info ^(/.+\\.php)(/.*)?$
                    acl local src 127.0.0.1
                    set-param REDIRECT_STATUS 200
                    set-param My-Param %[req.hdr(x)] if local
                    pass-header Authorization unless local
                    log-stderr global
                    no option keep-conn
                    option get-values
                    option mpxs-conns
                    option max-reqs 10
                """));
        FcgiApp app = Configs.proxy(c, "be").fcgiApp();
        assertThat(app.name()).isEqualTo("php");
        assertThat(app.docroot()).isEqualTo("/var/www");
        assertThat(app.index()).isEqualTo("index.php");
        assertThat(app.pathInfo()).isEqualTo("^(/.+\\.php)(/.*)?$");
        assertThat(app.acls()).extracting(a -> a.name()).containsExactly("local");
        assertThat(app.logStderrGlobal()).isTrue();
        assertThat(app.keepConn()).isFalse();
        assertThat(app.getValues()).isTrue();
        assertThat(app.mpxsConns()).isTrue();
        assertThat(app.maxReqs()).isEqualTo(10);
        // the implicit rules first (authentication parameters, hidden headers), then the section's, names as HAProxy keeps them
        assertThat(app.rules()).extracting(r -> r.kind() + " " + r.name()).startsWith("SET_PARAM remote_user", "SET_PARAM auth_type",
                "HIDE_HEADER connection").endsWith("SET_PARAM redirect_status", "SET_PARAM my_param", "PASS_HEADER authorization");
        assertThat(app.rules().getLast().condition().unless()).isTrue();
        assertThat(Configs.proxy(c, "be").servers().get(0).proto()).isEqualTo("fcgi");
        assertThat(Configs.proxy(c, "fe").fcgiApp()).isNull();
    }

    @Test
    void aFilterDeclaresTheApplicationToo() {
        Config c = valid(config("filter fcgi-app php\nserver s 127.0.0.1:9000 proto fcgi", "fcgi-app php\n    docroot /d\n"));
        assertThat(Configs.proxy(c, "be").fcgiApp().docroot()).isEqualTo("/d");
        assertThat(Configs.proxy(c, "be").fcgiApp().keepConn()).as("keep-conn by default").isTrue();
    }

    @Test
    void theChecksAfterReadingAsHaproxy() {
        assertThat(errors(parse(config(SERVER, "fcgi-app php\n    index x\n")))).extracting(Diagnostic::message)
                .containsExactly("fcgi-app 'php': no docroot configured.");
        assertThat(errors(parse(config("server s 127.0.0.1:9000 proto fcgi", "")))).extracting(Diagnostic::message)
                .containsExactly("proxy 'be': FCGI server 's' has no FCGI app configured.");
        assertThat(errors(parse(config("use-fcgi-app php\nserver s 127.0.0.1:9000", "fcgi-app php\n    docroot /d\n"))))
                .extracting(Diagnostic::message).containsExactly("proxy 'be': FCGI app configured but no FCGI server found.");
        assertThat(errors(parse(config(SERVER.replace("php", "nope"), "")))).extracting(Diagnostic::message)
                .containsExactly("proxy 'be' : fcgi-app 'nope' not found.");
        assertThat(errors(parse(config("mode tcp\n" + SERVER, "fcgi-app php\n    docroot /d\n")))).extracting(Diagnostic::message)
                .contains("proxy 'be': FCGI application cannot be used in non-HTTP mode.");
        assertThat(warnings(parse(config(SERVER, "fcgi-app php\n    docroot /d\n    option max-reqs 5\n")))).extracting(Diagnostic::message)
                .containsExactly("fcgi-app 'php': multiplexing not supported, ignore the option 'max-reqs'.");
    }

    @Test
    void wrongLinesAsHaproxy() {
        assertThat(errors(parse(config(SERVER, """
                fcgi-app php
                    docroot /d
                    foo bar
                    set-param X
                    option bogus
                    option max-reqs 0
                    path-info (
                """)))).extracting(Diagnostic::message).containsExactly("unknown keyword 'foo' in 'fcgi-app' section",
                "'set-param' expects <name> and <value> as arguments.", "unknown option 'bogus' in 'fcgi-app' section",
                "option 'max-reqs' expects a strictly positive integer argument.", "'(' : regex '(' is invalid: Unclosed group");
        assertThat(errors(parse(config(SERVER, "fcgi-app php\n    docroot /d\nfcgi-app php\n    docroot /e\n")))).extracting(Diagnostic::message)
                .singleElement().asString().startsWith("fcgi-app section 'php' has the same name as another one declared at test.cfg:");
        assertThat(errors(parse(HEAD.replace("    default_backend be", "    use-fcgi-app php\n    default_backend be")
                + "    server s 127.0.0.1:9000\n"))).extracting(Diagnostic::message)
                .contains("'use-fcgi-app' only available in backend or listen section");
        assertThat(errors(parse(Configs.DEFAULTS.replace("defaults\n", "defaults\n    use-fcgi-app php\n")))).extracting(Diagnostic::message)
                .contains("'use-fcgi-app' only available in backend or listen section");
        assertThat(errors(parse(config("use-fcgi-app php\nuse-fcgi-app other\nserver s 127.0.0.1:9000 proto fcgi", "fcgi-app php\n    docroot /d\n"))))
                .extracting(Diagnostic::message).contains("'use-fcgi-app' : only one fcgi-app supported per backend");
        assertThat(errors(parse(HEAD.replace("    bind :8080", "    bind :8080 proto fcgi") + "    server s 127.0.0.1:9000\n")))
                .isNotEmpty();
    }
}

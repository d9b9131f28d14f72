package dev.sluice.config;

import static dev.sluice.config.Configs.DEFAULTS;
import static dev.sluice.config.Configs.FILE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.proxy;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.Diagnostic.Severity;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyKind;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SemanticChecksTest {

    private static String message(ConfigParser.Result r, int line) {
        return assertSingleError(r, line, "").message();
    }

    @Nested
    class ProxyNames {
        @ParameterizedTest(name = "{0} then {1}")
        @CsvSource({
                "frontend, frontend",
                "backend, backend",
                "listen, listen",
                "frontend, listen",
                "listen, frontend",
                "backend, listen",
                "listen, backend",
        })
        void clashingCapabilities(String first, String second) {
            String text = DEFAULTS
                    + first + " app\n"
                    + (first.equals("backend") ? "" : "    bind :80\n")
                    + "    mode http\n"
                    + second + " app\n"
                    + (second.equals("backend") ? "" : "    bind :81\n");
            int secondLine = first.equals("backend") ? 8 : 9;
            assertThat(message(parse(text), secondLine)).isEqualTo("proxy name 'app' is already used by " + first + " at test.cfg:6.");
        }

        @Test
        void aFrontendAndABackendMayShareAName() {
            Config c = valid(DEFAULTS + """
                    frontend app
                        bind :80
                        default_backend app
                    backend app
                        server s1 10.0.0.1:80
                    """);
            assertThat(c.frontends()).extracting(Proxy::name, Proxy::kind).containsExactly(tuple("app", ProxyKind.FRONTEND));
            assertThat(c.backends()).extracting(Proxy::name, Proxy::kind).containsExactly(tuple("app", ProxyKind.BACKEND));
            assertThat(c.backends().getFirst().servers()).hasSize(1);
        }

        @Test
        void duplicateServers() {
            var r = parse(Configs.inBackend("server s1 10.0.0.1:80\nserver s2 10.0.0.2:80\nserver s1 10.0.0.3:80"));
            assertThat(message(r, Configs.BACKEND_LINE + 2)).isEqualTo("'server be/s1' : server name 's1' is already used in backend 'be'.");
        }

        @Test
        void duplicateServersInAListen() {
            var r = parse(DEFAULTS + "listen l\n    bind :80\n    server a 10.0.0.1\n    server a 10.0.0.2\n");
            assertThat(message(r, 9)).isEqualTo("'server l/a' : server name 'a' is already used in listen 'l'.");
        }

        @Test
        void sameServerNameInTwoBackendsIsFine() {
            Config c = valid(DEFAULTS + "listen l\n    bind :80\n    server a 10.0.0.1\nbackend b\n    server a 10.0.0.2\n");
            assertThat(c.proxies()).hasSize(2);
        }
    }

    @Nested
    class Binds {
        @Test
        void bindInABackend() {
            var r = parse(Configs.inBackend("bind :9000"));
            assertThat(message(r, Configs.BACKEND_LINE)).isEqualTo("'bind' is not allowed in 'backend' section (allowed in: frontend, listen).");
        }

        @ParameterizedTest
        @ValueSource(strings = {"frontend", "listen"})
        void frontendWithoutBind(String kind) {
            var r = parse(DEFAULTS + kind + " web\n    maxconn 10\n");
            assertThat(message(r, 6)).isEqualTo(kind + " 'web' has no 'bind' directive. Please declare it as a backend if this was intended.");
        }

        @Test
        void aFrontendWhoseOnlyBindIsInvalidIsReportedTwice() {
            var r = parse(DEFAULTS + "frontend web\n    bind nowhere:80\n");
            assertThat(Configs.errors(r)).extracting(Diagnostic::line).containsExactly(7, 6);
        }
    }

    @Nested
    class Switching {
        @Test
        void unknownUseBackendWithSuggestion() {
            var r = parse(DEFAULTS + """
                    frontend fe
                        bind :80
                        use_backend bk_ap
                    backend bk_app
                    """);
            assertThat(message(r, 8)).isEqualTo("Proxy 'fe': unable to find required use_backend: 'bk_ap'; did you mean 'bk_app' maybe ?.");
        }

        @Test
        void unknownUseBackendWithoutSuggestion() {
            var r = parse(Configs.inFrontend("use_backend zzz if TRUE"));
            assertThat(message(r, Configs.FRONTEND_LINE)).isEqualTo("Proxy 'fe': unable to find required use_backend: 'zzz'.");
        }

        @Test
        void aFrontendIsNotABackend() {
            var r = parse(DEFAULTS + "frontend a\n    bind :80\nfrontend b\n    bind :81\n    default_backend a\n");
            assertThat(message(r, 10)).isEqualTo("Proxy 'b': unable to find required default_backend: 'a'.");
        }

        @Test
        void listensAreBackends() {
            Config c = valid(DEFAULTS + "frontend fe\n    bind :80\n    use_backend l\n    default_backend l\nlisten l\n    bind :81\n");
            assertThat(proxy(c, "fe").defaultBackend()).isEqualTo("l");
        }

        @Test
        void dynamicUseBackendIsNotChecked() {
            Config c = valid(Configs.inFrontend("use_backend bk_%[req.hdr(host),lower]"));
            assertThat(proxy(c, "fe").useBackends().getFirst().isDynamic()).isTrue();
        }

        @Test
        void unknownDefaultBackendWithSuggestion() {
            var r = parse(DEFAULTS + """
                    frontend fe
                        bind :80
                        default_backend bakend
                    backend backend1
                    """);
            assertThat(message(r, 8)).isEqualTo("Proxy 'fe': unable to find required default_backend: 'bakend'; did you mean 'backend1' maybe ?.");
        }

        @Test
        void inheritedDefaultBackendIsReportedWhereItWasWritten() {
            var r = parse(DEFAULTS + """
                        default_backend missing
                    frontend fe
                        bind :80
                    """);
            assertThat(message(r, 6)).isEqualTo("Proxy 'fe': unable to find required default_backend: 'missing'.");
        }

        @Test
        void listenCannotDefaultToItself() {
            var r = parse(DEFAULTS + "listen l\n    bind :80\n    default_backend l\n");
            assertThat(message(r, 8)).isEqualTo("Proxy 'l': default_backend cannot point to itself.");
        }
    }

    @Nested
    class Acls {
        @Test
        void undefinedAclInSwitchingRuleWithSuggestion() {
            var r = parse(Configs.inFrontend("acl is_api path_beg /api\nuse_backend be if is_ap"));
            assertThat(message(r, Configs.FRONTEND_LINE + 1))
                    .isEqualTo("error detected while parsing switching rule : no such ACL : 'is_ap'; did you mean 'is_api' maybe ?.");
        }

        @Test
        void undefinedAclInHttpRequestRule() {
            var r = parse(Configs.inBackend("http-request return status 403 if !blocked"));
            assertThat(message(r, Configs.BACKEND_LINE)).isEqualTo("error detected while parsing 'http-request' rule : no such ACL : 'blocked'.");
        }

        @Test
        void everyUndefinedAclIsReported() {
            var r = parse(Configs.inFrontend("use_backend be if a { path / } || b TRUE"));
            assertThat(Configs.errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                    tuple(Configs.FRONTEND_LINE, "error detected while parsing switching rule : no such ACL : 'a'."),
                    tuple(Configs.FRONTEND_LINE, "error detected while parsing switching rule : no such ACL : 'b'."));
        }

        @Test
        void aclsAreLocalToTheirProxy() {
            var r = parse(DEFAULTS + """
                    frontend a
                        bind :80
                        acl local src 127.0.0.1
                    frontend b
                        bind :81
                        use_backend be if local
                    backend be
                    """);
            assertThat(message(r, 11)).isEqualTo("error detected while parsing switching rule : no such ACL : 'local'.");
        }

        @ParameterizedTest
        @ValueSource(strings = {"TRUE", "FALSE", "METH_GET", "METH_POST", "HTTP_1.1", "HTTP_2.0", "LOCALHOST", "WAIT_END", "HTTP_CONTENT"})
        void predefinedAclsNeedNoDeclaration(String name) {
            Config c = valid(Configs.inFrontend("http-request return status 204 unless !" + name + "\nuse_backend be if " + name));
            assertThat(proxy(c, "fe").useBackends().getFirst().condition().alternatives().getFirst().getFirst().aclName()).isEqualTo(name);
            assertThat(Predefined.ACLS).contains(name);
        }

        @Test
        void aclDeclaredAfterItsUseIsFine() {
            valid(Configs.inFrontend("use_backend be if late\nacl late path /late"));
        }
    }

    @Nested
    class ModesAndTimeouts {
        @Test
        void modeTcpIsTheDefaultAndATcpFrontendMayUseAnHttpBackend() {
            var r = parse("""
                    defaults
                        timeout client 1s
                        timeout server 1s
                        timeout connect 1s
                    frontend fe
                        bind :80
                        default_backend be
                    backend be
                        mode http
                    """);
            assertThat(r.diagnostics()).isEmpty();
            assertThat(r.config().proxy("fe").orElseThrow().mode()).isEqualTo(Mode.TCP);
        }

        @Test
        void missingTimeoutsAreWarnings() {
            var r = parse("""
                    defaults
                        mode http
                    frontend fe
                        bind :80
                        default_backend be
                    backend be
                        timeout connect 1s
                    listen l
                        bind :81
                        timeout client 1s
                    """);
            assertThat(r.ok()).isTrue();
            assertThat(Configs.errors(r)).isEmpty();
            String head = "While not properly invalid, you will certainly encounter various problems with such a configuration."
                    + " To fix this, please ensure that all following timeouts are set to a non-zero value: ";
            assertThat(r.diagnostics()).extracting(Diagnostic::line, Diagnostic::severity, Diagnostic::message).containsExactly(
                    tuple(3, Severity.WARNING, "missing timeouts for frontend 'fe'. " + head + "'client'."),
                    tuple(6, Severity.WARNING, "missing timeouts for backend 'be'. " + head + "'server'."),
                    tuple(8, Severity.WARNING, "missing timeouts for listen 'l'. " + head + "'connect', 'server'."));
            assertThat(r.config().proxies()).hasSize(3);
        }

        @Test
        void zeroTimeoutCountsAsMissing() {
            var r = parse(DEFAULTS + "frontend fe\n    bind :80\n    timeout client 0\n");
            assertThat(r.ok()).isTrue();
            assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(tuple(6,
                    "missing timeouts for frontend 'fe'. While not properly invalid, you will certainly encounter various problems with"
                            + " such a configuration. To fix this, please ensure that all following timeouts are set to a non-zero value:"
                            + " 'client'."));
        }

        @Test
        void noWarningWhenEverythingIsSet() {
            assertThat(parse(Configs.inFrontend("")).diagnostics()).isEmpty();
        }
    }

    @Nested
    class Reporting {
        @Test
        void threeErrorsAreAllReportedWithTheirLines() {
            String text = DEFAULTS + """
                    frontend fe
                        bind :80
                        bnd :81
                        use_backend missing
                        default_backend be
                    backend be
                        server s1 10.0.0.1:80
                        server s1 10.0.0.2:80
                    """;
            var r = parse(text);
            assertThat(r.ok()).isFalse();
            assertThat(r.config()).isNull();
            assertThat(r.diagnostics()).extracting(Diagnostic::toString).containsExactly(
                    "test.cfg:8: error: unknown keyword 'bnd' in 'frontend' section; did you mean 'bind' maybe ?",
                    "test.cfg:9: error: Proxy 'fe': unable to find required use_backend: 'missing'.",
                    "test.cfg:13: error: 'server be/s1' : server name 's1' is already used in backend 'be'.");
            assertThat(r.diagnostics()).allSatisfy(d -> {
                assertThat(d.file()).isEqualTo(FILE);
                assertThat(d.isError()).isTrue();
            });
        }

        @Test
        void diagnosticRendering() {
            assertThat(new Diagnostic("a.cfg", 3, Severity.ERROR, "boom")).hasToString("a.cfg:3: error: boom");
            assertThat(new Diagnostic("a.cfg", 3, Severity.WARNING, "hmm")).hasToString("a.cfg:3: warning: hmm");
            assertThat(new Diagnostic("a.cfg", 3, Severity.NOTICE, "fyi")).hasToString("a.cfg:3: notice: fyi");
            assertThat(new Diagnostic("a.cfg", 0, Severity.ERROR, "cannot open")).hasToString("a.cfg: error: cannot open");
            assertThat(new Diagnostic(null, 0, Severity.ERROR, "no file")).hasToString("error: no file");
            assertThat(new Diagnostic("a.cfg", 3, Severity.WARNING, "x").isError()).isFalse();
        }

        @Test
        void diagnosticsCollector() {
            Diagnostics d = new Diagnostics();
            assertThat(d.hasErrors()).isFalse();
            d.warning(new SourceRef("a.cfg", 1), "w");
            d.notice(null, "n");
            assertThat(d.hasErrors()).isFalse();
            assertThat(d.errorCount()).isZero();
            d.error(new SourceRef("a.cfg", 2), "e1");
            d.error("b.cfg", "e2");
            assertThat(d.hasErrors()).isTrue();
            assertThat(d.errorCount()).isEqualTo(2);
            assertThat(d.list()).extracting(Diagnostic::toString)
                    .containsExactly("a.cfg:1: warning: w", "notice: n", "a.cfg:2: error: e1", "b.cfg: error: e2");
            assertThatThrownBy(() -> d.list().clear()).isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void warningsDoNotPreventTheModel() {
            var r = parse("global\n.warning careful\n");
            assertThat(r.ok()).isTrue();
            assertThat(r.config()).isNotNull();
            assertThat(r.diagnostics()).extracting(Diagnostic::toString).containsExactly("test.cfg:2: warning: careful");
        }

        @Test
        void suggestions() {
            assertThat(Suggestions.closest("bnd", List.of("bind", "mode"))).isEqualTo("bind");
            assertThat(Suggestions.closest("xyz", List.of("bind", "mode"))).isNull();
            assertThat(Suggestions.closest("keep", List.of("http-keep-alive"))).isEqualTo("http-keep-alive");
            assertThat(Suggestions.closest("a", List.of())).isNull();
            assertThat(Suggestions.distance("ab", "ba")).isEqualTo(1);
            assertThat(Suggestions.distance("kitten", "sitting")).isEqualTo(3);
            assertThat(Suggestions.didYouMean(null)).isEmpty();
            assertThat(Suggestions.didYouMean("x")).isEqualTo("; did you mean 'x' maybe ?");
        }
    }
}

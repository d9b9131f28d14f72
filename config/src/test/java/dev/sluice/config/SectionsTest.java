package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.FILE;
import static dev.sluice.config.Configs.FRONTEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.proxy;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.Balance;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.HttpOptions.ConnectionMode;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyKind;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.Timeouts;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class SectionsTest {

    @Nested
    class Defaults {
        @Test
        void everyInheritedSetting() {
            Config c = valid("""
                    defaults
                        mode http
                        maxconn 100
                        timeout client 1s
                        timeout server 2s
                        timeout connect 3s
                        timeout http-request 4s
                        timeout http-keep-alive 5s
                        option http-server-close
                        option forwardfor except 10.0.0.0/8
                        default_backend be
                        balance roundrobin
                        default-server weight 5
                    frontend fe
                        bind :80
                    backend be
                        server s1 10.0.0.1:80
                    """);
            Proxy fe = proxy(c, "fe");
            Proxy be = proxy(c, "be");
            Timeouts expected = new Timeouts(1000, 2000, 3000, 4000, 5000, Timeouts.UNSET, Timeouts.UNSET, Timeouts.UNSET, Timeouts.UNSET,
                    Timeouts.UNSET, Timeouts.UNSET);
            HttpOptions http = new HttpOptions(ConnectionMode.SERVER_CLOSE, new HttpOptions.ForwardFor("X-Forwarded-For", "10.0.0.0/8", false));
            for (Proxy p : List.of(fe, be)) {
                assertThat(p.mode()).isEqualTo(Mode.HTTP);
                assertThat(p.timeouts()).isEqualTo(expected);
                assertThat(p.http()).isEqualTo(http);
                assertThat(p.balance()).isEqualTo(Balance.of(Balance.Algorithm.ROUNDROBIN, Configs.at(12)));
            }
            assertThat(fe.maxconn()).isEqualTo(100);
            assertThat(fe.defaultBackend()).isEqualTo("be");
            assertThat(be.servers()).containsExactly(new Server(Configs.at(17), "s1", "10.0.0.1", 80, 5).withId(1));
        }

        @Test
        void proxySettingsOverrideDefaults() {
            Config c = valid(Configs.DEFAULTS + """
                        option httpclose
                    frontend fe
                        bind :80
                        timeout client 9s
                        option http-keep-alive
                        default_backend be
                    backend be
                    """);
            assertThat(proxy(c, "fe").timeouts().client()).isEqualTo(9000);
            assertThat(proxy(c, "fe").http().connectionMode()).isEqualTo(ConnectionMode.KEEP_ALIVE);
            assertThat(proxy(c, "be").http().connectionMode()).isEqualTo(ConnectionMode.CLOSE);
        }

        @Test
        void aProxyUsesTheDefaultsInForceWhereItIsDeclared() {
            Config c = valid("""
                    defaults
                        mode http
                        timeout client 1s
                    frontend f1
                        bind :80
                    defaults
                        mode http
                        timeout client 2s
                    frontend f2
                        bind :81
                    """);
            assertThat(proxy(c, "f1").timeouts().client()).isEqualTo(1000);
            assertThat(proxy(c, "f2").timeouts().client()).isEqualTo(2000);
        }

        @Test
        void aNewDefaultsSectionStartsFromScratch() {
            // HAProxy: "only regular proxies inherit from the previous defaults section"
            Config c = valid("""
                    defaults
                        mode http
                        timeout client 1s
                        timeout server 1s
                        option httpclose
                        option forwardfor
                        default-server weight 7
                    defaults
                        mode http
                        timeout client 2s
                    frontend fe
                        bind :80
                    """);
            Proxy fe = proxy(c, "fe");
            assertThat(fe.timeouts().client()).isEqualTo(2000);
            assertThat(fe.timeouts().server()).isEqualTo(Timeouts.UNSET);
            assertThat(fe.http()).isEqualTo(new HttpOptions(ConnectionMode.KEEP_ALIVE, null));
        }

        @Test
        void namedDefaultsAndFrom() {
            Config c = valid("""
                    defaults web
                        mode http
                        timeout client 10s
                        timeout server 10s
                        timeout connect 1s
                    defaults api from web
                        timeout client 30s
                    defaults other
                        mode http
                        timeout client 1s
                        timeout server 1s
                        timeout connect 1s
                    frontend f1 from web
                        bind :80
                    frontend f2 from api
                        bind :81
                    frontend f3
                        bind :82
                    backend b1 from api
                    """);
            assertThat(proxy(c, "f1").timeouts().client()).isEqualTo(10_000);
            assertThat(proxy(c, "f2").timeouts().client()).isEqualTo(30_000);
            assertThat(proxy(c, "f2").timeouts().server()).isEqualTo(10_000);
            assertThat(proxy(c, "f3").timeouts().client()).isEqualTo(1000);
            assertThat(proxy(c, "b1").timeouts().server()).isEqualTo(10_000);
            assertThat(proxy(c, "b1").mode()).isEqualTo(Mode.HTTP);
        }

        @Test
        void unnamedDefaultsFromNamedOne() {
            Config c = valid("""
                    defaults base
                        mode http
                        timeout client 4s
                    defaults from base
                        option httpclose
                    frontend fe
                        bind :80
                    """);
            assertThat(proxy(c, "fe").timeouts().client()).isEqualTo(4000);
            assertThat(proxy(c, "fe").http().connectionMode()).isEqualTo(ConnectionMode.CLOSE);
        }

        @Test
        void unknownFromGetsASuggestion() {
            var r = parse("""
                    defaults web
                        mode http
                        timeout client 1s
                    frontend fe from wbe
                        mode http
                        timeout client 1s
                        bind :80
                    """);
            Diagnostic d = assertSingleError(r, 4, "");
            assertThat(d.message()).isEqualTo("'frontend' : defaults section 'wbe' not found; did you mean 'web' maybe ?.");
        }

        @Test
        void unknownFromWithoutNamedDefaults() {
            var r = parse(Configs.DEFAULTS + "frontend fe from web\n    mode http\n    timeout client 1s\n    bind :80\n");
            Diagnostic d = assertSingleError(r, 6, "");
            assertThat(d.message()).isEqualTo("'frontend' : defaults section 'web' not found.");
        }

        @Test
        void fromWithoutName() {
            var r = parse(Configs.DEFAULTS + "frontend fe from\n    bind :80\n");
            Diagnostic d = assertSingleError(r, 6, "");
            assertThat(d.message()).isEqualTo("'frontend' : 'from' expects the name of a defaults section.");
        }
    }

    @Nested
    class Headers {
        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "frontend fe 0.0.0.0:80 => 'frontend fe' : unexpected argument '0.0.0.0:80' (an address on the section line is not supported: use 'bind 0.0.0.0:80').",
                "frontend fe extra      => 'frontend fe' : unexpected argument 'extra'.",
                "frontend fe/x          => 'frontend' : invalid character in name 'fe/x'.",
                "frontend               => 'frontend' expects a name.",
        })
        void headerErrors(String header, String message) {
            var r = parse(Configs.DEFAULTS + header + "\n    bind :80\n");
            Diagnostic d = assertSingleError(r, 6, "");
            assertThat(d.message()).isEqualTo(message);
        }

        @Test
        void backendAndDefaultsNames() {
            assertSingleError(parse(Configs.DEFAULTS + "backend b@d\n"), 6, "'backend' : invalid character in name 'b@d'.");
            assertSingleError(parse("defaults d/x\n"), 1, "'defaults' : invalid character in name 'd/x'.");
            assertSingleError(parse(Configs.DEFAULTS + "backend\n"), 6, "'backend' expects a name.");
            assertSingleError(parse("global extra\n    daemon\n"), 1, "'global' takes no argument (got 'extra').");
        }

        @Test
        void globalMayAppearSeveralTimes() {
            Config c = valid("global\n    nbthread 2\nglobal\n    daemon\n");
            assertThat(c.global().nbthread()).isEqualTo(2);
            assertThat(c.global().daemon()).isTrue();
        }
    }

    @Nested
    class ProxyKinds {
        @Test
        void listenIsAFrontendAndABackend() {
            Config c = valid(Configs.DEFAULTS + """
                    frontend fe
                        bind :80
                        default_backend l
                    backend be
                        server b1 10.0.0.9:80
                    listen l
                        bind :81
                        acl api path_beg /api
                        http-request return status 200 if { path /health }
                        use_backend be if api
                        balance roundrobin
                        server s1 10.0.0.1:80 weight 3
                    """);
            Proxy l = proxy(c, "l");
            assertThat(l.kind()).isEqualTo(ProxyKind.LISTEN);
            assertThat(l.where()).isEqualTo(Configs.at(11));
            assertThat(l.binds()).extracting(b -> b.text()).containsExactly(":81");
            assertThat(l.useBackends()).extracting(u -> u.backend()).containsExactly("be");
            assertThat(l.servers()).extracting(Server::name, Server::weight).containsExactly(tuple("s1", 3));
            assertThat(l.httpRequestRules()).hasSize(1);
            assertThat(l.acls()).hasSize(1);
            assertThat(c.frontends()).extracting(Proxy::name).containsExactly("fe", "l");
            assertThat(c.backends()).extracting(Proxy::name).containsExactly("be", "l");
            assertThat(c.proxies()).extracting(Proxy::kind).containsExactly(ProxyKind.FRONTEND, ProxyKind.BACKEND, ProxyKind.LISTEN);
            assertThat(c.proxy("nope")).isEmpty();
        }

        @Test
        void frontendOnlyPartsAreEmptyOnBackends() {
            Config c = valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    maxconn 10\n    default_backend be\n") + """
                    frontend fe
                        bind :80
                    backend be
                        server s 10.0.0.1:80
                    """);
            Proxy be = proxy(c, "be");
            assertThat(be.maxconn()).isZero();
            assertThat(be.defaultBackend()).isNull();
            assertThat(be.binds()).isEmpty();
            assertThat(be.useBackends()).isEmpty();
            Proxy fe = proxy(c, "fe");
            assertThat(fe.servers()).isEmpty();
            assertThat(fe.maxconn()).isEqualTo(10);
            assertThat(fe.defaultBackend()).isEqualTo("be");
        }

        @Test
        void kindsKnowTheirCapabilities() {
            assertThat(ProxyKind.FRONTEND.hasFrontend()).isTrue();
            assertThat(ProxyKind.FRONTEND.hasBackend()).isFalse();
            assertThat(ProxyKind.BACKEND.hasFrontend()).isFalse();
            assertThat(ProxyKind.BACKEND.hasBackend()).isTrue();
            assertThat(ProxyKind.LISTEN.hasFrontend()).isTrue();
            assertThat(ProxyKind.LISTEN.hasBackend()).isTrue();
            assertThat(ProxyKind.LISTEN.keyword()).isEqualTo("listen");
        }

        @Test
        void modelIsImmutable() {
            Proxy fe = Configs.frontendOf("");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> fe.binds().clear()).isInstanceOf(UnsupportedOperationException.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> fe.acls().add(null)).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    class UnsupportedSections {

        static Stream<Arguments> sections() {
            return Unsupported.SECTIONS.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(e -> Arguments.of(e.getKey(), e.getValue()));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("sections")
        void reportedOnceAndBodySkipped(String section, String feature) {
            String text = section + " mine\n"
                    + "    peer a 10.0.0.1:1024\n"
                    + "    user admin password x\n"
                    + "    bind :80\n"
                    + "    mode tcp\n"
                    + "    nameserver dns 8.8.8.8:53\n"
                    + Configs.DEFAULTS
                    + "frontend fe\n"
                    + "    bind :80\n";
            var r = parse(text);
            Diagnostic d = assertSingleError(r, 1, "");
            assertThat(d.message()).isEqualTo("section '" + section + "' is not supported by Sluice yet: " + feature + ".");
        }

        @Test
        void skippingEndsAtTheNextSection() {
            var r = parse("traces\n    trace h1 sink stderr\nglobal\n    nbthrd 2\n");
            assertThat(Configs.errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                    tuple(1, "section 'traces' is not supported by Sluice yet: traces."),
                    tuple(4, "unknown keyword 'nbthrd' in 'global' section; did you mean 'nbthread' maybe ?"));
        }

        @Test
        void examples() {
            assertSingleError(parse("crt-store s\n    crt-base /etc\n"), 1, "section 'crt-store' is not supported by Sluice yet: certificate stores.");
        }
    }

    @Nested
    class Keywords {
        @Test
        void keywordOutsideASection() {
            var r = parse("maxconn 10\nglobal\n");
            Diagnostic d = assertSingleError(r, 1, "");
            assertThat(d.message()).isEqualTo("unknown keyword 'maxconn' out of section.");
        }

        private static String inSection(String section, String line) {
            return switch (section) {
                case "global" -> Configs.inGlobal(line);
                case "defaults" -> "defaults\n    " + line + "\n";
                case "frontend" -> Configs.inFrontend(line);
                case "backend" -> Configs.inBackend(line);
                default -> throw new IllegalArgumentException(section);
            };
        }

        private static int lineOf(String section) {
            return switch (section) {
                case "global", "defaults" -> 2;
                case "frontend" -> FRONTEND_LINE;
                case "backend" -> BACKEND_LINE;
                default -> throw new IllegalArgumentException(section);
            };
        }

        private static void assertMessage(String section, String line, String message) {
            Diagnostic d = assertSingleError(parse(inSection(section, line)), lineOf(section), "");
            assertThat(d.message()).isEqualTo(message);
        }

        @ParameterizedTest(name = "{1} in {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "global   => bind :80                => 'bind' is not allowed in 'global' section (allowed in: frontend, listen).",
                "global   => mode http               => 'mode' is not allowed in 'global' section (allowed in: defaults, frontend, backend, listen).",
                "global   => timeout client 1s       => 'timeout client' is not allowed in 'global' section (allowed in: defaults, frontend, listen).",
                "global   => option httpclose        => 'option httpclose' is not allowed in 'global' section (allowed in: defaults, frontend, backend, listen).",
                "defaults => bind :80                => 'bind' is not allowed in 'defaults' section (allowed in: frontend, listen).",
                "defaults => server s 10.0.0.1       => 'server' is not allowed in 'defaults' section (allowed in: backend, listen).",
                "defaults => nbthread 2              => 'nbthread' is not allowed in 'defaults' section (allowed in: global).",
                "defaults => http-request return     => 'http-request return' is not allowed in 'defaults' section (allowed in: frontend, backend, listen).",
                "frontend => nbthread 2              => 'nbthread' is not allowed in 'frontend' section (allowed in: global).",
                "frontend => daemon                  => 'daemon' is not allowed in 'frontend' section (allowed in: global).",
                "frontend => server s 10.0.0.1       => 'server' is not allowed in 'frontend' section (allowed in: backend, listen).",
                "frontend => balance roundrobin      => 'balance' is not allowed in 'frontend' section (allowed in: defaults, backend, listen).",
                "frontend => default-server weight 1 => 'default-server' is not allowed in 'frontend' section (allowed in: defaults, backend, listen).",
                "frontend => timeout connect 1s      => 'timeout connect' is not allowed in 'frontend' section (allowed in: defaults, backend, listen).",
                "backend  => bind :80                => 'bind' is not allowed in 'backend' section (allowed in: frontend, listen).",
                "backend  => default_backend be      => 'default_backend' is not allowed in 'backend' section (allowed in: defaults, frontend, listen).",
                "backend  => use_backend be          => 'use_backend' is not allowed in 'backend' section (allowed in: frontend, listen).",
                "backend  => timeout client 1s       => 'timeout client' is not allowed in 'backend' section (allowed in: defaults, frontend, listen).",
                "backend  => pidfile /x              => 'pidfile' is not allowed in 'backend' section (allowed in: global).",
        })
        void keywordInTheWrongSection(String section, String line, String message) {
            assertMessage(section, line, message);
        }

        @ParameterizedTest(name = "{1} in {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "frontend => bnd :80               => unknown keyword 'bnd' in 'frontend' section; did you mean 'bind' maybe ?",
                "frontend => default-backend be    => unknown keyword 'default-backend' in 'frontend' section; did you mean 'default_backend' maybe ?",
                "frontend => usebackend be         => unknown keyword 'usebackend' in 'frontend' section; did you mean 'use_backend' maybe ?",
                "frontend => timout client 1s      => unknown keyword 'timout' in 'frontend' section; did you mean 'timeout' maybe ?",
                "frontend => frobnicate            => unknown keyword 'frobnicate' in 'frontend' section",
                "frontend => option forwardfro     => unknown option 'forwardfro' in 'frontend' section; did you mean 'forwardfor' maybe ?",
                "frontend => option http-keepalive => unknown option 'http-keepalive' in 'frontend' section; did you mean 'http-keep-alive' maybe ?",
                "global   => maxconns 10           => unknown keyword 'maxconns' in 'global' section; did you mean 'maxconn' maybe ?",
                "global   => deamon                => unknown keyword 'deamon' in 'global' section; did you mean 'daemon' maybe ?",
                "global   => bnd :80               => unknown keyword 'bnd' in 'global' section",
                "backend  => servr s 10.0.0.1      => unknown keyword 'servr' in 'backend' section; did you mean 'server' maybe ?",
                "backend  => balanse roundrobin    => unknown keyword 'balanse' in 'backend' section; did you mean 'balance' maybe ?",
                "defaults => mod http              => unknown keyword 'mod' in 'defaults' section; did you mean 'mode' maybe ?",
        })
        void unknownKeywordsWithSuggestions(String section, String line, String message) {
            assertMessage(section, line, message);
        }

        @Test
        void optionAloneListsTheOptionsOfTheSection() {
            for (String line : new String[] {"option", "no option"}) {
                var r = Configs.parse("frontend fe\n    " + line + "\n");
                assertThat(Configs.errors(r)).extracting(Diagnostic::message).filteredOn(m -> m.startsWith("'option'")).singleElement()
                        .asString()
                        .startsWith("'option' expects a option (one of: forwardfor, http-keep-alive, ")
                        .contains(", httplog, ", ", dontlognull, ", ", logasap, ").endsWith(").");
            }
        }

        static Stream<Arguments> unsupportedKeywords() {
            return Unsupported.KEYWORDS.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(e -> {
                String[] w = e.getKey().split(" ");
                String kw = w.length > 2 ? w[0] + " " + w[1] : e.getKey();
                return Arguments.of(e.getKey(), kw, Unsupported.KEYWORDS.get(kw));
            });
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("unsupportedKeywords")
        void unsupportedKeywordsNameTheirFeature(String keyword, String reported, String feature) {
            assertMessage("frontend", keyword + " arg", "'" + reported + "' is not supported by Sluice yet: " + feature + ".");
        }

        @ParameterizedTest(name = "{1} in {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "global   => log tcp@127.0.0.1:514 local0 => 'log' : log target 'tcp@127.0.0.1:514' is not supported by Sluice yet (use stdout, stderr, a UDP address or a UNIX socket).",
                "frontend => stats disable                => 'stats disable' is not supported by Sluice yet: this stats page option.",
                "frontend => stats auth nocolon           => 'stats auth' : expects <user>:<passwd> as argument.",
                "frontend => stats uri                    => 'stats uri' : expects 1 argument(s); syntax: stats uri <prefix>.",
                "global   => stats maxconn 10             => 'stats maxconn' is not supported by Sluice yet: a connection limit on stats sockets.",
                "global   => stats sockets /run/s.sock    => unknown stats keyword 'sockets' in 'global' section; did you mean 'socket' maybe ?",
                "frontend => stats socket /run/s.sock     => 'stats socket' is not allowed in 'frontend' section (allowed in: global).",
                "global   => lua-load /etc/x.lua          => 'lua-load' is not supported by Sluice yet: Lua scripting.",
                "global   => nbproc 2                     => 'nbproc' is not supported by Sluice yet: multi-process mode (removed from HAProxy 2.5).",
                "frontend => http-request do-resolve(txn.ip,dns) hdr(host) => unknown http-request action 'do-resolve' in 'frontend' section",
                "frontend => tcp-request nope accept      => 'tcp-request' expects 'inspect-delay', 'connection', or 'content' in frontend 'fe' (got 'nope')",
                "frontend => tcp-request content ot-group g => 'tcp-request content ot-group' is not supported by Sluice yet: OpenTracing.",
                "frontend => filter spoe engine x         => 'filter spoe' is not supported by Sluice yet: SPOE/SPOA filters.",
                "frontend => filter trace                 => 'filter trace' is not supported by Sluice yet: the trace filter.",
                "frontend => filter bwlim-in x            => 'filter bwlim-in' is not supported by Sluice yet: bandwidth limitation filters.",
                "backend  => option spop-check           => 'option spop-check' is not supported by Sluice yet: SPOE/SPOA filters.",
        })
        void unsupportedKeywordExamples(String section, String line, String message) {
            assertMessage(section, line, message);
        }

        @Test
        void defaultOptionIsRejected() {
            assertMessage("frontend", "default option httpclose", "'default option' is not supported by Sluice.");
        }

        @Test
        void noOptionNegates() {
            Config c = valid(Configs.DEFAULTS + """
                        option http-server-close
                        option forwardfor
                    frontend fe
                        bind :80
                        no option http-server-close
                        no option forwardfor
                    """);
            assertThat(proxy(c, "fe").http()).isEqualTo(new HttpOptions(ConnectionMode.KEEP_ALIVE, null));
        }
    }

    @Nested
    class SeveralFiles {
        @Test
        void sectionsDoNotContinueIntoTheNextFile() {
            var r = Configs.parse(List.of(new ConfigParser.Source("a.cfg", "global\n"), new ConfigParser.Source("b.cfg", "    nbthread 2\n")));
            assertThat(r.diagnostics()).extracting(Diagnostic::file, Diagnostic::line, Diagnostic::message)
                    .containsExactly(tuple("b.cfg", 1, "unknown keyword 'nbthread' out of section."));
        }

        @Test
        void defaultsApplyAcrossFiles() {
            var r = Configs.parse(List.of(new ConfigParser.Source("a.cfg", Configs.DEFAULTS),
                    new ConfigParser.Source("b.cfg", "frontend fe\n    bind :80\n")));
            assertThat(r.diagnostics()).isEmpty();
            assertThat(proxy(r.config(), "fe").timeouts().client()).isEqualTo(5000);
            assertThat(proxy(r.config(), "fe").where()).isEqualTo(new SourceRef("b.cfg", 1));
        }

        @Test
        void sourceRefPrintsFileAndLine() {
            assertThat(new SourceRef(FILE, 12)).hasToString("test.cfg:12");
        }
    }
}

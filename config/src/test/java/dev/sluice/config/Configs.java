package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** Shared test helper: parses configuration text with a fixed environment and asserts on diagnostics. */
final class Configs {
    private Configs() {
    }

    static final String FILE = "test.cfg";

    /** Lines 1-5: an HTTP defaults section with every timeout the semantic check wants. */
    static final String DEFAULTS = """
            defaults
                mode http
                timeout client 5s
                timeout server 5s
                timeout connect 5s
            """;

    /** First line of the custom lines given to {@link #inFrontend}. */
    static final int FRONTEND_LINE = 9;
    /** First line of the custom lines given to {@link #inBackend}. */
    static final int BACKEND_LINE = 10;
    /** First line of the custom lines given to {@link #inGlobal}. */
    static final int GLOBAL_LINE = 2;

    static ConfigParser.Settings settings(Map<String, String> env) {
        return new ConfigParser.Settings(env::get, Set.of("OPENSSL", "THREAD"), "3.2");
    }

    static ConfigParser.Result parse(String text) {
        return parse(text, Map.of());
    }

    static ConfigParser.Result parse(String text, Map<String, String> env) {
        return new ConfigParser(KeywordRegistry.standard(), settings(env)).parse(List.of(new ConfigParser.Source(FILE, text)));
    }

    static ConfigParser.Result parse(List<ConfigParser.Source> sources) {
        return new ConfigParser(KeywordRegistry.standard(), settings(Map.of())).parse(sources);
    }

    /** Parses text that must give no diagnostic at all. */
    static Config valid(String text) {
        return valid(text, Map.of());
    }

    static Config valid(String text, Map<String, String> env) {
        ConfigParser.Result r = parse(text, env);
        assertThat(r.diagnostics()).as("diagnostics of:\n%s", text).isEmpty();
        assertThat(r.ok()).isTrue();
        return r.config();
    }

    /** Custom lines (indented here) in frontend 'fe', after DEFAULTS and backend 'be'; a final 'bind :8080' is added. */
    static String inFrontend(String lines) {
        return DEFAULTS + """
                backend be
                    server s1 127.0.0.1:8081
                frontend fe
                """ + indent(lines) + "    bind :8080\n";
    }

    /** Custom lines (indented here) in backend 'be', after DEFAULTS and a frontend 'fe' using it. */
    static String inBackend(String lines) {
        return DEFAULTS + """
                frontend fe
                    bind :8080
                    default_backend be
                backend be
                """ + indent(lines);
    }

    static String inGlobal(String lines) {
        return "global\n" + indent(lines);
    }

    static String indent(String lines) {
        return lines.lines().map(l -> "    " + l + "\n").collect(Collectors.joining());
    }

    static Proxy proxy(Config c, String name) {
        return c.proxy(name).orElseThrow();
    }

    static Proxy frontendOf(String lines) {
        return proxy(valid(inFrontend(lines)), "fe");
    }

    static Proxy backendOf(String lines) {
        return proxy(valid(inBackend(lines)), "be");
    }

    static List<Diagnostic> errors(ConfigParser.Result r) {
        return r.diagnostics().stream().filter(Diagnostic::isError).toList();
    }

    static List<Diagnostic> warnings(ConfigParser.Result r) {
        return r.diagnostics().stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING).toList();
    }

    /** Asserts that the parse failed with exactly one error, at {@code line}, whose message contains {@code part}. */
    static Diagnostic assertSingleError(ConfigParser.Result r, int line, String part) {
        List<Diagnostic> errors = errors(r);
        assertThat(errors).as("errors").hasSize(1);
        Diagnostic d = errors.getFirst();
        assertThat(d.file()).isEqualTo(FILE);
        assertThat(d.line()).as("line of %s", d).isEqualTo(line);
        assertThat(d.severity()).isEqualTo(Diagnostic.Severity.ERROR);
        assertThat(d.message()).contains(part);
        assertThat(r.ok()).isFalse();
        assertThat(r.config()).isNull();
        return d;
    }

    static SourceRef at(int line) {
        return new SourceRef(FILE, line);
    }
}

package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code default-path}: relative paths of the following lines start from the start directory, the configuration file's
 * directory, its parent or a given one, as HAProxy 2.6 resolves them (it changes its working directory per file).
 */
class DefaultPathTest {
    @TempDir
    Path root;
    private Path conf;

    private static final String PAGE = "HTTP/1.0 503 Service Unavailable\r\ncontent-type: text/plain\r\n\r\nfrom %s\n";

    @BeforeEach
    void files() throws IOException {
        conf = Files.createDirectories(root.resolve("conf"));
        Files.createDirectories(root.resolve("errors"));
        Files.createDirectories(conf.resolve("errors"));
        Files.writeString(root.resolve("errors/503.http"), PAGE.formatted("root"));
        Files.writeString(conf.resolve("errors/503.http"), PAGE.formatted("conf"));
    }

    private ConfigParser.Result parse(String dir, String... files) throws IOException {
        var sources = new java.util.ArrayList<ConfigParser.Source>();
        for (int i = 0; i < files.length; i += 2) {
            sources.add(new ConfigParser.Source(files[i], files[i + 1]));
        }
        var settings = Configs.settings(Map.of()).inDirectory(dir);
        return new ConfigParser(KeywordRegistry.standard(), settings).parse(sources);
    }

    private static String config(String global) {
        return "global\n    " + global + "\n" + Configs.DEFAULTS + """
                frontend fe
                    bind :8080
                    errorfile 503 errors/503.http
                    default_backend be
                backend be
                    server s1 127.0.0.1:8081
                """;
    }

    private static String page(Config c) {
        return new String(c.proxy("fe").orElseThrow().errors().pages().get(503)).replaceAll("(?s).*from ", "").trim();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "default-path config, conf",
            "default-path parent, root",
            "default-path current, root",
            "default-path origin conf, conf",
    })
    void errorfilesFollowThePolicy(String line, String expected) throws IOException {
        // the start directory is the temporary root (as -C would make it); the file is conf/haproxy.cfg
        var r = parse(root.toString(), root.resolve("conf/haproxy.cfg").toString(), config(line));
        assertThat(r.diagnostics()).isEmpty();
        assertThat(page(r.config())).isEqualTo(expected);
    }

    @Test
    void aFileNameWithoutDirectoryStaysInTheStartDirectory() throws IOException {
        var r = parse(root.toString(), "haproxy.cfg", config("default-path config"));
        assertThat(r.diagnostics()).isEmpty();
        assertThat(page(r.config())).isEqualTo("root");
    }

    @Test
    void eachFileHasItsDirectoryAndProxiesKeepIt() throws IOException {
        Path other = Files.createDirectories(root.resolve("other"));
        var r = parse(root.toString(), conf.resolve("a.cfg").toString(), "global\n    default-path config\n",
                other.resolve("b.cfg").toString(), Configs.DEFAULTS + """
                        frontend fe
                            bind :8080
                            bind :8443 ssl crt site.pem ca-file ca.pem
                            default_backend be
                        backend be
                            server s1 127.0.0.1:8081 ssl crt client.pem ca-file ca.pem
                        """);
        assertThat(r.diagnostics()).isEmpty();
        Proxy fe = r.config().proxy("fe").orElseThrow();
        assertThat(fe.directory()).isEqualTo(other.toString());
        assertThat(fe.binds().get(1).tls().certificates()).containsExactly(other.resolve("site.pem").toString());
        assertThat(fe.binds().get(1).tls().caFile()).isEqualTo(other.resolve("ca.pem").toString());
        var s = r.config().proxy("be").orElseThrow().servers().get(0).tls();
        assertThat(s.crt()).isEqualTo(other.resolve("client.pem").toString());
        assertThat(s.caFile()).isEqualTo(other.resolve("ca.pem").toString());
    }

    @Test
    void crtBaseComesFirstThenTheDirectory() throws IOException {
        var r = parse(null, conf.resolve("a.cfg").toString(), "global\n    default-path config\n    crt-base certs\n" + Configs.DEFAULTS + """
                frontend fe
                    bind :8443 ssl crt site.pem
                    bind :8444 ssl crt /abs/site.pem
                """);
        assertThat(r.diagnostics()).isEmpty();
        Proxy fe = r.config().proxy("fe").orElseThrow();
        assertThat(fe.binds().get(0).tls().certificates()).containsExactly(conf.resolve("certs/site.pem").toString());
        assertThat(fe.binds().get(1).tls().certificates()).containsExactly("/abs/site.pem");
    }

    @Test
    void withoutDefaultPathNothingChanges() throws IOException {
        var r = parse(null, conf.resolve("a.cfg").toString(), Configs.DEFAULTS + "frontend fe\n    bind :8443 ssl crt site.pem\n");
        assertThat(r.config().proxy("fe").orElseThrow().directory()).isNull();
        assertThat(r.config().proxy("fe").orElseThrow().binds().get(0).tls().certificates()).containsExactly("site.pem");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "default-path => missing default-path mode '' for 'default-path', supported modes include 'current', 'config', 'parent', and 'origin'.",
            "default-path foo => unsupported default-path mode 'foo' for 'default-path', supported modes include 'current', 'config', 'parent', and 'origin'.",
            "default-path origin => 'default-path origin' expects a directory as an argument.",
    })
    void errors(String line, String message) throws IOException {
        var r = parse(null, "test.cfg", "global\n    " + line + "\n");
        assertThat(Configs.errors(r)).extracting(Diagnostic::message).containsExactly(message);
    }

    @Test
    void anOriginThatDoesNotExist() throws IOException {
        var r = parse(root.toString(), "test.cfg", "global\n    default-path origin /nonexistent-dir\n");
        assertThat(Configs.errors(r)).extracting(Diagnostic::message).containsExactly("couldn't set 'default-path' to origin '/nonexistent-dir':"
                + " Impossible to get back to directory '" + root + "': No such file or directory.");
    }
}

package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFilesTest {

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.ISO_8859_1);
        return p;
    }

    @Test
    void aFileIsReadAsItIs() throws IOException {
        Path f = write("sluice.cfg", "global\n    daemon\n");
        ConfigFiles.Loaded loaded = ConfigFiles.load(List.of(f));
        assertThat(loaded.problems()).isEmpty();
        assertThat(loaded.sources()).containsExactly(new ConfigParser.Source(f.toString(), "global\n    daemon\n"));
    }

    @Test
    void anyFileNameIsReadWhenNamedExplicitly() throws IOException {
        Path f = write("haproxy.conf", "global\n");
        assertThat(ConfigFiles.load(List.of(f)).sources()).extracting(ConfigParser.Source::name).containsExactly(f.toString());
    }

    @Test
    void aDirectoryContributesItsCfgFilesInLexicalOrder() throws IOException {
        write("20-backends.cfg", "b");
        write("10-frontends.cfg", "f");
        write("00-global.cfg", "g");
        write("README.txt", "not config");
        write("99-disabled.cfg.bak", "not config");
        Files.createDirectories(dir.resolve("sub.cfg"));
        write("nested/50-nested.cfg", "not read");
        ConfigFiles.Loaded loaded = ConfigFiles.load(List.of(dir));
        assertThat(loaded.problems()).isEmpty();
        assertThat(loaded.sources()).extracting(ConfigParser.Source::name).containsExactly(
                dir.resolve("00-global.cfg").toString(), dir.resolve("10-frontends.cfg").toString(), dir.resolve("20-backends.cfg").toString());
        assertThat(loaded.sources()).extracting(ConfigParser.Source::text).containsExactly("g", "f", "b");
    }

    @Test
    void anEmptyDirectoryGivesNoSource() {
        ConfigFiles.Loaded loaded = ConfigFiles.load(List.of(dir));
        assertThat(loaded.sources()).isEmpty();
        assertThat(loaded.problems()).isEmpty();
    }

    @Test
    void aMissingFileIsADiagnostic() {
        Path missing = dir.resolve("missing.cfg");
        ConfigFiles.Loaded loaded = ConfigFiles.load(List.of(missing));
        assertThat(loaded.sources()).isEmpty();
        assertThat(loaded.problems()).containsExactly(
                new Diagnostic(missing.toString(), 0, Diagnostic.Severity.ERROR, "cannot open configuration file: No such file or directory"));
        assertThat(loaded.problems().getFirst()).hasToString(missing + ": error: cannot open configuration file: No such file or directory");
    }

    @Test
    void pathsAreReadInTheGivenOrderAndProblemsDoNotStopLoading() throws IOException {
        Path a = write("a.cfg", "A");
        Path confd = dir.resolve("conf.d");
        write("conf.d/x.cfg", "X");
        Path missing = dir.resolve("nope.cfg");
        ConfigFiles.Loaded loaded = ConfigFiles.load(List.of(confd, missing, a));
        assertThat(loaded.sources()).extracting(ConfigParser.Source::text).containsExactly("X", "A");
        assertThat(loaded.problems()).extracting(Diagnostic::file).containsExactly(missing.toString());
    }

    @Test
    void everyByteIsKept() throws IOException {
        Path f = dir.resolve("latin.cfg");
        Files.write(f, new byte[] {'#', ' ', (byte) 0xE9, (byte) 0xFF, '\n'});
        ConfigFiles.Loaded loaded = ConfigFiles.load(List.of(f));
        assertThat(loaded.sources().getFirst().text()).isEqualTo("# \u00e9\u00ff\n");
    }

    @Test
    void loadedDirectoryParsesAsOneConfiguration() throws IOException {
        write("00-defaults.cfg", Configs.DEFAULTS);
        write("10-frontend.cfg", "frontend fe\n    bind :80\n    default_backend be\n");
        write("20-backend.cfg", "backend be\n    server s1 10.0.0.1:80\n    bnd :1\n");
        ConfigFiles.Loaded loaded = ConfigFiles.load(List.of(dir));
        var r = Configs.parse(loaded.sources());
        assertThat(r.diagnostics()).extracting(Diagnostic::toString).containsExactly(
                dir.resolve("20-backend.cfg") + ":3: error: unknown keyword 'bnd' in 'backend' section");

        write("20-backend.cfg", "backend be\n    server s1 10.0.0.1:80\n");
        var ok = Configs.parse(ConfigFiles.load(List.of(dir)).sources());
        assertThat(ok.diagnostics()).isEmpty();
        Config c = ok.config();
        assertThat(Configs.proxy(c, "fe").timeouts().client()).isEqualTo(5000);
        assertThat(Configs.proxy(c, "be").servers().getFirst().where()).isEqualTo(new SourceRef(dir.resolve("20-backend.cfg").toString(), 2));
    }
}

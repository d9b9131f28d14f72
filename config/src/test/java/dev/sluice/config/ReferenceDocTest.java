package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The committed configuration reference must match what the keyword registry generates. */
class ReferenceDocTest {

    /** The test runs in the module directory (config/); the document lives in the project's docs/. */
    private static final Path DOC = Path.of("../docs/configuration.md");

    @Test
    void committedReferenceIsUpToDate() throws IOException {
        String expected = ReferenceDoc.render(KeywordRegistry.standard());
        assertThat(DOC).as("%s is missing: run ./sluice docs", DOC.toAbsolutePath().normalize()).exists();
        String committed = Files.readString(DOC, StandardCharsets.UTF_8);
        assertThat(committed)
                .as("%s is stale: run ./sluice docs to regenerate it from the keyword registry", DOC.toAbsolutePath().normalize())
                .isEqualTo(expected);
    }

    @Test
    void referenceListsEveryKeywordUnderEachOfItsSections() {
        KeywordRegistry registry = KeywordRegistry.standard();
        String doc = ReferenceDoc.render(registry);
        assertThat(doc).startsWith("# Sluice configuration reference\n");
        assertThat(doc).contains("Sluice speaks HAProxy " + ConfigParser.HAPROXY_LANGUAGE_VERSION + "'s language");
        for (Section s : Section.values()) {
            assertThat(doc).contains("\n## " + s.keyword() + "\n");
        }
        int rows = 0;
        for (Keyword k : registry.all()) {
            assertThat(doc).contains("| `" + k.name() + "` | `" + k.syntax().replace("|", "\\|") + "` |");
            rows += k.sections().size();
        }
        long tableRows = doc.lines().filter(l -> l.startsWith("| `")).count();
        assertThat(tableRows).isEqualTo(rows);
        // the syntax of bind contains a '|', which must be escaped in a table cell
        assertThat(doc).contains("`bind <address>:<port>[,...] \\| fd@<n> ");
    }

    @Test
    void registryRejectsDuplicates() {
        KeywordRegistry r = new KeywordRegistry();
        Keyword k = new Keyword("x", java.util.Set.of(Section.GLOBAL), "x", "x", c -> {
        });
        r.register(k);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> r.register(k)).isInstanceOf(IllegalStateException.class)
                .hasMessage("keyword registered twice: x");
    }
}

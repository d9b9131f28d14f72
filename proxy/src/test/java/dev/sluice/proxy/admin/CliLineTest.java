package dev.sluice.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** HAProxy's CLI line syntax: where commands end and how words and escapes are read. */
class CliLineTest {

    private static int end(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return CliLine.end(b, b.length);
    }

    @Test
    void commandsEndAtLineFeedOrUnescapedSemicolon() {
        assertThat(end("show info\nshow stat\n")).isEqualTo(9);
        assertThat(end("show info;show stat\n")).isEqualTo(9);
        assertThat(end("get weight a\\;b/c\n")).isEqualTo(17);
        assertThat(end("show info")).isEqualTo(-1);
        // an escaped line feed still ends the line, as in HAProxy
        assertThat(end("get weight a/b\\\n")).isEqualTo(15);
    }

    @Test
    void textDropsCarriageReturnAndStopsAtNul() {
        byte[] crlf = "show cli level\r\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(CliLine.text(crlf, 15)).isEqualTo("show cli level");
        byte[] nul = "show cli level\0junk\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(CliLine.text(nul, nul.length - 1)).isEqualTo("show cli level");
    }

    @Test
    void wordsSplitOnBlanksWithEscapes() {
        assertThat(CliLine.words("  show\tcli   level  ")).containsExactly("show", "cli", "level");
        assertThat(CliLine.words("get weight be\\;x/web\\ 1")).containsExactly("get", "weight", "be;x/web 1");
        assertThat(CliLine.words("a\\\\b c\\")).containsExactly("a\\b", "c");
        assertThat(CliLine.words("")).isEmpty();
        assertThat(CliLine.words("\\")).containsExactly("");
    }

    @Test
    void atMostSixtyFourWords() {
        List<String> w = CliLine.words("x ".repeat(100));
        assertThat(w).hasSize(CliLine.MAX_ARGS);
    }
}

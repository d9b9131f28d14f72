package dev.sluice.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Generates the configuration reference (docs/configuration.md) from the keyword registry, so the
 * document lists exactly what the parser accepts. {@code ReferenceDocTest} fails when the committed
 * file is stale; run {@code ./sluice docs} (this class's main) to regenerate it.
 */
public final class ReferenceDoc {
    private ReferenceDoc() {
    }

    public static String render(KeywordRegistry registry) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Sluice configuration reference\n\n");
        sb.append("Generated from the keyword registry (`ReferenceDoc`); do not edit by hand: run `./sluice docs`.\n\n");
        sb.append("Sluice reads HAProxy's configuration language. Lexical rules: words are separated by spaces; `#` starts a comment;\n");
        sb.append("`\"...\"` protects spaces and expands `$VAR`, `${VAR}`, `${VAR-default}` and `${VAR[*]}`; `'...'` protects\n");
        sb.append("everything; outside single quotes `\\ \\# \\\\ \\' \\\" \\n \\r \\t \\xNN` are escapes; a line ending in `\\` continues\n");
        sb.append("on the next. Times are milliseconds unless suffixed `us ms s m h d`; sizes take `k m g`. Conditions are\n");
        sb.append("`if|unless` followed by ACL names and anonymous `{ <fetch> [flags] <values> }` blocks, ANDed by juxtaposition,\n");
        sb.append("`||`/`or` (any case: `OR`) between alternatives, `!` (any number, glued or separate) to negate a named or\n");
        sb.append("anonymous ACL, as HAProxy 2.6's parse_acl_cond takes them. Sample fetches, converters and log-format variables\n");
        sb.append("are listed in [samples.md](samples.md). `.if/.elif/.else/.endif` blocks test `defined(VAR)`,\n");
        sb.append("`feature(NAME)` (the `-vv` list), `streq(a,b)`, `strneq(a,b)`, `version_atleast(v)`, `version_before(v)`,\n");
        sb.append("`ssllib_name_startswith(s)`, `openssl_version_atleast(x.y.z)`, `openssl_version_before(x.y.z)` (the TLS library\n");
        sb.append("is BoringSSL, OpenSSL 1.1.1's API), integers, `!`, `&&`, `||` and parentheses, as HAProxy 2.6 reads them;\n");
        sb.append("`sluice -cc <condition>` evaluates one (Sluice speaks HAProxy ").append(ConfigParser.HAPROXY_LANGUAGE_VERSION)
                .append("'s language).\n\n");
        sb.append("An unknown keyword or argument is an error; a HAProxy keyword that Sluice does not implement yet is an\n");
        sb.append("error that names the missing feature.\n");
        for (Section s : Section.values()) {
            List<Keyword> list = new ArrayList<>();
            for (Keyword k : registry.all()) {
                if (k.sections().contains(s)) {
                    list.add(k);
                }
            }
            list.sort(Comparator.comparing(Keyword::name));
            sb.append("\n## ").append(s.keyword()).append("\n\n");
            sb.append("| keyword | syntax | description |\n|---|---|---|\n");
            for (Keyword k : list) {
                sb.append("| `").append(k.name()).append("` | `").append(k.syntax().replace("|", "\\|")).append("` | ")
                        .append(k.description().replace("|", "\\|")).append(" |\n");
            }
        }
        return sb.toString();
    }

    public static void main(String[] args) throws IOException {
        String text = render(KeywordRegistry.standard());
        if (args.length == 0) {
            System.out.print(text);
        } else {
            Files.writeString(Path.of(args[0]), text, StandardCharsets.UTF_8);
        }
    }
}

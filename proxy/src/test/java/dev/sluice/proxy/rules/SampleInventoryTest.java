package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every sample fetch and converter keyword of HAProxy 2.6.0 (the keyword tables of its sources, in
 * src/test/resources/haproxy-2.6) is either implemented or listed as missing with a reason, never both, so that the
 * lists cannot drift from the code.
 */
class SampleInventoryTest {
    static List<String> keywords(String file) throws IOException {
        List<String> out = new ArrayList<>();
        try (InputStream in = SampleInventoryTest.class.getResourceAsStream("/haproxy-2.6/" + file)) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    out.add(line.split(" ")[0]);
                }
            }
        }
        return out;
    }

    private static void check(List<String> haproxy, Set<String> implemented, Map<String, String> missing) {
        Set<String> neither = new TreeSet<>();
        Set<String> both = new TreeSet<>();
        for (String k : haproxy) {
            boolean has = implemented.contains(k);
            boolean listed = missing.containsKey(k);
            if (!has && !listed) {
                neither.add(k);
            }
            if (has && listed) {
                both.add(k);
            }
        }
        assertThat(neither).as("HAProxy 2.6 keywords neither implemented nor listed missing").isEmpty();
        assertThat(both).as("keywords implemented and listed missing").isEmpty();
        for (Map.Entry<String, String> e : missing.entrySet()) {
            assertThat(e.getValue()).as("the reason " + e.getKey() + " is missing").isNotBlank();
        }
    }

    @Test
    void everyFetchIsImplementedOrMissingWithAReason() throws IOException {
        List<String> haproxy = keywords("fetches.txt");
        assertThat(haproxy).hasSizeGreaterThan(450).contains("src", "req.hdr", "ssl_fc_sni", "sc0_http_req_rate");
        check(haproxy, Fetches.names(), Fetches.MISSING);
    }

    @Test
    void everyConverterIsImplementedOrMissingWithAReason() throws IOException {
        List<String> haproxy = keywords("converters.txt");
        assertThat(haproxy).hasSizeGreaterThan(130).contains("sha2", "map_regm", "json_query");
        check(haproxy, Converters.names(), Converters.MISSING);
    }

    @Test
    void missingKeywordsAreRefusedWithTheirReason() {
        for (Map.Entry<String, String> e : Fetches.MISSING.entrySet()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RuleCompiler.sample(e.getKey()))
                    .hasMessageContaining("not supported by Sluice").hasMessageContaining(e.getValue());
        }
        for (Map.Entry<String, String> e : Converters.MISSING.entrySet()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RuleCompiler.sample("str(x)," + e.getKey()))
                    .hasMessageContaining("not supported by Sluice").hasMessageContaining(e.getValue());
        }
    }
}

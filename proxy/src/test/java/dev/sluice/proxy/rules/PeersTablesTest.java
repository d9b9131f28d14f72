package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.sticktable.TableOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tables of peers sections and the proxies' tables that name a section: names, replication, problems. */
class PeersTablesTest {
    private static Config parse(String text) {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(k -> null, Set.of(), "2.6")
                .withLocalPeer("me")).parse(List.of(new ConfigParser.Source("t.cfg", text)));
        assertThat(r.ok()).as("%s", r.diagnostics()).isTrue();
        return r.config();
    }

    @Test
    void peersTablesAreNamedAfterTheirSectionAndReplicate() {
        Config c = parse("""
                peers p
                    peer me 127.0.0.1:1
                    peer other 127.0.0.1:2
                    table t type string len 16 size 10 store gpc0
                    table u type ip size 10 foo
                peers off
                    disabled
                    peer me 127.0.0.1:3
                    table v type ip size 10
                frontend fe
                    mode http
                    timeout client 1s
                    bind :8080
                    stick-table type ip size 10 peers p
                backend be
                    stick-table type ip size 10 peers off
                """);
        List<String> problems = new ArrayList<>();
        StickTables t = StickTables.of(c, problems);
        assertThat(problems).containsExactly("t.cfg:5: error: 'table' : unknown argument 'foo'; expected type, size, expire, nopurge, peers, srvkey or store.");
        assertThat(t.get("p/t").spec().peers()).isEqualTo("p");
        assertThat(t.get("p/t").spec().keyLength()).isEqualTo(16);
        assertThat(t.get("p/t").updateRecording()).isEqualTo(TableOptions.UpdateRecording.OWN_LOCK);
        assertThat(t.get("off/v").spec().peers()).isNull();
        assertThat(t.get("fe").spec().peers()).isEqualTo("p");
        assertThat(t.get("be").spec().peers()).as("a disabled section does not replicate").isNull();
    }
}

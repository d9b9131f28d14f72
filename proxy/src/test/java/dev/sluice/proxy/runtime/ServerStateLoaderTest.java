package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.proxy.backend.SavedServerState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How server state files are read and matched to the configured servers (HAProxy 2.6's apply_server_state): the global
 * file by backend and server names, a local file by backend id or name with HAProxy's warnings, the version line, corrupted
 * files, duplicates, unknown servers, invalid fields.
 */
class ServerStateLoaderTest {
    @TempDir
    Path dir;

    private static final String HEADER = "1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight"
            + " srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state"
            + " bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr"
            + " srv_agent_port\n";

    /** A version-1 line of backend be (id) for server srv (id 1), with this admin state and weight. */
    private static String line(int beId, String be, String srv, int admin, int weight) {
        return beId + " " + be + " 1 " + srv + " 127.0.0.1 2 " + admin + " " + weight + " 1 7 1 0 4 0 0 0 0 - 8080 - 0 0 - - 0\n";
    }

    private Config config(String global, String backends) {
        String text = "global\n" + global + """
                defaults
                    mode http
                    timeout client 1s
                    timeout server 1s
                    timeout connect 1s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend a
                """ + backends;
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "3.2"))
                .parse(List.of(new ConfigParser.Source("t.cfg", text)));
        assertThat(r.ok()).as(r.diagnostics().toString()).isTrue();
        return r.config();
    }

    @Test
    void globalFileMatchesByNames() throws Exception {
        Files.writeString(dir.resolve("state"), HEADER + line(99, "a", "s1", 1, 5) + line(3, "a", "nope", 0, 1) + line(3, "zz", "s1", 0, 1)
                + "   # a comment\n\n" + line(3, "a", "s1", 0, 9) + line(4, "b", "s1", 8, 3));
        Config c = config("    server-state-base " + dir + "\n    server-state-file state\n", """
                backend a
                    load-server-state-from-file global
                    server s1 127.0.0.1:80
                    server s2 127.0.0.1:81
                backend b
                    server s1 127.0.0.1:80
                """);
        List<String> w = new ArrayList<>();
        var states = ServerStateLoader.load(c, w);
        // ids are not looked at; the first line of a pair wins; unknown backends and servers go unmentioned; b loads none
        assertThat(w).isEmpty();
        assertThat(states).containsOnlyKeys("a");
        assertThat(states.get("a")).containsOnlyKeys("s1");
        SavedServerState s1 = states.get("a").get("s1");
        assertThat(s1.adminState()).isEqualTo(1);
        assertThat(s1.uweight()).isEqualTo(5);
        assertThat(s1.port()).isEqualTo(8080);
        assertThat(s1.sinceLastChange()).isEqualTo(7);
    }

    @Test
    void localFileChecksIdsAndNames() throws Exception {
        // proxies are numbered from 2 in configuration order: fe 2, a 3, b 4
        Files.writeString(dir.resolve("a"), HEADER + line(3, "a", "s1", 0, 2) + line(7, "a", "s2", 0, 3) + line(3, "old", "s3", 0, 4)
                + line(9, "x", "s1", 0, 5) + line(3, "a", "ghost", 0, 1));
        Files.writeString(dir.resolve("bfile"), HEADER + line(4, "renamed", "s1", 0, 6) .replace(" 0 0 - 8080", " 1 0 - 8080"));
        Config c = config("    server-state-base " + dir + "/\n", """
                backend a
                    load-server-state-from-file local
                    server s1 127.0.0.1:80
                    server s2 127.0.0.1:81
                    server s3 127.0.0.1:82
                backend b
                    load-server-state-from-file local
                    server-state-file-name bfile
                    server s1 127.0.0.1:80
                backend c
                    load-server-state-from-file local
                    server s1 127.0.0.1:80
                """);
        List<String> w = new ArrayList<>();
        var states = ServerStateLoader.load(c, w);
        assertThat(w).containsExactly(
                "t.cfg:11: warning: Proxy 'a': backend ID mismatch: from server state file: '7', from running config '3'",
                "t.cfg:11: warning: Proxy 'a': backend name mismatch: from server state file: 'old', from running config 'a'",
                "t.cfg:11: warning: Proxy 'a': can't find server 'ghost' in backend 'a'",
                "t.cfg:16: warning: Proxy 'b': backend name mismatch: from server state file: 'renamed', from running config 'b'",
                "t.cfg:20: warning: Proxy 'c': Can't open server state file '" + dir + "/c': No such file or directory.");
        // s3's line is dropped (name mismatch, id not forced); b's is kept: its backend id was forced
        assertThat(states.get("a")).containsOnlyKeys("s1", "s2");
        assertThat(states.get("a").get("s2").uweight()).isEqualTo(3);
        assertThat(states.get("b").get("s1").uweight()).isEqualTo(6);
    }

    @Test
    void unusableFiles() throws Exception {
        String backends = """
                backend a
                    load-server-state-from-file global
                    server s1 127.0.0.1:80
                """;
        List<String> w = new ArrayList<>();
        assertThat(ServerStateLoader.load(config("    server-state-file " + dir + "/none\n", backends), w)).isEmpty();
        assertThat(w).containsExactly("t.cfg:2: warning: config: Can't open global server state file '" + dir
                + "/none': No such file or directory");
        // read even when no backend loads it, as HAProxy does
        w.clear();
        assertThat(ServerStateLoader.load(config("    server-state-file " + dir + "/none\n", "backend a\n    server s1 127.0.0.1:80\n"), w))
                .isEmpty();
        assertThat(w).hasSize(1);
        for (String bad : List.of("", "2\n", "1", "1x\n", "x\n")) {
            Files.writeString(dir.resolve("v"), bad + line(3, "a", "s1", 0, 1));
            w.clear();
            assertThat(ServerStateLoader.load(config("    server-state-file " + dir + "/v\n", backends), w)).as(bad).isEmpty();
            assertThat(w).as(bad).containsExactly("t.cfg:2: warning: config: Can't get version of the global server state file '" + dir + "/v'.");
        }
        // a short line, or a last line without its line feed: the whole file is dropped, lines counted after the version
        for (String last : List.of("3 a 1 s1 127.0.0.1 2 0\n", line(3, "a", "s1", 0, 1).strip())) {
            Files.writeString(dir.resolve("c"), "1\n" + line(3, "a", "s1", 0, 1) + last);
            w.clear();
            assertThat(ServerStateLoader.load(config("    server-state-file " + dir + "/c\n", backends), w)).isEmpty();
            assertThat(w).containsExactly("t.cfg:2: warning: config: corrupted global server state file '" + dir + "/c' at line 2.");
        }
    }

    @Test
    void invalidFieldsAreNamedAndNothingApplies() throws Exception {
        Files.writeString(dir.resolve("s"), "1\n3 a 1 s1 127.0.0.1 7 9 300 1 x 1 9 4 0 0 0 0 - 8080 - 0 0 - - 0\n");
        Config c = config("    server-state-file " + dir + "/s\n", """
                backend a
                    load-server-state-from-file global
                    server s1 127.0.0.1:80
                """);
        List<String> w = new ArrayList<>();
        assertThat(ServerStateLoader.load(c, w)).isEmpty();
        assertThat(w).containsExactly("t.cfg:11: warning: server-state application failed for server 'a/s1', invalid srv_op_state value '7',"
                + " invalid srv_admin_state value '9', invalid srv_uweight value '300', invalid srv_last_time_change value 'x',"
                + " invalid srv_check_result value '9'");
    }
}

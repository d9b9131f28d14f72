package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Server state files across a restart, Sluice beside HAProxy 2.6: servers are changed over the admin socket (forced
 * maintenance, a weight, a drain, a disabled server made ready, a disabled health check, a server forced down), {@code show
 * servers state} is written to the file, and the daemon started again with {@code load-server-state-from-file} (global file
 * for one backend, a local file for another, with a changed port in the configuration, a line of an unknown server and a
 * backend id that no longer matches, a server whose name does not resolve given its address by the file). After the start, {@code show servers state} (the seconds since the last change
 * masked), the state columns of {@code show stat} and HAProxy's start-up lines about the restored servers must be HAProxy's.
 */
class ServerStateFileTest {

    private static String config(Path state, int port, int o1, int o2, int s2Port) {
        return """
                global
                    stats socket @DIR@/admin.sock level admin
                    server-state-base %s
                    server-state-file global-state
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                    load-server-state-from-file global
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                    server s2 127.0.0.1:%d weight 10
                    server s3 127.0.0.1:%d
                    server s4 127.0.0.1:%d disabled
                    server s5 127.0.0.1:%d check inter 2s
                    server s6 127.0.0.1:%d id 16
                    server s7 localhost:%d
                    server s8 name.does-not-resolve.invalid:%d init-addr last,none
                backend loc
                    load-server-state-from-file local
                    server-state-file-name loc-state
                    server l1 127.0.0.1:%d
                    server l2 127.0.0.1:%d weight 0
                """.formatted(state, port, o1, s2Port, o1, o1, o2, o2, o2, o1, o1, o2);
    }

    private record Run(String servers, String stat, List<String> lines) {
    }

    /** Changes, dump, restart: the second process's view of its servers and its start-up lines about them. */
    private static Run run(boolean haproxy, int o1, int o2) throws Exception {
        Path state = Files.createTempDirectory(haproxy ? "haproxy-state" : "sluice-state");
        int port = Ports.free();
        try (Daemon d = Daemon.start(haproxy, config(state, port, o1, o2, o1), port)) {
            Path sock = d.dir().resolve("admin.sock");
            ServerQueueTest.awaitStat(d, "be,s5", "check_status", "L4OK");
            String answers = AdminClient.run(sock, "set server be/s1 state maint;set server be/s2 weight 50;set server be/s3 state drain;"
                    + "set server be/s4 state ready;disable health be/s5;set server be/s6 health down;set server be/s7 weight 3;"
                    + "set server loc/l2 state drain;set server loc/l1 weight 7\n");
            assertThat(answers.strip()).as("answers of %s", d.name()).isEmpty();
            String dump = AdminClient.run(sock, "show servers state\n");
            assertThat(dump).contains(" s8 - 0 32 ");
            // s8's name does not resolve: it gets an address through the file (init-addr last), as a hand-made line gives it
            dump = dump.replaceAll("(?m)^3 be 8 s8 .*$", "3 be 8 s8 127.0.0.1 2 0 1 1 5 1 0 4 0 0 0 0 name.does-not-resolve.invalid " + o1
                    + " - 0 0 - - 0");
            Files.writeString(state.resolve("global-state"), dump);
            // the local file: loc's lines with another backend id (a warning, the lines still apply) and an unknown server
            StringBuilder local = new StringBuilder("1\n");
            for (String l : AdminClient.run(sock, "show servers state loc\n").lines().toList()) {
                if (l.startsWith("4 loc ")) {
                    local.append("40").append(l.substring(1)).append('\n');
                }
            }
            local.append("40 loc 9 gone 127.0.0.1 2 0 1 1 0 1 0 2 0 0 0 0 - 80 - 0 0 - - 0\n");
            Files.writeString(state.resolve("loc-state"), local.toString());
        }
        int port2 = Ports.free();
        // s2's port changed in the configuration: HAProxy 2.6 keeps the one of the state file
        try (Daemon d = Daemon.start(haproxy, config(state, port2, o1, o2, o2), port2)) {
            Path sock = d.dir().resolve("admin.sock");
            List<String> servers = new ArrayList<>();
            for (String l : AdminClient.run(sock, "show servers state\n").lines().toList()) {
                String[] f = l.split(" ");
                if (f.length > 10 && !l.startsWith("#")) {
                    f[9] = "T";
                }
                servers.add(String.join(" ", f));
            }
            StringBuilder stat = new StringBuilder();
            for (String row : List.of("be,s1", "be,s2", "be,s3", "be,s4", "be,s5", "be,s6", "be,s7", "be,s8", "be,BACKEND", "loc,l1", "loc,l2")) {
                stat.append(row);
                for (String col : List.of("status", "weight", "act", "addr", "chkdown")) {
                    stat.append(' ').append(col).append('=').append(ServerQueueTest.stat(d, row, col));
                }
                stat.append('\n');
            }
            // the start-up lines about the restored servers and the state files, from "Server"/"Proxy" on
            Map<String, String> lines = new TreeMap<>();
            for (String l : d.output().lines().toList()) {
                int at = Math.max(l.indexOf("Server "), l.indexOf("Proxy '"));
                if (at >= 0) {
                    lines.put(l.substring(at), "");
                }
            }
            return new Run(String.join("\n", servers), stat.toString(), List.copyOf(lines.keySet()));
        }
    }

    @Test
    void restartWithTheStateFileAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        try (Origin a = Origin.start("a"); Origin b = Origin.start("b")) {
            Run theirs = run(true, a.port(), b.port());
            Run ours = run(false, a.port(), b.port());
            // kept for a reader: what both printed after the restart
            Files.writeString(Path.of("target/server-state-file.txt"), "HAProxy 2.6:\n" + theirs + "\n\nSluice:\n" + ours + "\n");
            assertThat(theirs.servers()).contains(" s2 127.0.0.1 2 0 50 10 T ").contains(" " + a.port() + " - 0 0 - - 0");
            assertThat(theirs.stat()).contains("be,s8 status=no check weight=1 act=1 addr=127.0.0.1:" + a.port());
            assertThat(ours.servers()).as("show servers state after the restart").isEqualTo(theirs.servers());
            assertThat(ours.stat()).as("show stat after the restart").isEqualTo(theirs.stat());
            assertThat(theirs.lines()).contains("Proxy 'loc': can't find server 'gone' in backend 'loc'");
            assertThat(ours.lines()).as("start-up lines").isEqualTo(theirs.lines());
        }
    }

    /** Lines with problems in the keywords, as {@code haproxy -c} and {@code sluice -c} report them: {@code line message}. */
    private static final String BAD_KEYWORDS = """
            global
                server-state-file /tmp/a
                server-state-file /tmp/b
                server-state-base /tmp
                server-state-base /var
            defaults
                mode http
                timeout client 1s
                timeout server 1s
                timeout connect 1s
            frontend fe
                bind 127.0.0.1:1
                load-server-state-from-file local
                server-state-file-name foo
                default_backend be
            backend be
                load-server-state-from-file bogus
                server s1 127.0.0.1:2
            backend be3
                server-state-file-name a b
                server s1 127.0.0.1:2
            """;

    /** A valid configuration whose state files are missing or not set. */
    private static final String MISSING_FILES = """
            defaults
                mode http
                timeout client 1s
                timeout server 1s
                timeout connect 1s
                load-server-state-from-file global
            frontend fe
                bind 127.0.0.1:1
                default_backend be
            backend be
                server s1 127.0.0.1:2
            backend be2
                load-server-state-from-file local
                server-state-file-name /nonexistent/be2-state
                server s1 127.0.0.1:2
            """;

    @Test
    void checkModeMessagesAsHaproxy() throws Exception {
        String haproxy = Program.HAPROXY.require();
        // parse problems: on their lines, in HAProxy's words (its "already specified" is an alert that does not fail)
        List<String> ours = new ArrayList<>();
        for (String l : Sluice.check(BAD_KEYWORDS).output().lines().toList()) {
            if (l.contains(": error: ") || l.contains(": warning: ")) {
                ours.add(l.replaceFirst("^.*?:(\\d+): (error|warning): ", "$1 "));
            }
        }
        List<String> theirs = new ArrayList<>();
        for (String l : haproxyCheck(haproxy, BAD_KEYWORDS).lines().toList()) {
            if (l.contains("parsing [")) {
                theirs.add(l.replaceFirst("^.*parsing \\[[^:]*:(\\d+)\\] ?: ", "$1 "));
            }
        }
        assertThat(theirs).hasSize(6);
        assertThat(ours).containsExactlyInAnyOrderElementsOf(theirs);
        // after parsing: the global file not set, a local file missing
        List<String> ourWarnings = Sluice.check(MISSING_FILES).output().lines().filter(l -> l.contains(": warning: "))
                .map(l -> l.replaceFirst("^.*?: warning: ", "")).toList();
        List<String> theirWarnings = haproxyCheck(haproxy, MISSING_FILES).lines().filter(l -> l.startsWith("[WARNING]"))
                .map(l -> l.replaceFirst("^\\[WARNING\\] *\\(\\d+\\) : config : ", "")).toList();
        assertThat(theirWarnings).hasSize(2);
        assertThat(ourWarnings).containsExactlyInAnyOrderElementsOf(theirWarnings);
    }

    private static String haproxyCheck(String haproxy, String config) throws Exception {
        Process h = new ProcessBuilder(haproxy, "-c", "-f", Sluice.writeConfig(config).toString()).redirectErrorStream(true).start();
        String out = new String(h.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        h.waitFor();
        return out;
    }

    /**
     * A reload ({@code -sf}): the new process reads the file the operator wrote from the old one's {@code show servers state}
     * just before, and starts with its servers in the same state while the old one leaves.
     */
    @Test
    void aReloadWithSfTakesTheSavedState() throws Exception {
        try (Origin a = Origin.start("a")) {
            Path dir = Files.createTempDirectory("sluice-reload-state");
            Path sock = dir.resolve("admin.sock");
            int port = Ports.free();
            Path cfg = Sluice.writeConfig("""
                    global
                        stats socket %1$s level admin
                        server-state-file %2$s
                    defaults
                        mode http
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                        load-server-state-from-file global
                    frontend fe
                        bind 127.0.0.1:%3$d
                        default_backend be
                    backend be
                        server s1 127.0.0.1:%4$d
                        server s2 127.0.0.1:%4$d weight 10
                    """.formatted(sock, dir.resolve("state"), port, a.port()));
            try (Sluice old = Sluice.start(cfg, List.of(), Map.of(), port)) {
                AdminClient.await(sock);
                assertThat(AdminClient.run(sock, "set server be/s1 state maint;set server be/s2 weight 42\n").strip()).isEmpty();
                Files.writeString(dir.resolve("state"), AdminClient.run(sock, "show servers state\n"));
                try (Sluice fresh = Sluice.start(cfg, List.of("-sf", Long.toString(old.pid())), Map.of(), port)) {
                    assertThat(old.process().onExit().get(15, TimeUnit.SECONDS).isAlive()).isFalse();
                    AdminClient.await(sock);
                    String state = AdminClient.run(sock, "show servers state\n");
                    assertThat(state).contains(" be 1 s1 127.0.0.1 0 1 1 1 ").contains(" be 2 s2 127.0.0.1 2 0 42 10 ");
                    assertThat(fresh.process().isAlive()).isTrue();
                    // the balancing follows: s2 only
                    for (int i = 0; i < 3; i++) {
                        try (RawClient c = new RawClient(port)) {
                            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().header("x-origin")).isEqualTo("a");
                        }
                    }
                    assertThat(stat(sock, "be,s2", "stot")).isEqualTo("3");
                    assertThat(stat(sock, "be,s1", "stot")).isEqualTo("0");
                }
            }
        }
    }

    private static String stat(Path sock, String row, String column) {
        List<String> lines = AdminClient.run(sock, "show stat\n").lines().toList();
        List<String> header = List.of(lines.get(0).substring(2).split(",", -1));
        return lines.stream().filter(l -> l.startsWith(row + ",")).findFirst().orElseThrow().split(",", -1)[header.indexOf(column)];
    }
}

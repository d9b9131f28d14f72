package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agent checks ({@code agent-check}) through the real daemon and HAProxy 2.6 side by side, against one agent (a TCP
 * server in the test) whose answer the test changes step by step: after each answer, the servers' {@code show stat}
 * columns (status, weight, slim, the agent columns), their {@code show servers state} fields and the transition lines
 * both print must be the same (durations and PIDs aside). External checks: a script in a temporary directory that exits
 * with the status the test sets, the servers' states, check columns and lines as HAProxy's, its arguments and environment
 * the same, and {@code -c}'s messages with and without {@code insecure-fork-wanted}.
 */
class AgentAndExternalCheckTest {
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    /** The agent closes without a word. */
    private static final String CLOSE = "<close>";
    /** The agent sends what follows without an end of line, then closes. */
    private static final String HALF = "<half>";

    /** An agent: answers every connection with the current {@link #reply} and a line feed (nothing for {@link #CLOSE}), then closes. */
    private static final class Agent implements AutoCloseable {
        final ServerSocket socket;
        volatile String reply = "";
        final Thread thread;

        Agent() {
            try {
                socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            thread = Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try (Socket c = socket.accept()) {
                        String r = reply;
                        if (r.startsWith(HALF)) {
                            c.getOutputStream().write(r.substring(HALF.length()).getBytes(StandardCharsets.ISO_8859_1));
                        } else if (!r.equals(CLOSE)) {
                            c.getOutputStream().write((r + "\n").getBytes(StandardCharsets.ISO_8859_1));
                        }
                    } catch (IOException e) {
                        // closed
                    }
                }
            });
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static final String CONFIG = """
            global
                log stdout format raw local0
                stats socket @DIR@/admin.sock level admin
            defaults
                mode http
                log global
                timeout connect 1s
                timeout client 5s
                timeout server 5s
                # an answer has 2 s (without it, the whole check has agent-inter: too short on a busy machine)
                timeout check 2s
            frontend fe
                bind 127.0.0.1:%d
                default_backend be
            backend be
                balance roundrobin
                option log-health-checks
                default-server agent-port %d agent-inter 150ms
                server s1 127.0.0.1:%d weight 10 agent-check
                server s2 127.0.0.1:%d weight 10 check inter 150ms agent-check
            """;

    private static final List<String> COLUMNS = List.of("status", "weight", "slim", "check_status", "agent_status", "agent_code",
            "agent_desc", "last_agt", "agent_rise", "agent_fall", "agent_health");

    /** What each daemon shows after each answer. */
    private static List<String> play(Daemon d, Agent agent, List<String> replies) {
        List<String> out = new ArrayList<>();
        for (String r : replies) {
            agent.reply = r;
            Daemon.sleep(700);
            out.add("== " + r);
            // a running check has no description yet (HAProxy clears it as a check starts): read between checks
            String stat = AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n");
            for (int i = 0; i < 100 && stat.contains(",* "); i++) {
                Daemon.sleep(5);
                stat = AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n");
            }
            List<String> header = List.of(stat.lines().findFirst().orElseThrow().substring(2).split(",", -1));
            stat.lines().filter(l -> l.startsWith("be,s")).forEach(l -> {
                String[] f = l.split(",", -1);
                StringBuilder b = new StringBuilder(f[1]);
                for (String c : COLUMNS) {
                    b.append(' ').append(c).append('=').append(f[header.indexOf(c)].replace("* ", ""));
                }
                out.add(b.toString());
            });
            // srv_name srv_op_state srv_admin_state srv_uweight srv_agent_addr srv_agent_port (srv_agent_state has the
            // in-progress bit)
            for (String l : AdminClient.run(d.dir().resolve("admin.sock"), "show servers state be\n").lines().skip(2).toList()) {
                String[] f = l.split(" ");
                if (f.length > 24) {
                    out.add(f[3] + " " + f[5] + " " + f[6] + " " + f[7] + " " + (Integer.parseInt(f[14]) & ~1) + " " + f[23] + " " + f[24]);
                }
            }
        }
        out.add("== lines");
        // the two agents run in no set order: the lines are compared as a sorted list, without the server counts
        d.output().lines().filter(l -> l.startsWith("Server be/") || l.startsWith("Agent check"))
                .map(l -> l.replaceAll("check duration: \\d+ms", "check duration: Nms").replaceAll("\\d+ active and \\d+ backup", "N active and N backup"))
                .sorted().forEach(out::add);
        return out;
    }

    private static final List<String> REPLIES = List.of("50%", "drain", "down # going away", "up", "ready 100% maxconn:30", "bogus 20%",
            "maint", "fail", "up ready", "stopped,drain#bye", "ready, up", CLOSE, HALF + "down");

    @Test
    void agentAnswersActAsInHaproxy() {
        Program.HAPROXY.require();
        Agent agent = new Agent();
        closing.add(agent);
        Origin origin = Origin.start("o");
        closing.add(origin);
        List<List<String>> results = new ArrayList<>();
        for (boolean haproxy : new boolean[] {true, false}) {
            int port = Ports.free();
            try (Daemon d = Daemon.start(haproxy, CONFIG.formatted(port, agent.port(), origin.port(), origin.port()), port)) {
                Daemon.sleep(500);
                results.add(play(d, agent, REPLIES));
            }
            agent.reply = "";
        }
        assertThat(results.get(1)).as("sluice (left) vs haproxy").containsExactlyElementsOf(results.get(0));
        // the answers did what they say
        assertThat(results.get(1)).contains("s1 status=DOWN (agent) weight=5 slim= check_status= agent_status=L7STS agent_code=0"
                + " agent_desc=Layer7 wrong status last_agt=via agent : down (going away) agent_rise=1 agent_fall=1 agent_health=0");
        assertThat(results.get(1)).contains("Agent check for server be/s1 failed, reason: Layer7 wrong status, code: 0, info: \"via agent : down"
                + " (going away)\", check duration: Nms, status: 0/1 DOWN.", "Server be/s1 remains in forced drain mode.");
    }

    // ------------------------------------------------------------------ external checks

    @TempDir
    Path tmp;

    private static final String EXTERNAL = """
            global
                log stdout format raw local0
                stats socket @DIR@/admin.sock level admin
                external-check
                insecure-fork-wanted
            defaults
                mode http
                log global
                timeout connect 1s
                timeout client 5s
                timeout server 5s
            listen be
                bind 127.0.0.1:%d
                option external-check
                option log-health-checks
                external-check command %s
                external-check path /usr/bin:/bin
                server s1 127.0.0.1:%d check inter 200ms rise 1 fall 1
            """;

    /** Check columns and lines after each exit status; the environment and arguments the script saw. */
    private List<String> playExternal(boolean haproxy, Path script, Path rc, Path seen, int origin) throws IOException {
        List<String> out = new ArrayList<>();
        Files.writeString(rc, "0");
        int port = Ports.free();
        try (Daemon d = Daemon.start(haproxy, EXTERNAL.formatted(port, script, origin), port)) {
            for (String code : List.of("0", "1", "0", "3")) {
                Files.writeString(rc, code);
                Daemon.sleep(800);
                String stat = AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n");
                List<String> header = List.of(stat.lines().findFirst().orElseThrow().substring(2).split(",", -1));
                String[] f = stat.lines().filter(l -> l.startsWith("be,s1,")).findFirst().orElseThrow().split(",", -1);
                out.add(code + ": " + f[header.indexOf("status")] + " " + f[header.indexOf("check_status")].replace("* ", "") + " "
                        + f[header.indexOf("check_code")] + " " + f[header.indexOf("check_desc")]);
            }
            out.add("== lines");
            // the same line twice in a row (one per check) counts once: checks run at their own pace
            String last = null;
            for (String l : d.output().lines().filter(l -> l.startsWith("Server be/") || l.startsWith("Health check"))
                    .map(l -> l.replaceAll("check duration: \\d+ms", "check duration: Nms")).toList()) {
                if (!l.equals(last)) {
                    out.add(l);
                }
                last = l;
            }
        }
        // the proxy's port differs from one daemon to the other
        out.add("== seen");
        Files.readAllLines(seen).stream().map(l -> l.replace(Integer.toString(port), "PORT")).forEach(out::add);
        return out;
    }

    @Test
    void externalCheckFollowsTheExitStatusAsInHaproxy() throws IOException {
        Program.HAPROXY.require();
        Origin origin = Origin.start("o");
        closing.add(origin);
        Path rc = tmp.resolve("rc");
        Path seen = tmp.resolve("seen");
        Path script = tmp.resolve("check.sh");
        // written whole, then renamed: the test reads the file while the next check may be writing it
        Files.writeString(script, "#!/bin/sh\n{ echo \"$0 $*\"; env | grep -v '^PWD=' | sort; } > " + seen + ".$$ && mv -f " + seen + ".$$ " + seen
                + "\nexit $(cat " + rc + ")\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> haproxy = playExternal(true, script, rc, seen, origin.port());
        List<String> sluice = playExternal(false, script, rc, seen, origin.port());
        assertThat(sluice).as("sluice (left) vs haproxy").containsExactlyElementsOf(haproxy);
        assertThat(sluice).contains("1: DOWN PROCERR 1 External check error", "3: DOWN PROCERR 3 External check error",
                script + " 127.0.0.1 PORT 127.0.0.1 " + origin.port(), "HAPROXY_SERVER_NAME=s1", "PATH=/usr/bin:/bin");
    }

    @Test
    void checkModeSaysWhatHaproxySays() {
        String base = """
                global
                %s
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 1s
                    timeout server 1s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                %s
                    server s1 127.0.0.1:80 check
                """;
        record Case(String global, String backend) {
        }
        List<Case> cases = List.of(
                new Case("    external-check", "    option external-check\n    external-check command /bin/true"),
                new Case("    insecure-fork-wanted", "    option external-check\n    external-check command /bin/true"),
                new Case("    external-check\n    insecure-fork-wanted", "    option external-check"),
                new Case("    external-check\n    insecure-fork-wanted", "    option external-check\n    external-check command true"),
                new Case("    external-check\n    insecure-fork-wanted", "    external-check command /bin/true\n    external-check path /bin"));
        for (Case k : cases) {
            Path cfg = Sluice.writeConfig(base.formatted(k.global(), Ports.free(), k.backend()));
            String h;
            try {
                Process p = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", cfg.toString()).redirectErrorStream(true).start();
                h = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor();
            } catch (IOException | InterruptedException e) {
                throw new AssertionError(e);
            }
            Sluice.Result s = Sluice.run(List.of("-c", "-f", cfg.toString()), Map.of());
            List<String> expected = h.lines().filter(l -> l.contains("Proxy 'be'") || l.contains("will be ignored"))
                    .map(l -> l.substring(l.indexOf(" : config : ") + " : config : ".length())).toList();
            assertThat(expected).as("haproxy -c for %s", k).isNotEmpty();
            for (String m : expected) {
                assertThat(s.output()).as("sluice -c for %s", k).contains(m);
            }
        }
    }
}

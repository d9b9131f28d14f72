package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * hatop, HAProxy's interactive console, against Sluice's stats socket: run in a tmux session (send-keys to
 * drive it, capture-pane to read its screen), it shows the proxies and servers on each of its screens, its
 * embedded CLI answers, and it quits without an error. Every screen it waited for is kept in
 * {@code target/hatop-screens.txt}. Skipped when hatop or tmux is not installed.
 */
class HatopTest {
    /** The screens captured so far, each under a line telling what it was waited for. */
    static final StringBuilder SCREENS = new StringBuilder();

    /** Runs tmux on its own server socket; returns its output. */
    static String tmux(String socket, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket, "-f", "/dev/null"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(Program.command(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    /** Captures the screen until it contains {@code text} (hatop redraws every second or so). */
    static String awaitScreen(String socket, String text) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        String screen = "";
        while (System.nanoTime() < deadline) {
            screen = tmux(socket, "capture-pane", "-p", "-t", "hatop");
            if (screen.contains(text)) {
                SCREENS.append("---- hatop's screen showing '").append(text).append("'\n").append(screen);
                return screen;
            }
            Thread.sleep(100);
        }
        SCREENS.append("---- hatop's screen never showed '").append(text).append("'\n").append(screen);
        throw new AssertionError("hatop's screen never showed '" + text + "':\n" + screen);
    }

    @Test
    void hatopShowsTheProxiesOnEveryScreen() throws Exception {
        Program.HATOP.require();
        Program.TMUX.require();
        try (Origin web1 = Origin.start("web1")) {
            Path dir = Files.createTempDirectory("sluice-hatop");
            Path sock = dir.resolve("admin.sock");
            int fe = Ports.free();
            try (Sluice s = Sluice.start("""
                    global
                        stats socket %s level admin
                    defaults
                        mode http
                        timeout client 5s
                        timeout server 5s
                        timeout connect 1s
                    frontend fe_main
                        bind 127.0.0.1:%d
                        default_backend be_web
                    backend be_web
                        server web1 127.0.0.1:%d
                        server web2 127.0.0.1:%d weight 5
                    """.formatted(sock, fe, web1.port(), web1.port()), fe)) {
                AdminClient.await(sock);
                assertThat(AdminSocketTest.get(fe, "/")).isEqualTo("200 web1");
                String socket = "sluice-hatop-" + ProcessHandle.current().pid();
                Path err = dir.resolve("hatop.err");
                try {
                    tmux(socket, "new-session", "-d", "-s", "hatop", "-x", "160", "-y", "50", "hatop -s " + sock + " 2> " + err);
                    String status = awaitScreen(socket, ">>> be_web");
                    assertThat(status).contains("Sluice Version: ").contains("PID: " + s.pid()).contains(">>> fe_main")
                            .containsPattern("(?m)^FRONTEND +0 OPEN").containsPattern("(?m)^web1 +1 ").containsPattern("(?m)^web2 +5 ")
                            .containsPattern("(?m)^BACKEND +6 UP");
                    tmux(socket, "send-keys", "-t", "hatop", "2");
                    assertThat(awaitScreen(socket, "LBTOT")).contains(">>> be_web");
                    tmux(socket, "send-keys", "-t", "hatop", "3");
                    assertThat(awaitScreen(socket, "2xx")).contains(">>> fe_main");
                    tmux(socket, "send-keys", "-t", "hatop", "4");
                    assertThat(awaitScreen(socket, "ECONN")).contains(">>> be_web");
                    // the embedded CLI
                    tmux(socket, "send-keys", "-t", "hatop", "5");
                    awaitScreen(socket, "embedded interactive HAProxy shell");
                    tmux(socket, "send-keys", "-t", "hatop", "show backend", "Enter");
                    assertThat(awaitScreen(socket, "# name")).contains("be_web");
                    tmux(socket, "send-keys", "-t", "hatop", "Escape");
                    tmux(socket, "send-keys", "-t", "hatop", "1");
                    awaitScreen(socket, "QCUR");
                    tmux(socket, "send-keys", "-t", "hatop", "q");
                    long deadline = System.nanoTime() + 10_000_000_000L;
                    while (tmux(socket, "has-session", "-t", "hatop").isEmpty() && System.nanoTime() < deadline) {
                        Thread.sleep(100);
                    }
                    assertThat(tmux(socket, "has-session", "-t", "hatop")).as("hatop quit").isNotEmpty();
                    assertThat(Files.readString(err)).as("hatop's error output").isEmpty();
                } finally {
                    tmux(socket, "kill-server");
                    Path artefact = Path.of("target", "hatop-screens.txt").toAbsolutePath();
                    Files.createDirectories(artefact.getParent());
                    Files.writeString(artefact, SCREENS);
                }
                assertThat(Files.readString(Path.of("target", "hatop-screens.txt"))).contains("---- hatop's screen showing '>>> be_web'\n")
                        .contains(">>> fe_main").contains("# name");
                assertThat(s.process().isAlive()).isTrue();
            }
        }
    }
}

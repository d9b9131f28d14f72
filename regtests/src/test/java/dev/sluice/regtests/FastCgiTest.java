package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * FastCGI applications ({@code fcgi-app}, {@code use-fcgi-app}, {@code proto fcgi}) against a real php-fpm (Debian package
 * php-fpm: php-fpm8.2 in the foreground on a free port, with its own configuration in a temporary directory, stopped by
 * PID at the end). Sluice and HAProxy 2.6 run the same configuration: the responses (status, fields, body) and the
 * parameters PHP sees ($_SERVER, echoed by a script) must be the same, the application's STDERR logged by both; with
 * {@code option keep-conn} the connection to php-fpm stays open for the next request, without it it closes.
 */
class FastCgiTest {
    private static Path dir;
    private static Process fpm;
    private static int fpmPort;

    private static final String INFO = """
            <?php
            header("X-Script: info");
            $keys = ["GATEWAY_INTERFACE", "DOCUMENT_ROOT", "SCRIPT_NAME", "SCRIPT_FILENAME", "PATH_INFO", "PATH_TRANSLATED", "REQUEST_URI",
                "REQUEST_METHOD", "QUERY_STRING", "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "REMOTE_ADDR", "CONTENT_LENGTH",
                "CONTENT_TYPE", "HTTPS", "HTTP_HOST", "HTTP_USER_AGENT", "HTTP_X_TEST", "HTTP_X_DOCROOT", "HTTP_AUTHORIZATION", "REMOTE_USER",
                "AUTH_TYPE", "PHP_AUTH_USER", "MY_PARAM", "HTTP_CONNECTION", "HTTP_TE", "HTTP_X_UNDER_SCORE", "HTTP_EXPECT", "HTTP_X_FOO",
                "HTTP_KEEP_ALIVE", "HTTP_PROXY_CONNECTION", "HTTP_UPGRADE"];
            foreach ($keys as $k) { echo $k, "=", isset($_SERVER[$k]) ? $_SERVER[$k] : "<unset>", "\\n"; }
            echo "BODY=", file_get_contents("php://input"), "\\n";
            """;

    /** Starts the class's php-fpm on first use (each test asks, so that a skip names php-fpm in every test). */
    private static synchronized void startFpm() throws Exception {
        String exe = Program.PHP_FPM.require();
        if (fpm != null) {
            return;
        }
        dir = Files.createTempDirectory("php-fpm");
        Path www = Files.createDirectories(dir.resolve("www"));
        Files.writeString(www.resolve("info.php"), INFO);
        Files.writeString(www.resolve("status.php"), "<?php\nhttp_response_code(404);\nerror_log(\"something on stderr\");\necho \"not here\\n\";\n");
        Files.writeString(www.resolve("index.php"), "<?php echo \"index \", $_SERVER[\"SCRIPT_NAME\"], \"\\n\";\n");
        Files.writeString(www.resolve("redirect.php"), "<?php header(\"Location: /elsewhere\");\n");
        fpmPort = Ports.free();
        // -R: the pool may run as root (CI); as another user the user line is ignored with a notice
        Files.writeString(dir.resolve("fpm.conf"), """
                [global]
                error_log = %s/fpm.log
                daemonize = no
                [www]
                user = %s
                listen = 127.0.0.1:%d
                pm = static
                pm.max_children = 16
                clear_env = no
                """.formatted(dir, System.getProperty("user.name"), fpmPort));
        fpm = new ProcessBuilder(exe, "-F", "-R", "-n", "-y", dir.resolve("fpm.conf").toString(), "-p", dir.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("fpm.out").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", fpmPort)) {
                return;
            } catch (java.io.IOException e) {
                assertThat(fpm.isAlive()).as("php-fpm: %s", Files.readString(dir.resolve("fpm.out"))).isTrue();
                assertThat(System.nanoTime()).as("php-fpm listening").isLessThan(deadline);
                Daemon.sleep(20);
            }
        }
    }

    @AfterAll
    static void stopFpm() throws Exception {
        if (fpm != null) {
            fpm.destroy();
            if (!fpm.waitFor(10, TimeUnit.SECONDS)) {
                fpm.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static String config(int port, String appLines) {
        return """
                global
                    log stdout format raw local0 info
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 2s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend php
                backend php
                    use-fcgi-app app
                    http-request set-header X-Docroot %%[fcgi.docroot]
                    server fpm 127.0.0.1:%d proto fcgi
                fcgi-app app
                    docroot %s
                    index index.php
                    path-info ^(/.+\\.php)(/.*)?$
                    log-stderr global
                    set-param MY_PARAM %%[req.hdr(x-test)]-x if { req.hdr(x-test) -m found }
                    pass-header Authorization
                %s
                """.formatted(port, fpmPort, dir.resolve("www"), appLines);
    }

    /** What curl shows of each request ({@code -i}), the port and the Date field masked. */
    private static List<String> exchanges(int port) throws Exception {
        String base = "http://127.0.0.1:" + port;
        List<List<String>> requests = List.of(
                List.of("-i", "-H", "X-Test: hello", "-H", "X-Under_score: 1", "-u", "bob:pw", base + "/info.php/extra/path?a=1&b=2"),
                List.of("-i", "-d", "x=1&y=2", base + "/info.php"),
                List.of("-i", "-H", "Transfer-Encoding: chunked", "--data-binary", "chunked body", base + "/info.php"),
                List.of("-i", base + "/status.php"),
                List.of("-i", base + "/"),
                List.of("-I", base + "/index.php"),
                List.of("-i", base + "/nothere.php"),
                List.of("-i", base + "/redirect.php"),
                List.of("-i", "-H", "Expect: 100-continue", "-d", "e=1", base + "/info.php"),
                List.of("-i", "-H", "Connection: keep-alive, X-Foo, TE", "-H", "X-Foo: 1", "-H", "TE: gzip, trailers", "-H", "Keep-Alive: 300",
                        "-H", "Proxy-Connection: keep-alive", "-H", "Upgrade: h2c", base + "/info.php"));
        List<String> out = new ArrayList<>();
        for (List<String> r : requests) {
            String text = CurlTest.curl(r.toArray(String[]::new));
            out.add(text.replace(Integer.toString(port), "PORT").replaceAll("(?im)^date: .*$", "date: <masked>"));
        }
        return out;
    }

    @Test
    void responsesAndParametersAreHaproxys() throws Exception {
        startFpm();
        Program.CURL.require();
        Program.HAPROXY.require();
        int port = Ports.free();
        int hport = Ports.free();
        try (Daemon s = Daemon.start(false, config(port, ""), port); Daemon h = Daemon.start(true, config(hport, ""), hport)) {
            List<String> sluice = exchanges(port);
            List<String> haproxy = exchanges(hport);
            for (int i = 0; i < sluice.size(); i++) {
                assertThat(sluice.get(i)).as("exchange %d against HAProxy 2.6", i).isEqualTo(haproxy.get(i));
            }
            assertThat(sluice.get(0)).startsWith("HTTP/1.1 200 OK").contains("SCRIPT_NAME=/info.php\n", "PATH_INFO=/extra/path\n",
                    "QUERY_STRING=a=1&b=2\n", "SCRIPT_FILENAME=" + dir.resolve("www") + "/info.php\n", "REMOTE_USER=bob\n", "MY_PARAM=hello-x\n",
                    "HTTP_X_DOCROOT=" + dir.resolve("www") + "\n", "HTTP_X_UNDER_SCORE=<unset>\n", "x-script: info");
            assertThat(sluice.get(2)).contains("CONTENT_LENGTH=12\n", "BODY=chunked body\n");
            assertThat(sluice.get(3)).startsWith("HTTP/1.1 404 Not Found");
            assertThat(sluice.get(4)).contains("index /index.php");
            assertThat(sluice.get(7)).startsWith("HTTP/1.1 302 Moved Temporarily").contains("location: /elsewhere");
            // the proxy answers the expectation itself, as HAProxy does for a FastCGI request, and PHP does not see it
            assertThat(sluice.get(8)).startsWith("HTTP/1.1 100 Continue").contains("BODY=e=1\n").doesNotContain("100-continue");
            // the hop-by-hop fields are in the request as in HAProxy's: the application's hidden ones stay hidden, the
            // others (a field Connection lists, Proxy-Connection) reach PHP as they reach it behind HAProxy
            assertThat(sluice.get(9)).contains("HTTP_CONNECTION=<unset>\n", "HTTP_TE=<unset>\n", "HTTP_KEEP_ALIVE=<unset>\n",
                    "HTTP_UPGRADE=<unset>\n", "HTTP_X_FOO=1\n", "HTTP_PROXY_CONNECTION=keep-alive\n");
            assertThat(s.awaitLines(l -> l.contains("something on stderr"), 1)).as("Sluice's log").isNotEmpty();
            assertThat(h.awaitLines(l -> l.contains("something on stderr"), 1)).as("HAProxy's log").isNotEmpty();
        }
    }

    /** The connections from 127.0.0.1 to php-fpm that are established now (both ends are on this host: counted twice). */
    private static long toFpm() throws Exception {
        Process p = new ProcessBuilder(Program.SS.require(), "-Htn", "state", "established", "( dport = :" + fpmPort + " )").start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return out.lines().filter(l -> !l.isBlank()).count();
    }

    @Test
    void keepConnKeepsTheConnectionForTheNextRequestAsHaproxy() throws Exception {
        startFpm();
        Program.CURL.require();
        Program.HAPROXY.require();
        for (boolean haproxy : new boolean[] {false, true}) {
            for (boolean keep : new boolean[] {true, false}) {
                int port = Ports.free();
                try (Daemon d = Daemon.start(haproxy, config(port, keep ? "" : "    no option keep-conn"), port)) {
                    String url = "http://127.0.0.1:" + port + "/index.php";
                    // two requests on one client connection: the second takes the idle server connection (http-reuse safe)
                    assertThat(CurlTest.curl(url, url)).isEqualTo("index /index.php\nindex /index.php\n");
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                    long n = toFpm();
                    while (n != (keep ? 1 : 0) && System.nanoTime() < deadline) {
                        Daemon.sleep(50);
                        n = toFpm();
                    }
                    assertThat(n).as("%s, keep-conn %s: connections left open to php-fpm", d.name(), keep).isEqualTo(keep ? 1 : 0);
                }
            }
        }
    }

    /** The health-check lines of {@code d}, the durations and PIDs masked. */
    private static List<String> checkLines(Daemon d, int n) {
        return d.awaitLines(l -> l.contains("Health check for server") || l.contains(" is DOWN"), n).stream()
                .map(l -> l.replaceFirst("^.*?(Health check|Server)", "$1").replaceAll("check duration: \\d+ms", "check duration: Nms")).toList();
    }

    @Test
    void httpChecksOfFcgiServersSpeakFastCgiAsHaproxy() throws Exception {
        startFpm();
        Program.HAPROXY.require();
        String checks = """
                    option httpchk GET /index.php
                    http-check expect string index
                    option log-health-checks
                    timeout check 5s
                    default-server check inter 1s rise 1 fall 1
                """;
        String failing = checks.replace("/index.php", "/nothere.php").replace("string index", "status 200");
        // the same check written as HAProxy 2.2+ configurations do: http-check connect proto fcgi, send, expect
        String connect = checks.replace("    http-check expect string index\n",
                "    http-check connect proto fcgi\n    http-check send meth GET uri /index.php\n    http-check expect string index\n");
        for (String backendLines : List.of(checks, failing, connect)) {
            int port = Ports.free();
            int hport = Ports.free();
            String cfg = config(port, "").replace("    use-fcgi-app app\n", "    use-fcgi-app app\n" + backendLines);
            String hcfg = config(hport, "").replace("    use-fcgi-app app\n", "    use-fcgi-app app\n" + backendLines);
            try (Daemon s = Daemon.start(false, cfg, port); Daemon h = Daemon.start(true, hcfg, hport)) {
                List<String> hl = checkLines(h, 1);
                List<String> sl = checkLines(s, 1);
                assertThat(hl).as("HAProxy's check lines").isNotEmpty();
                assertThat(sl.get(0)).as("Sluice's first check line against HAProxy's").isEqualTo(hl.get(0));
            }
        }
    }
}

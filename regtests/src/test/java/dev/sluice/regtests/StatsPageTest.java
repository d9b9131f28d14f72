package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HTML stats page ({@code stats enable|uri|refresh|auth|realm|admin|hide-version|show-legends|scope}):
 * the page as a browser renders it (headless Chromium: the DOM after rendering and a screenshot kept as
 * {@code target/stats-page.png}; skipped without chromium), the CSV at {@code <uri>;csv}, basic
 * authentication, actions on servers posted from the page (the status codes are HAProxy 2.6's for the same forms, checked
 * against it by hand: {@code curl -d <form>} on a page with {@code stats admin if TRUE}), and the refresh header.
 */
class StatsPageTest {
    static Origin web1;
    static Origin web2;
    static Sluice sluice;
    static Path admin;
    static int feMain;
    static int feStats;
    static int feSecure;

    @BeforeAll
    static void start() throws IOException {
        web1 = Origin.start("web1");
        web2 = Origin.start("web2");
        admin = Files.createTempDirectory("sluice-page").resolve("admin.sock");
        feMain = Ports.free();
        feStats = Ports.free();
        feSecure = Ports.free();
        sluice = Sluice.start("""
                global
                    stats socket %1$s level admin
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 1s
                frontend fe_main
                    bind 127.0.0.1:%2$d
                    default_backend be_web
                listen stats
                    bind 127.0.0.1:%3$d
                    stats enable
                    stats uri /stats
                    stats refresh 5s
                    stats show-legends
                    stats show-node
                    stats admin if LOCALHOST
                listen secure
                    bind 127.0.0.1:%4$d
                    stats uri /admin?stats
                    stats auth ops:s3cret
                    stats realm Operators
                    stats hide-version
                    stats show-modules
                    stats scope be_web
                backend be_web
                    server web1 127.0.0.1:%5$d
                    server web2 127.0.0.1:%6$d weight 2
                backend be_chk
                    server c1 127.0.0.1:%5$d check inter 1h
                """.formatted(admin, feMain, feStats, feSecure, web1.port(), web2.port()), feMain, feStats, feSecure);
        AdminClient.await(admin);
    }

    @AfterAll
    static void stop() {
        if (sluice != null) {
            sluice.close();
        }
        web1.close();
        web2.close();
    }

    static RawClient.Response request(int port, String head) {
        try (RawClient c = new RawClient(port)) {
            return c.send(head).read();
        }
    }

    static RawClient.Response get(int port, String target, String... fields) {
        StringBuilder b = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: x\r\n");
        for (String f : fields) {
            b.append(f).append("\r\n");
        }
        return request(port, b.append("\r\n").toString());
    }

    static RawClient.Response post(int port, String target, String form) {
        return request(port, "POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                + form.length() + "\r\n\r\n" + form);
    }

    static String text(RawClient.Response r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void pageHasOneTablePerProxyWithServerStatesAndTheRefresh() {
        RawClient.Response r = get(feStats, "/stats");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("text/html");
        assertThat(r.header("refresh")).isEqualTo("5");
        String html = text(r);
        assertThat(html).contains("<title>Statistics Report for pid " + sluice.pid() + "</title>").contains("version ")
                .contains("id=\"px-fe_main\"").contains("id=\"px-be_web\"").contains("id=\"px-stats\"")
                .contains("<tr class=\"active_no_check\"><td><input type=\"checkbox\" name=\"s\" value=\"web1\"></td><td class=\"name\" title=\"127.0.0.1:"
                        + web1.port() + "\">web1</td>")
                .contains("<select name=\"action\">");
        assertThat(get(feStats, "/stats;norefresh").header("refresh")).isNull();
        // a request outside the page goes on to the proxy's servers (none here: 503)
        assertThat(get(feStats, "/other").status()).isEqualTo(503);
    }

    /**
     * {@code stats show-modules}: HAProxy 2.6's "Extra modules" group, a column per module (ssl, h2, h1) and in each row, for
     * the modules that count for its kind of object (ssl: frontends, backends, servers; h2 and h1: frontends and backends),
     * the module's name over a table of its counters with HAProxy's descriptions. A page without it has none of that.
     */
    @Test
    void showModulesAddsTheModulesColumns() {
        String auth = "Authorization: Basic " + Base64.getEncoder().encodeToString("ops:s3cret".getBytes(StandardCharsets.UTF_8));
        String html = text(get(feSecure, "/admin?stats", auth));
        assertThat(html).contains("<th colspan=\"3\">Extra modules</th>").contains("<th>Thrtle</th><th>ssl</th><th>h2</th><th>h1</th>");
        String server = html.substring(html.indexOf(">web1</td>"));
        server = server.substring(0, server.indexOf("</tr>\n"));
        // a server: ssl only, then the empty h2 and h1 cells
        assertThat(server).contains("<td><u>ssl<div class=\"tips\"><table class=\"det\"><tr><th>Total number of ssl sessions established</th>")
                .contains("<tr><th>Total number of ssl sessions reused</th>").contains("<tr><th>Total number of failed handshake</th>")
                .endsWith("</table></div></u></td><td></td><td></td>").doesNotContain("<u>h2");
        String backend = html.substring(html.indexOf(">Backend</td>"));
        backend = backend.substring(0, backend.indexOf("</tr>\n"));
        assertThat(backend).contains("<u>ssl<div").contains("<u>h2<div").contains("<u>h1<div class=\"tips\"><table class=\"det\"><tr><th>Count of"
                + " currently open connections</th>");
        String plain = text(get(feStats, "/stats"));
        assertThat(plain).doesNotContain("Extra modules").doesNotContain("class=\"tips\"");
    }

    @Test
    void csvIsShowStat() {
        RawClient.Response r = get(feStats, "/stats;csv");
        assertThat(r.status()).isEqualTo(200);
        List<String> page = text(r).lines().toList();
        List<String> socket = AdminClient.run(admin, "show stat\n").lines().filter(l -> !l.isEmpty()).toList();
        assertThat(page.get(0)).isEqualTo(socket.get(0));
        // the same rows in the same order (values of counters may have moved in between)
        assertThat(page.stream().map(l -> l.split(",", 3)[0] + "," + l.split(",", 3)[1]).toList())
                .isEqualTo(socket.stream().map(l -> l.split(",", 3)[0] + "," + l.split(",", 3)[1]).toList());
        // show-legends: addresses shown
        assertThat(text(r)).contains("be_web,web1,").contains("127.0.0.1:" + web1.port());
    }

    @Test
    void authenticationRealmScopeAndHiddenVersion() {
        RawClient.Response denied = get(feSecure, "/admin?stats");
        assertThat(denied.status()).isEqualTo(401);
        assertThat(denied.header("www-authenticate")).isEqualTo("Basic realm=\"Operators\"");
        String bad = Base64.getEncoder().encodeToString("ops:nope".getBytes(StandardCharsets.UTF_8));
        assertThat(get(feSecure, "/admin?stats", "Authorization: Basic " + bad).status()).isEqualTo(401);
        String good = Base64.getEncoder().encodeToString("ops:s3cret".getBytes(StandardCharsets.UTF_8));
        RawClient.Response ok = get(feSecure, "/admin?stats", "Authorization: Basic " + good);
        assertThat(ok.status()).isEqualTo(200);
        String html = text(ok);
        assertThat(html).contains("id=\"px-be_web\"").doesNotContain("id=\"px-fe_main\"").doesNotContain("version ")
                // without admin rights, no form; without show-legends, no address
                .doesNotContain("<form").doesNotContain("127.0.0.1:" + web1.port());
        // a post without admin rights is denied
        String form = "s=web1&action=maint&b=%23" + beId();
        RawClient.Response r = request(feSecure, "POST /admin?stats HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + good
                + "\r\nContent-Length: " + form.length() + "\r\n\r\n" + form);
        assertThat(r.status()).isEqualTo(303);
        assertThat(r.header("location")).isEqualTo("/admin?stats;st=DENY");
        assertThat(AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n")).get("be_web/web1").get("status")).isEqualTo("no check");
    }

    static String beId() {
        return AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n")).get("be_web/BACKEND").get("iid");
    }

    @Test
    void adminActionsFromThePageChangeServers() {
        try {
            RawClient.Response r = post(feStats, "/stats", "s=web1&s=web2&action=maint&b=%23" + beId());
            assertThat(r.status()).isEqualTo(303);
            assertThat(r.header("location")).isEqualTo("/stats;st=DONE");
            var stat = AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n"));
            assertThat(stat.get("be_web/web1").get("status")).isEqualTo("MAINT");
            assertThat(stat.get("be_web/web2").get("status")).isEqualTo("MAINT");
            assertThat(AdminSocketTest.get(feMain, "/")).isEqualTo("503");
            assertThat(text(get(feStats, "/stats;st=DONE"))).contains("Action processed successfully.").contains("<tr class=\"maintain\">");
            assertThat(post(feStats, "/stats", "s=web2&action=ready&b=be_web").header("location")).isEqualTo("/stats;st=DONE");
            assertThat(AdminSocketTest.get(feMain, "/")).isEqualTo("200 web2");
            // HAProxy 2.6's answers, checked against it: see the class comment
            assertThat(st("s=nope&s=web1&action=drain&b=be_web")).isEqualTo("PART");
            assertThat(st("s=nope&action=drain&b=be_web")).isEqualTo("ERRP");
            assertThat(st("action=drain&b=be_web")).isEqualTo("NONE");
            assertThat(st("s=web1&action=drain")).isEqualTo("NONE");
            assertThat(st("s=web1&action=drain&b=nope")).isEqualTo("ERRP");
            assertThat(st("s=web1&action=drain&b=%2399")).isEqualTo("ERRP");
            assertThat(st("s=web1&action=explode&b=be_web")).isEqualTo("ERRP");
            // no weight action on HAProxy's page
            assertThat(st("s=web1&action=weight&b=be_web")).isEqualTo("ERRP");
            // the last action and backend count
            assertThat(st("s=web1&action=explode&b=nope&action=ready&b=be_web")).isEqualTo("DONE");
            // the older actions count only what they change
            assertThat(st("s=web1&action=disable&b=be_web")).isEqualTo("DONE");
            assertThat(status("be_web/web1")).isEqualTo("MAINT");
            assertThat(st("s=web1&action=enable&b=be_web")).isEqualTo("DONE");
            assertThat(st("s=web1&action=enable&b=be_web")).isEqualTo("NONE");
            assertThat(st("s=web1&action=stop&b=be_web")).isEqualTo("DONE");
            assertThat(status("be_web/web1")).isEqualTo("DRAIN");
            assertThat(st("s=web1&s=web2&action=start&b=be_web")).isEqualTo("DONE");
            assertThat(status("be_web/web1")).isEqualTo("no check");
            // health-check actions apply to servers with checks only; agent ones to none (Sluice has no agents)
            assertThat(st("s=web1&action=dhlth&b=be_web")).isEqualTo("NONE");
            assertThat(st("s=web1&action=arunn&b=be_web")).isEqualTo("NONE");
            assertThat(st("s=c1&action=dhlth&b=be_chk")).isEqualTo("DONE");
            awaitStatus("be_chk/c1", "no check");
            assertThat(st("s=c1&action=ehlth&b=be_chk")).isEqualTo("DONE");
            awaitStatus("be_chk/c1", "UP");
            assertThat(st("s=c1&action=hdown&b=be_chk")).isEqualTo("DONE");
            awaitStatus("be_chk/c1", "DOWN");
            assertThat(st("s=c1&action=hrunn&b=be_chk")).isEqualTo("DONE");
            awaitStatus("be_chk/c1", "UP");
            assertThat(text(get(feStats, "/stats"))).contains("<option value=\"dhlth\">Health: disable checks</option>")
                    .contains("<option value=\"adown\">Agent: force DOWN</option>").doesNotContain("weight\">");
        } finally {
            AdminClient.run(admin, "set server be_web/web1 state ready;set server be_web/web2 state ready;enable health be_chk/c1\n");
        }
    }

    /** The st code HAProxy's page sends back for a posted form. */
    static String st(String form) {
        RawClient.Response r = post(feStats, "/stats", form);
        assertThat(r.status()).isEqualTo(303);
        return r.header("location").substring("/stats;st=".length());
    }

    static String status(String row) {
        return AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n")).get(row).get("status");
    }

    /** Waits until the row's status is {@code status}, or that word followed by the checks' progress ("UP 2/3"). */
    static void awaitStatus(String row, String status) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!status(row).equals(status) && !status(row).startsWith(status + " ")) {
            assertThat(System.nanoTime()).as(row + " never " + status + ": " + status(row)).isLessThan(deadline);
            Daemon.sleep(10);
        }
    }

    // ------------------------------------------------------------------ in a browser

    /** Runs headless Chromium on a URL with one extra flag (--dump-dom or --screenshot=...), returns its standard output. */
    static String browse(String chromium, String url, String flag) throws Exception {
        Path profile = Files.createTempDirectory("sluice-chromium");
        List<String> cmd = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
                "--window-size=1400,900", flag, url));
        Path err = Files.createTempFile("chromium", ".err");
        Process p = new ProcessBuilder(Program.command(cmd)).redirectError(err.toFile()).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish: " + Files.readString(err));
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void chromiumRendersThePageAndKeepsAScreenshot() throws Exception {
        String chromium = Program.CHROMIUM.require();
        try {
            assertThat(AdminClient.run(admin, "set server be_web/web2 state maint\n")).isEqualTo("\n");
            for (int i = 0; i < 3; i++) {
                assertThat(AdminSocketTest.get(feMain, "/")).isEqualTo("200 web1");
            }
            String url = "http://127.0.0.1:" + feStats + "/stats;norefresh";
            String dom = browse(chromium, url, "--dump-dom");
            // what the browser built: the proxies' tables, the server rows in their states' classes, the counters
            assertThat(dom).contains("<title>Statistics Report for pid " + sluice.pid() + "</title>")
                    .contains("<table class=\"tbl\" id=\"px-be_web\">").contains("<table class=\"tbl\" id=\"px-fe_main\">")
                    .contains("<tr class=\"active_no_check\">").contains("<tr class=\"maintain\">")
                    .contains(">web1</td>").contains(">web2</td>").contains(">MAINT</td>").contains(">no check</td>")
                    .contains("<h2>General process information</h2>");
            Path shot = Path.of("target", "stats-page.png").toAbsolutePath();
            Files.createDirectories(shot.getParent());
            Files.deleteIfExists(shot);
            browse(chromium, url, "--screenshot=" + shot);
            assertThat(shot).exists();
            byte[] png = Files.readAllBytes(shot);
            assertThat(png.length).isGreaterThan(10_000);
            assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
        } finally {
            AdminClient.run(admin, "set server be_web/web2 state ready\n");
        }
    }
}

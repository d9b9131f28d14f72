package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin commands on live streams, server addresses, health, limits, dynamic servers, captured errors
 * and timers, the stick-table commands, {@code show stat}'s filters, {@code help <command>}, the idle timeout and
 * an inherited {@code "fd@${NAME}"} socket, against a daemon with two frontends, three backends and a stick table:
 * exact outputs where HAProxy's are fixed (captured from HAProxy 2.6 on the same configuration), error strings,
 * levels, and the effect on traffic. The byte-for-byte comparison with a live HAProxy of the same error strings
 * is in {@link AdminParityTest}.
 */
class AdminCommandsTest {
    static Origin web1;
    static Origin web2;
    static Origin slow;
    static Origin extra;
    static Sluice sluice;
    static Path dir;
    static Path admin;
    static Path user;
    static int feMain;
    static int feApi;
    static volatile CountDownLatch hold = new CountDownLatch(1);
    static final ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();

    @BeforeAll
    static void start() throws IOException {
        web1 = Origin.start("web1");
        web2 = Origin.start("web2");
        extra = Origin.start("extra");
        // /hold waits until the test lets it go; /slow answers after 60 ms; anything else at once
        slow = Origin.start("slow", AdminCommandsTest::slowOrigin);
        dir = Files.createTempDirectory("sluice-admin-cmds");
        admin = dir.resolve("admin.sock");
        user = dir.resolve("user.sock");
        feMain = Ports.free();
        feApi = Ports.free();
        String cfg = """
                global
                    nbthread 2
                    maxconn 500
                    stats socket %1$s/admin.sock level admin
                    stats socket %1$s/user.sock level user
                    stats timeout 2s
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 500ms
                frontend fe_main
                    bind 127.0.0.1:%2$d
                    stick-table type ip size 1k expire 30s store http_req_cnt
                    http-request track-sc0 src
                    default_backend be_web
                frontend fe_api
                    bind 127.0.0.1:%3$d
                    use_backend be_static if { path_beg /static }
                    default_backend be_slow
                backend be_web
                    server web1 127.0.0.1:%4$d
                    server web2 127.0.0.1:%5$d
                backend be_slow
                    server slow1 127.0.0.1:%6$d
                backend be_static
                    balance static-rr
                    server st1 127.0.0.1:%4$d
                """.formatted(dir, feMain, feApi, web1.port(), web2.port(), slow.port());
        sluice = Sluice.start(cfg, feMain, feApi);
        AdminClient.await(admin);
        AdminClient.await(user);
    }

    static boolean slowOrigin(Origin.Request r, OutputStream out) throws IOException {
        try {
            if (r.target().startsWith("/hold")) {
                hold.await(10, TimeUnit.SECONDS);
            } else if (r.target().startsWith("/slow")) {
                Thread.sleep(60);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Origin.respond(out, 200, "OK", Origin.headers("X-Origin", "slow"), "slow\n".getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    @AfterAll
    static void stop() {
        hold.countDown();
        if (sluice != null) {
            sluice.close();
        }
        clients.shutdownNow();
        web1.close();
        web2.close();
        slow.close();
        extra.close();
    }

    static String cli(String line) {
        return AdminClient.run(admin, line + "\n");
    }

    static String get(int port, String path) {
        try (RawClient c = new RawClient(port)) {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            return r.status() + (r.header("x-origin") != null ? " " + r.header("x-origin") : "");
        }
    }

    /** Starts a request that the slow origin holds; returns what the client got in the end ("closed" when cut). */
    static Future<String> held(String path) {
        return clients.submit(() -> {
            try (RawClient c = new RawClient(feApi, 10_000)) {
                c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
                try {
                    return Integer.toString(c.read().status());
                } catch (java.io.UncheckedIOException e) {
                    return "closed";
                }
            }
        });
    }

    /** Waits until show sess lists {@code n} streams of be_slow; returns their lines. */
    static List<String> awaitSessions(int n) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            List<String> lines = cli("show sess").lines().filter(l -> l.contains(" be=be_slow ")).toList();
            if (lines.size() == n || System.nanoTime() > deadline) {
                return lines;
            }
            Thread.sleep(20);
        }
    }

    static Map<String, Map<String, String>> stat() {
        return AdminSocketTest.parseStat(cli("show stat"));
    }

    // ------------------------------------------------------------------ show sess / shutdown

    @Test
    void showSessListsStreamsInProgressAndShutdownSessionKillsOne() throws Exception {
        hold = new CountDownLatch(1);
        Future<String> a = held("/hold/a");
        Future<String> b = held("/hold/b");
        try {
            List<String> lines = awaitSessions(2);
            assertThat(lines).hasSize(2).allSatisfy(l -> assertThat(l).matches(
                    "0x[0-9a-f]+: proto=tcpv4 src=127\\.0\\.0\\.1:\\d+ fe=fe_api be=be_slow srv=slow1 ts=00 epoch=0x[0-9a-f]+ age=\\d+s state=[CHD]"
                            + " req=\"GET /hold/[ab] HTTP/1\\.1\""));
            String id = lines.get(0).substring(0, lines.get(0).indexOf(':'));
            String one = cli("show sess " + id);
            assertThat(one).startsWith(id + ": [").contains("\n  frontend=fe_api (id=3 mode=http) addr=127.0.0.1:" + feApi + "\n")
                    .contains("\n  backend=be_slow (id=5 mode=http)\n").contains("\n  server=slow1 (id=1) addr=127.0.0.1:" + slow.port() + "\n")
                    .endsWith("\"\n\n");
            assertThat(cli("show sess all")).contains(id + ": [");
            assertThat(cli("shutdown session " + id)).isEqualTo("\n");
            assertThat(awaitSessions(1)).hasSize(1).noneMatch(l -> l.startsWith(id + ":"));
            assertThat(cli("show sess " + id)).isEqualTo("Session not found.\n\n");
            assertThat(cli("shutdown session " + id)).isEqualTo("No such session (use 'show sess').\n\n");
            // the killed stream's client got HAProxy's 502 (it waited for the response head); the other is still waiting
            Future<String> killed = lines.get(0).contains("/hold/a") ? a : b;
            Future<String> other = killed == a ? b : a;
            assertThat(killed.get(10, TimeUnit.SECONDS)).isEqualTo("502");
            assertThat(other.isDone()).isFalse();
        } finally {
            hold.countDown();
        }
        assertThat(a.get(10, TimeUnit.SECONDS)).isIn("200", "502");
        assertThat(b.get(10, TimeUnit.SECONDS)).isIn("200", "502");
        assertThat(awaitSessions(0)).isEmpty();
    }

    @Test
    void shutdownSessionsServerKillsEveryStreamOfTheServer() throws Exception {
        hold = new CountDownLatch(1);
        try {
            Future<String> a = held("/hold/1");
            Future<String> b = held("/hold/2");
            assertThat(awaitSessions(2)).hasSize(2);
            assertThat(cli("shutdown sessions server be_slow/slow1")).isEqualTo("\n");
            assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo("502");
            assertThat(b.get(10, TimeUnit.SECONDS)).isEqualTo("502");
            assertThat(awaitSessions(0)).isEmpty();
            // the process keeps serving
            assertThat(get(feMain, "/")).startsWith("200 web");
        } finally {
            hold.countDown();
        }
    }

    @Test
    void sessionCommandErrorsAndLevels() {
        assertThat(cli("show sess 0x1234")).isEqualTo("Session not found.\n\n");
        assertThat(cli("show sess nope")).isEqualTo("Session not found.\n\n");
        assertThat(cli("shutdown session")).isEqualTo("Session pointer expected (use 'show sess').\n\n");
        assertThat(cli("shutdown session 0x1234")).isEqualTo("No such session (use 'show sess').\n\n");
        assertThat(cli("shutdown sessions server")).isEqualTo("Require 'backend/server'.\n\n");
        assertThat(cli("shutdown sessions server be_web/nope")).isEqualTo("No such server.\n\n");
        assertThat(cli("shutdown sessions server nope/web1")).isEqualTo("No such backend.\n\n");
        for (String cmd : List.of("show sess", "shutdown session 0x1", "shutdown sessions server be_web/web1", "set maxconn global 10",
                "set server be_web/web1 addr 127.0.0.1", "set server be_web/web1 health down", "add server be_web/x 127.0.0.1:1",
                "del server be_web/web1", "set maxconn server be_web/web1 1", "set maxconn frontend fe_main 1")) {
            assertThat(AdminClient.run(user, cmd + "\n")).as(cmd).isEqualTo("Permission denied\n\n");
        }
    }

    // ------------------------------------------------------------------ timers, json, activity, conn

    @Test
    void timersAverageTheLastRequests() {
        cli("clear counters all");
        for (int i = 0; i < 5; i++) {
            assertThat(get(feApi, "/slow")).isEqualTo("200 slow");
        }
        Map<String, String> srv = stat().get("be_slow/slow1");
        Map<String, String> be = stat().get("be_slow/BACKEND");
        for (Map<String, String> row : List.of(srv, be)) {
            long rtime = Long.parseLong(row.get("rtime"));
            assertThat(rtime).isBetween(55L, 2000L);
            assertThat(Long.parseLong(row.get("ttime"))).isGreaterThanOrEqualTo(rtime);
            assertThat(Long.parseLong(row.get("ctime"))).isBetween(0L, 500L);
            assertThat(row.get("qtime")).isEqualTo("0");
            assertThat(Long.parseLong(row.get("rtime_max"))).isGreaterThanOrEqualTo(rtime);
            assertThat(Long.parseLong(row.get("ttime_max"))).isGreaterThanOrEqualTo(Long.parseLong(row.get("ttime")));
        }
        // a backend without traffic since the clear: zeros, not empty
        assertThat(stat().get("be_static/st1").get("rtime")).isEqualTo("0");
    }

    @Test
    void showStatJsonHasOneArrayPerRowWithTypedFields() {
        String json = cli("show stat json");
        assertThat(json).startsWith("[[{\"objType\":\"Frontend\",\"proxyId\":2,\"id\":0,\"field\":{\"pos\":0,\"name\":\"pxname\"},\"processNum\":1,"
                + "\"tags\":{\"origin\":\"Key\",\"nature\":\"Name\",\"scope\":\"Service\"},\"value\":{\"type\":\"str\",\"value\":\"fe_main\"}},")
                .endsWith("}}]]\n\n");
        // one inner array per row of the CSV
        assertThat(json.split("\\]\\s*,\\s*\\[", -1)).hasSize(stat().size());
        assertThat(json).contains("{\"objType\":\"Server\",\"proxyId\":4,\"id\":2,\"field\":{\"pos\":1,\"name\":\"svname\"},\"processNum\":1,"
                + "\"tags\":{\"origin\":\"Key\",\"nature\":\"Name\",\"scope\":\"Service\"},\"value\":{\"type\":\"str\",\"value\":\"web2\"}}");
        // every typed line is a JSON field with the same position, name and value
        for (String l : cli("show stat typed").lines().filter(l -> !l.isEmpty()).toList()) {
            String[] p = l.split(":", 4);
            String[] key = p[0].split("\\.");
            String value = p[2].equals("str") ? "\"" + p[3] + "\"" : p[3];
            if (!p[0].contains("lastchg") && !p[0].contains("lastsess") && !p[0].contains("rate") && !p[0].contains(".bout.")
                    && !p[0].contains(".bin.") && !p[0].contains("time")) {
                assertThat(json).as(l).contains("\"field\":{\"pos\":" + key[3] + ",\"name\":\"" + key[4] + "\"}");
                assertThat(json).as(l).contains("\"value\":{\"type\":\"" + p[2] + "\",\"value\":" + value + "}");
            }
        }
    }

    @Test
    void showActivityInHaproxysLayout() {
        get(feMain, "/");
        String out = cli("show activity");
        List<String> lines = out.lines().toList();
        assertThat(lines.get(0)).matches("thread_id: [12] \\(1\\.\\.2\\)");
        assertThat(lines.get(1)).matches("date_now: \\d{10}\\.\\d{6}");
        assertThat(lines.subList(2, lines.size() - 2)).allSatisfy(l -> assertThat(l).matches("[a-z_]+: \\d+ \\[ \\d+ \\d+ \\]"));
        // the configurations alive: one, nothing was reloaded
        assertThat(lines.get(lines.size() - 2)).isEqualTo("generations: 1");
        Matcher m = Pattern.compile("(?m)^accepted: (\\d+) \\[ (\\d+) (\\d+) \\]$").matcher(out);
        assertThat(m.find()).isTrue();
        assertThat(Long.parseLong(m.group(1))).isPositive().isEqualTo(Long.parseLong(m.group(2)) + Long.parseLong(m.group(3)));
        assertThat(out).contains("\nstreams: ").endsWith("\n\n");
    }

    @Test
    void showServersConnCountsIdleConnectionsPerLoop() {
        try (RawClient c = new RawClient(feMain)) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
        List<String> lines = cli("show servers conn be_web").lines().toList();
        assertThat(lines.get(0)).isEqualTo("# bkname/svname bkid/svid addr port - purge_delay used_cur used_max need_est unsafe_nb safe_nb idle_lim"
                + " idle_cur idle_per_thr[2]");
        assertThat(lines.get(1)).matches("be_web/web1 4/1 127\\.0\\.0\\.1 " + web1.port() + " - 5000 \\d+ \\d+ \\d+ \\d+ \\d+ -1 \\d+ \\d+ \\d+");
        assertThat(lines.get(2)).startsWith("be_web/web2 4/2 127.0.0.1 " + web2.port() + " - 5000 ");
        assertThat(lines).hasSize(4);
        long idle = 0;
        for (String l : lines.subList(1, 3)) {
            String[] f = l.split(" ");
            // idle_cur is the sum of the per-loop counts
            assertThat(Long.parseLong(f[12])).isEqualTo(Long.parseLong(f[13]) + Long.parseLong(f[14]));
            idle += Long.parseLong(f[12]);
        }
        assertThat(idle).isPositive();
        assertThat(cli("show servers conn").lines().filter(l -> l.startsWith("be_")).count()).isEqualTo(4);
        assertThat(cli("show servers conn nope")).isEqualTo("Can't find backend.\n\n");
    }

    @Test
    void protocolColumnsCountClientConnections() {
        Map<String, String> before = stat().get("fe_main/FRONTEND");
        try (RawClient c = new RawClient(feMain)) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            Map<String, String> during = stat().get("fe_main/FRONTEND");
            assertThat(Long.parseLong(during.get("h1_open_connections"))).isPositive();
            assertThat(Long.parseLong(during.get("h1_total_connections")) - Long.parseLong(before.get("h1_total_connections"))).isEqualTo(1);
        }
        Map<String, String> fe = stat().get("fe_main/FRONTEND");
        assertThat(fe.get("h2_total_connections")).isEqualTo("0");
        assertThat(fe.get("ssl_sess")).isEqualTo("0");
        assertThat(fe.get("ssl_failed_handshake")).isEqualTo("0");
    }

    // ------------------------------------------------------------------ set server addr / health / agent

    @Test
    void setServerAddrMovesNewRequestsAndReportsAsHaproxy() {
        try {
            assertThat(cli("set server be_web/web1 addr 127.0.0.2")).isEqualTo("IP changed from '127.0.0.1' to '127.0.0.2' by 'stats socket command'\n\n");
            assertThat(cli("set server be_web/web1 addr 127.0.0.2")).isEqualTo("no need to change the addr by 'stats socket command'\n\n");
            assertThat(cli("set server be_web/web1 addr 127.0.0.1 port " + extra.port())).isEqualTo("IP changed from '127.0.0.2' to '127.0.0.1', port"
                    + " changed from '" + web1.port() + "' to '" + extra.port() + "' by 'stats socket command'\n\n");
            assertThat(cli("set server be_web/web1 addr 127.0.0.1 port " + extra.port()))
                    .isEqualTo("no need to change the addr, no need to change the port by 'stats socket command'\n\n");
            assertThat(cli("set server be_web/web1 addr 127.0.0.1 port x"))
                    .isEqualTo("no need to change the addr, problem converting port 'x' to an int by 'stats socket command'\n\n");
            assertThat(cli("set server be_web/web1 addr")).isEqualTo("set server <b>/<s> addr requires an address and optionally a port.\n\n");
            assertThat(cli("set server be_web/web1 addr nope")).isEqualTo("Invalid addr 'nope' by 'stats socket command'\n\n");
            // new requests for web1 now reach the other origin; web2 is unchanged
            Map<String, Integer> seen = origins(6);
            assertThat(seen).containsOnlyKeys("extra", "web2");
            assertThat(stat().get("be_web/web1").get("addr")).isEqualTo("127.0.0.1:" + extra.port());
            assertThat(cli("show servers state be_web").lines().skip(2).findFirst().orElseThrow()).contains(" " + extra.port() + " - ");
        } finally {
            cli("set server be_web/web1 addr 127.0.0.1 port " + web1.port());
        }
        assertThat(origins(6)).containsOnlyKeys("web1", "web2");
    }

    @Test
    void setServerHealthChangesStateAndTraffic() {
        try {
            assertThat(cli("set server be_web/web1 health down")).isEqualTo("\n");
            assertThat(stat().get("be_web/web1").get("status")).isEqualTo("DOWN");
            assertThat(cli("show servers state be_web").lines().skip(2).findFirst().orElseThrow()).matches("4 be_web 1 web1 127\\.0\\.0\\.1 0 0 1 1 \\d+ 1 0 0 .*");
            assertThat(origins(4)).containsOnlyKeys("web2");
            assertThat(cli("set server be_web/web1 health stopping")).isEqualTo("\n");
            assertThat(stat().get("be_web/web1").get("status")).isEqualTo("NOLB");
            assertThat(cli("show servers state be_web").lines().skip(2).findFirst().orElseThrow()).matches("4 be_web 1 web1 127\\.0\\.0\\.1 3 0 1 1 \\d+ 1 0 4 .*");
            assertThat(origins(4)).containsOnlyKeys("web2");
            assertThat(cli("set server be_web/web1 health up")).isEqualTo("\n");
            assertThat(stat().get("be_web/web1").get("status")).isEqualTo("no check");
            assertThat(origins(4)).containsOnlyKeys("web1", "web2");
            assertThat(cli("set server be_web/web1 health")).isEqualTo("'set server <srv> health' expects 'up', 'stopping', or 'down'.\n\n");
            assertThat(cli("set server be_web/web1 health foo")).isEqualTo("'set server <srv> health' expects 'up', 'stopping', or 'down'.\n\n");
        } finally {
            cli("set server be_web/web1 health up");
        }
    }

    @Test
    void agentFqdnSslAndCheckAnswersForServersWithoutThem() {
        assertThat(cli("set server be_web/web1 agent up")).isEqualTo("agent checks are not enabled on this server.\n\n");
        assertThat(cli("set server be_web/web1 agent-send x")).isEqualTo("agent checks are not enabled on this server.\n\n");
        assertThat(cli("set server be_web/web1 agent-addr 127.0.0.1")).isEqualTo("agent checks are not enabled on this server\n");
        assertThat(cli("set server be_web/web1 check-port 80")).isEqualTo("health checks are not enabled on this server\n");
        assertThat(cli("set server be_web/web1 fqdn x")).isEqualTo("set server <b>/<s> fqdn failed because no resolution is configured.\n\n");
        assertThat(cli("set server be_web/web1 ssl on")).isEqualTo("'set server <srv> ssl' cannot be set.  default-server should define ssl settings\n\n");
    }

    // ------------------------------------------------------------------ set maxconn

    @Test
    void setMaxconnChangesTheLimits() {
        try {
            assertThat(cli("set maxconn frontend fe_api 50")).isEqualTo("\n");
            assertThat(stat().get("fe_api/FRONTEND").get("slim")).isEqualTo("50");
            assertThat(cli("set maxconn frontend fe_api 0")).isEqualTo("\n");
            assertThat(stat().get("fe_api/FRONTEND").get("slim")).isEqualTo("500");
            assertThat(cli("set maxconn frontend fe_api -1")).isEqualTo("Value out of range.\n\n");
            assertThat(cli("set maxconn frontend fe_api")).isEqualTo("Integer value expected.\n\n");
            assertThat(cli("set maxconn frontend")).isEqualTo("A frontend name is expected.\n\n");
            assertThat(cli("set maxconn frontend nope 1")).isEqualTo("No such frontend.\n\n");
            assertThat(cli("set maxconn server be_web/web1 7")).isEqualTo("\n");
            assertThat(stat().get("be_web/web1").get("slim")).isEqualTo("7");
            assertThat(cli("set maxconn server be_web/web1")).isEqualTo("Require <maxconn>.\n\n");
            assertThat(cli("set maxconn server be_web/web1 x")).isEqualTo("maxconn string empty or preceded by garbage\n");
            assertThat(cli("set maxconn server be_web/web1 7x")).isEqualTo("Trailing garbage in maxconn string\n");
            assertThat(cli("set maxconn server be_web/nope 1")).isEqualTo("No such server.\n\n");
            assertThat(cli("set maxconn global 200")).isEqualTo("\n");
            assertThat(cli("show info")).contains("\nMaxconn: 200\n").contains("\nHard_maxconn: 500\n");
            assertThat(cli("set maxconn global 501")).isEqualTo("Value out of range.\n\n");
            assertThat(cli("set maxconn global")).isEqualTo("Expects an integer value.\n\n");
            assertThat(get(feMain, "/")).startsWith("200 web");
        } finally {
            cli("set maxconn global 500;set maxconn server be_web/web1 0");
        }
        assertThat(cli("show info")).contains("\nMaxconn: 500\n");
    }

    // ------------------------------------------------------------------ add / del server

    @Test
    void addServerRegistersAServerInMaintenanceAndDelServerRemovesIt() {
        try {
            assertThat(cli("add server be_web/web3 127.0.0.1:" + extra.port() + " weight 5")).isEqualTo("New server registered.\n\n");
            Map<String, String> row = stat().get("be_web/web3");
            assertThat(row.get("status")).isEqualTo("MAINT");
            assertThat(row.get("sid")).isEqualTo("3");
            assertThat(row.get("weight")).isEqualTo("5");
            assertThat(cli("show servers state be_web").lines().skip(4).findFirst().orElseThrow())
                    .matches("4 be_web 3 web3 127\\.0\\.0\\.1 0 1 5 5 \\d+ 1 0 0 0 0 0 0 - " + extra.port() + " - 0 0 - - 0");
            assertThat(origins(6)).containsOnlyKeys("web1", "web2");
            assertThat(cli("set server be_web/web3 state ready")).isEqualTo("\n");
            assertThat(origins(14)).containsKeys("web1", "web2", "extra");
            assertThat(cli("del server be_web/web3")).isEqualTo("Only servers in maintenance mode can be deleted.\n");
            assertThat(cli("add server be_web/web3 127.0.0.1:1")).isEqualTo("Already exists a server with the same name in backend.\n\n");
            assertThat(cli("set server be_web/web3 state maint")).isEqualTo("\n");
            assertThat(cli("del server be_web/web3")).isEqualTo("Server deleted.\n");
            assertThat(stat()).doesNotContainKey("be_web/web3");
            assertThat(cli("del server be_web/web3")).isEqualTo("No such server.\n");
            assertThat(origins(6)).containsOnlyKeys("web1", "web2");
            // the lowest free id is given again
            assertThat(cli("add server be_web/web4 127.0.0.1:1")).isEqualTo("New server registered.\n\n");
            assertThat(stat().get("be_web/web4").get("sid")).isEqualTo("3");
            assertThat(cli("set server be_web/web4 state maint;del server be_web/web4")).isEqualTo("\nServer deleted.\n");
        } finally {
            cli("set server be_web/web3 state maint");
            cli("del server be_web/web3");
        }
    }

    @Test
    void addServerErrorsAsHaproxy() {
        assertThat(cli("add server")).isEqualTo("Require 'backend/server'.\n");
        assertThat(cli("add server be_web")).isEqualTo("Require 'backend/server'.\n");
        assertThat(cli("add server nope/x 127.0.0.1:1")).isEqualTo("No such backend.\n");
        assertThat(cli("add server be_web/x")).isEqualTo("'server' expects <name> and <addr>[:<port>] as arguments.\n\n");
        assertThat(cli("add server be_web/x 127.0.0.1:1 bogus")).isEqualTo("unknown keyword 'bogus'.\n\n");
        assertThat(cli("add server be_web/x 127.0.0.1:1 weight 300")).isEqualTo("weight of server x is not within 0 and 256 (300)..\n\n");
        assertThat(cli("add server be_static/x 127.0.0.1:1")).isEqualTo("Backend must use a dynamic load balancing to support dynamic servers.\n\n");
        assertThat(cli("add server be_web/x localhost:1")).isEqualTo("Sluice resolves server names at start-up only: 'add server' needs an IP address.\n\n");
        assertThat(cli("del server")).isEqualTo("Require 'backend/server'.\n");
        assertThat(cli("del server be_web/nope")).isEqualTo("No such server.\n");
        assertThat(cli("del server be_web/web1")).isEqualTo("Only servers in maintenance mode can be deleted.\n");
        assertThat(stat()).doesNotContainKey("be_web/x");
    }

    // ------------------------------------------------------------------ show errors

    @Test
    void showErrorsDumpsTheLastInvalidRequestAndResponse() throws Exception {
        try (RawClient c = new RawClient(feMain)) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: a\r\nbad header\r\n\r\n").read().status()).isEqualTo(400);
        }
        String out = cli("show errors fe_main");
        // HAProxy 2.6's dump of this very request (its H1 mux lines aside, which describe HAProxy's internals)
        assertThat(out).matches("(?s)Total events captured on \\[\\d\\d/\\w{3}/\\d{4}:\\d\\d:\\d\\d:\\d\\d\\.\\d{3}] : \\d+\n \n"
                + "\\[\\d\\d/\\w{3}/\\d{4}:\\d\\d:\\d\\d:\\d\\d\\.\\d{3}] frontend fe_main \\(#2\\): invalid request\n"
                + "  backend <NONE> \\(#-1\\), server <NONE> \\(#-1\\), event #\\d+, src 127\\.0\\.0\\.1:\\d+\n"
                + "  buffer starts at 0 \\(including 0 out\\), 16345 free,\n"
                + "  len 39, wraps at 16336, error at position 28\n"
                + "  \n"
                + "  00000  GET / HTTP/1\\.1\\\\r\\\\n\n"
                + "  00016  Host: a\\\\r\\\\n\n"
                + "  00025  bad header\\\\r\\\\n\n"
                + "  00037  \\\\r\\\\n\n\n");
        // an invalid response from a server, kept by its backend
        try (java.net.ServerSocket bad = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            Future<?> origin = clients.submit(() -> {
                try (java.net.Socket s = bad.accept()) {
                    s.getInputStream().read(new byte[4096]);
                    s.getOutputStream().write("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                return null;
            });
            try {
                assertThat(cli("set server be_web/web2 state maint;set server be_web/web1 addr 127.0.0.1 port " + bad.getLocalPort())).endsWith("\n");
                assertThat(get(feMain, "/bad")).isEqualTo("502");
                origin.get(5, TimeUnit.SECONDS);
            } finally {
                cli("set server be_web/web1 addr 127.0.0.1 port " + web1.port() + ";set server be_web/web2 state ready");
            }
        }
        String resp = cli("show errors be_web response");
        assertThat(resp).contains("] backend be_web (#4): invalid response\n  frontend fe_main (#2), server web1 (#1), event #")
                .contains("  len 38, wraps at 16336, error at position 10\n  \n  00000  HTTP/1.1 2x0 OK\\r\\n\n  00017  Content-Length: 0\\r\\n\n"
                        + "  00036  \\r\\n\n\n");
        assertThat(cli("show errors")).contains("invalid request").contains("invalid response");
        assertThat(cli("show errors -1 request")).contains("invalid request").doesNotContain("invalid response");
        assertThat(cli("show errors request")).isEqualTo("No such proxy.\n\n");
        assertThat(cli("show errors #4")).contains("invalid response").doesNotContain("invalid request");
        assertThat(cli("show errors nope")).isEqualTo("No such proxy.\n\n");
    }

    // ------------------------------------------------------------------ stick table

    @Test
    void tableCommandsShowClearAndSetEntries() {
        try {
            cli("clear table fe_main");
            assertThat(get(feMain, "/")).startsWith("200 web");
            assertThat(get(feMain, "/")).startsWith("200 web");
            assertThat(cli("show table")).isEqualTo("# table: fe_main, type: ip, size:1024, used:1\n\n");
            String entry = "0x[0-9a-f]+: key=127\\.0\\.0\\.1 use=0 exp=\\d+ http_req_cnt=2\n";
            assertThat(cli("show table fe_main")).matches("# table: fe_main, type: ip, size:1024, used:1\n" + entry + "\n");
            assertThat(cli("show table fe_main data.http_req_cnt gt 1")).matches("# table: fe_main, type: ip, size:1024, used:1\n" + entry + "\n");
            assertThat(cli("show table fe_main data.http_req_cnt gt 2")).isEqualTo("# table: fe_main, type: ip, size:1024, used:1\n\n");
            assertThat(cli("set table fe_main key 127.0.0.2 data.http_req_cnt 7")).isEqualTo("\n");
            assertThat(cli("show table fe_main key 127.0.0.2")).matches("# table: fe_main, type: ip, size:1024, used:2\n"
                    + "0x[0-9a-f]+: key=127\\.0\\.0\\.2 use=0 exp=\\d+ http_req_cnt=7\n\n");
            // the entry set by hand counts on with the traffic of its key... and goes with clear
            assertThat(cli("clear table fe_main key 127.0.0.2")).isEqualTo("\n");
            assertThat(cli("show table fe_main key 127.0.0.2")).isEqualTo("\n");
            // a key without data creates the entry
            assertThat(cli("set table fe_main key 127.0.0.3")).isEqualTo("\n");
            assertThat(cli("show table")).isEqualTo("# table: fe_main, type: ip, size:1024, used:2\n\n");
            // HAProxy 2.6's errors and levels
            assertThat(cli("show table nope")).isEqualTo("No such table\n\n");
            assertThat(cli("clear table nope")).isEqualTo("No such table\n\n");
            // the entry is made before the data are looked at: 127.0.0.2 is there again, as in HAProxy
            assertThat(cli("set table fe_main key 127.0.0.2 data.gpc0 1")).isEqualTo("Data type not stored in this table\n\n");
            assertThat(cli("set table fe_main data.http_req_cnt 1"))
                    .isEqualTo("content-based lookup is only supported with the \"show\" and \"clear\" actions\n\n");
            assertThat(AdminClient.run(user, "clear table fe_main key 127.0.0.1\n")).isEqualTo("Permission denied\n\n");
            assertThat(AdminClient.run(user, "set table fe_main key 127.0.0.3 data.http_req_cnt 1\n")).isEqualTo("Permission denied\n\n");
            assertThat(AdminClient.run(user, "show table fe_main\n"))
                    .isEqualTo("# table: fe_main, type: ip, size:1024, used:3\n# contents not dumped due to insufficient privileges\n\n");
            assertThat(cli("clear table fe_main")).isEqualTo("\n");
            assertThat(cli("show table fe_main")).isEqualTo("# table: fe_main, type: ip, size:1024, used:0\n\n");
            // the tracking goes on: the next request makes a new entry
            assertThat(get(feMain, "/")).startsWith("200 web");
            assertThat(cli("show table fe_main")).matches("# table: fe_main, type: ip, size:1024, used:1\n"
                    + "0x[0-9a-f]+: key=127\\.0\\.0\\.1 use=0 exp=\\d+ http_req_cnt=1\n\n");
        } finally {
            cli("clear table fe_main");
        }
    }

    // ------------------------------------------------------------------ show stat filters, help

    /** The pxname,svname pairs of a show stat answer, in order. */
    static List<String> rows(String csv) {
        assertThat(csv).startsWith("# pxname,svname,").endsWith("\n\n");
        return csv.lines().skip(1).filter(l -> !l.isEmpty()).map(l -> l.substring(0, l.indexOf(',', l.indexOf(',') + 1))).toList();
    }

    @Test
    void showStatFiltersByProxyTypeAndServerAndState() {
        // as HAProxy 2.6: <proxy> <type> <sid>, the proxy by name or number; types 1 frontends, 2 backends, 4 servers
        assertThat(rows(cli("show stat be_web 4 -1"))).containsExactly("be_web,web1", "be_web,web2");
        assertThat(rows(cli("show stat 4 2 -1"))).containsExactly("be_web,BACKEND");
        assertThat(rows(cli("show stat -1 1 -1"))).containsExactly("fe_main,FRONTEND", "fe_api,FRONTEND");
        assertThat(rows(cli("show stat be_web 4 2"))).containsExactly("be_web,web2");
        assertThat(rows(cli("show stat be_web 6 -1"))).containsExactly("be_web,web1", "be_web,web2", "be_web,BACKEND");
        // all three words or none
        assertThat(rows(cli("show stat be_web"))).hasSize(9);
        assertThat(rows(cli("show stat 99 -1 -1"))).isEmpty();
        assertThat(cli("show stat nope 1 -1")).isEqualTo("No such proxy.\n\n");
        try {
            assertThat(cli("set server be_web/web2 state maint;set server be_slow/slow1 health down")).isEqualTo("\n\n");
            List<String> noMaint = rows(cli("show stat no-maint"));
            assertThat(noMaint).doesNotContain("be_web,web2").contains("be_web,web1", "be_slow,slow1", "be_web,BACKEND");
            List<String> up = rows(cli("show stat up"));
            assertThat(up).doesNotContain("be_web,web2", "be_slow,slow1").contains("be_web,web1", "be_static,st1", "be_slow,BACKEND");
            assertThat(rows(cli("show stat be_web 4 -1 no-maint"))).containsExactly("be_web,web1");
            assertThat(rows(cli("show stat be_slow 4 -1 up"))).isEmpty();
            assertThat(cli("show stat typed no-maint")).doesNotContain("S.4.2.").contains("S.4.1.");
        } finally {
            cli("set server be_web/web2 state ready;set server be_slow/slow1 health up");
        }
        assertThat(rows(cli("show stat up"))).hasSize(9);
    }

    @Test
    void helpOfOneCommandListsTheMatchingOnesAsHaproxy() {
        String tail = "  help [<command>]                        : list matching or all commands\n"
                + "  prompt                                  : toggle interactive mode with prompt\n"
                + "  quit                                    : disconnect\n\n";
        assertThat(cli("help show stat")).isEqualTo("The following commands are valid at this level:\n"
                + "  show stat [desc|json|no-maint|typed|up]*: report counters for each proxy and server\n" + tail);
        assertThat(cli("help set table")).isEqualTo("The following commands are valid at this level:\n"
                + "  set table <table> key <k> [data.* <v>]* : update or create a table entry's data\n" + tail);
        assertThat(AdminClient.run(user, "help show table\n")).isEqualTo("The following commands are valid at this level:\n"
                + "  show table <table> [<filter>]*          : report table usage stats or dump this table's contents (filter: data/key)\n" + tail);
        // every word matched: the table commands, not the other "show" ones
        String table = cli("help table");
        assertThat(table).startsWith("The following commands are valid at this level:\n")
                .contains("  clear table <table> [<filter>]*         : remove an entry from a table (filter: data/key)\n")
                .contains("  set table <table> key <k> [data.* <v>]* : update or create a table entry's data\n")
                .contains("  show table <table> [<filter>]*          : report table usage stats or dump this table's contents (filter: data/key)\n")
                .doesNotContain("show stat").endsWith(tail);
        // as HAProxy, help lists a command at any level: the level is checked when it runs
        assertThat(AdminClient.run(user, "help set table\n")).isEqualTo("The following commands are valid at this level:\n"
                + "  set table <table> key <k> [data.* <v>]* : update or create a table entry's data\n" + tail);
    }

    // ------------------------------------------------------------------ stats timeout, fd@${NAME}

    @Test
    void statsTimeoutClosesAnIdleSession() {
        // a connection that never sends anything
        long start = System.nanoTime();
        try (AdminClient c = AdminClient.open(admin)) {
            assertThat(c.readToEnd(10_000)).isEmpty();
        }
        long idle = (System.nanoTime() - start) / 1_000_000;
        assertThat(idle).isBetween(1_500L, 8_000L);
        // an interactive session that ran a command, then stays idle
        try (AdminClient c = AdminClient.open(admin)) {
            c.send("prompt\nshow cli level\n");
            assertThat(c.readUntil("admin\n\n> ", 5_000)).isEqualTo("\n> admin\n\n> ");
            start = System.nanoTime();
            assertThat(c.readToEnd(10_000)).isEmpty();
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(1_500L, 8_000L);
        }
        // the socket still answers
        assertThat(cli("show cli level")).isEqualTo("admin\n\n");
    }

    @Test
    void statsSocketInheritedFromTheEnvironment() throws Exception {
        Path dir2 = Files.createTempDirectory("sluice-fd-env");
        Path sock = dir2.resolve("inherited.sock");
        int port = Ports.free();
        Path cfg = Sluice.writeConfig("""
                global
                    stats socket "fd@${ADMIN_FD}" level admin
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 1s
                frontend fe
                    bind 127.0.0.1:%d
                    stick-table type ip size 10 expire 30s store http_req_cnt
                    http-request track-sc0 src
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(port, web1.port()));
        ProcessBuilder launcher = Sluice.launcher(List.of("-f", cfg.toString()), Map.of("ADMIN_FD", "3"));
        List<String> cmd = new java.util.ArrayList<>(List.of("perl", "-e", AdminSocketRobustnessTest.INHERIT_UNIX_SOCKET, sock.toString()));
        cmd.addAll(launcher.command());
        ProcessBuilder pb = new ProcessBuilder(Program.command(cmd));
        pb.environment().putAll(launcher.environment());
        pb.directory(launcher.directory());
        try (Sluice s = Sluice.startWith(pb, cfg.getParent(), port)) {
            assertThat(AdminClient.run(sock, "show cli level\n")).isEqualTo("admin\n\n");
            assertThat(get(port, "/")).isEqualTo("200 web1");
            assertThat(AdminClient.run(sock, "show table\n")).isEqualTo("# table: fe, type: ip, size:10, used:1\n\n");
            assertThat(AdminClient.run(sock, "show backend\n")).isEqualTo("# name\nbe\n\n");
        }
        // a variable that names no descriptor is a configuration error
        Sluice.Result r = Sluice.check("""
                global
                    stats socket "fd@${NO_SUCH_FD}" level admin
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 1s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    server s1 127.0.0.1:1
                """.formatted(Ports.free()));
        assertThat(r.exitCode()).isEqualTo(1);
    }

    /** Sends n requests to fe_main and counts the answering origins. */
    static Map<String, Integer> origins(int n) {
        Map<String, Integer> seen = new java.util.HashMap<>();
        for (int i = 0; i < n; i++) {
            String r = get(feMain, "/");
            assertThat(r).startsWith("200 ");
            seen.merge(r.substring(4), 1, Integer::sum);
        }
        return seen;
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin (stats) socket against a daemon with two frontends (one with an HTTP/2 bind) and three
 * backends: HAProxy's output formats (compared with HAProxy 2.6's own output in
 * src/test/resources/haproxy-2.6), its error strings, levels, prompt mode and ';' pipelines, counters
 * that follow traffic, and server states that change traffic at once. Tests that change a state put it
 * back; counter checks compare before and after.
 */
class AdminSocketTest {
    static Origin web1;
    static Origin web2;
    static Origin api1;
    static Sluice sluice;
    static Path dir;
    static Path admin;
    static Path oper;
    static Path user;
    static int tcp;
    static int feMain;
    static int feApi;
    static int feApiH2;

    static String config(Path dir, int tcp, int feMain, int feApi, int feApiH2, int web1, int web2, int api1, int dead) {
        return """
                global
                    nbthread 2
                    stats socket %1$s/admin.sock mode 600 level admin
                    stats socket %1$s/oper.sock
                    stats socket %1$s/user.sock level user
                    stats socket ipv4@127.0.0.1:%2$d level admin
                    stats timeout 5s
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 200ms
                frontend fe_main
                    bind 127.0.0.1:%3$d
                    default_backend be_web
                frontend fe_api
                    bind 127.0.0.1:%4$d
                    bind 127.0.0.1:%5$d proto h2
                    acl is_api path_beg /api
                    use_backend be_api if is_api
                    default_backend be_static
                backend be_web
                    server web1 127.0.0.1:%6$d weight 10
                    server web2 127.0.0.1:%7$d weight 10
                backend be_api
                    server api1 127.0.0.1:%8$d
                backend be_static
                    server st1 127.0.0.1:%9$d
                """.formatted(dir, tcp, feMain, feApi, feApiH2, web1, web2, api1, dead);
    }

    @BeforeAll
    static void start() throws IOException {
        web1 = Origin.start("web1");
        web2 = Origin.start("web2");
        api1 = Origin.start("api1");
        dir = Files.createTempDirectory("sluice-admin");
        admin = dir.resolve("admin.sock");
        oper = dir.resolve("oper.sock");
        user = dir.resolve("user.sock");
        tcp = Ports.free();
        feMain = Ports.free();
        feApi = Ports.free();
        feApiH2 = Ports.free();
        Path cfg = Sluice.writeConfig(config(dir, tcp, feMain, feApi, feApiH2, web1.port(), web2.port(), api1.port(), Ports.free()));
        sluice = Sluice.start(cfg, List.of(), Map.of(), feMain, feApi, feApiH2, tcp);
        AdminClient.await(admin);
        AdminClient.await(user);
    }

    @AfterAll
    static void stop() {
        if (sluice != null) {
            sluice.close();
        }
        web1.close();
        web2.close();
        api1.close();
    }

    static String cli(String line) {
        return AdminClient.run(admin, line + "\n");
    }

    static String resource(String name) throws IOException {
        return Files.readString(Path.of("src/test/resources/haproxy-2.6", name), StandardCharsets.UTF_8);
    }

    /** show stat as rows of column -> value, keyed "pxname/svname", in output order. */
    static Map<String, Map<String, String>> stat() {
        return parseStat(cli("show stat"));
    }

    static Map<String, Map<String, String>> parseStat(String csv) {
        String[] lines = csv.split("\n");
        // every column, the last included, is followed by a comma
        List<String> header = Arrays.asList(lines[0].substring(2, lines[0].length() - 1).split(",", -1));
        Map<String, Map<String, String>> rows = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].isEmpty()) {
                continue;
            }
            String[] v = lines[i].substring(0, lines[i].length() - 1).split(",", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < header.size(); c++) {
                row.put(header.get(c), c < v.length ? v[c] : null);
            }
            rows.put(v[0] + "/" + v[1], row);
        }
        return rows;
    }

    static long delta(Map<String, Map<String, String>> before, Map<String, Map<String, String>> after, String row, String col) {
        return Long.parseLong(after.get(row).get(col)) - Long.parseLong(before.get(row).get(col));
    }

    static String get(int port, String path) {
        try (RawClient c = new RawClient(port)) {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            return r.status() + (r.header("x-origin") != null ? " " + r.header("x-origin") : "");
        }
    }

    // ------------------------------------------------------------------ formats

    @Test
    void showInfoHasHaproxyFieldNamesInHaproxyOrder() throws IOException {
        List<String> expected = resource("show-info.txt").lines().filter(l -> !l.isEmpty()).map(l -> l.substring(0, l.indexOf(": "))).toList();
        String out = cli("show info");
        assertThat(out).endsWith("\n\n");
        List<String> lines = out.lines().filter(l -> !l.isEmpty()).toList();
        assertThat(lines.stream().map(l -> l.substring(0, l.indexOf(": "))).toList()).isEqualTo(expected);
        Map<String, String> info = lines.stream().collect(Collectors.toMap(l -> l.substring(0, l.indexOf(": ")), l -> l.substring(l.indexOf(": ") + 2)));
        assertThat(info.get("Name")).isEqualTo("Sluice");
        assertThat(info.get("Pid")).isEqualTo(Long.toString(sluice.pid()));
        assertThat(info.get("Nbthread")).isEqualTo("2");
        assertThat(info.get("Nbproc")).isEqualTo("1");
        assertThat(info.get("Uptime")).matches("\\d+d \\d+h\\d\\dm\\d\\ds");
        assertThat(info.get("Release_date")).matches("\\d{4}/\\d\\d/\\d\\d");
        // 3 binds and 4 stats sockets
        assertThat(info.get("Listeners")).isEqualTo("7");
        assertThat(Long.parseLong(info.get("CumConns"))).isPositive();
        for (String numeric : List.of("Uptime_sec", "Maxconn", "CurrConns", "CumReq", "Idle_pct", "TotalBytesOut", "PoolAlloc_bytes", "Jobs")) {
            assertThat(info.get(numeric)).as(numeric).matches("\\d+");
        }
    }

    @Test
    void showInfoTypedAndJsonFollowHaproxy() throws IOException {
        List<String> expected = resource("show-info-typed.txt").lines().filter(l -> !l.isEmpty())
                .map(l -> l.substring(0, l.indexOf(':', l.indexOf(':') + 1 + 4) + 1)).toList();
        List<String> typed = cli("show info typed").lines().filter(l -> !l.isEmpty()).toList();
        // position, name, process, tags and type as HAProxy prints them: "6.Pid.1:SGP:u32:"
        assertThat(typed.stream().map(l -> l.substring(0, l.indexOf(':', l.indexOf(':') + 1 + 4) + 1)).toList()).isEqualTo(expected);
        assertThat(typed).contains("0.Name.1:POS:str:Sluice", "6.Pid.1:SGP:u32:" + sluice.pid());
        assertThat(cli("show info typed desc")).contains("\n6.Pid.1:SGP:u32:" + sluice.pid() + ":\"This worker process identifier for the system\"\n");
        String json = cli("show info json");
        assertThat(json).startsWith("[{\"field\":{\"pos\":0,\"name\":\"Name\"},\"processNum\":1,\"tags\":{\"origin\":\"Product\",\"nature\":\"Output\","
                + "\"scope\":\"Service\"},\"value\":{\"type\":\"str\",\"value\":\"Sluice\"}},").endsWith("}}]\n\n");
        assertThat(json.split("\\{\"field\"", -1)).hasSize(expected.size() + 1);
    }

    @Test
    void showStatHeaderIsHaproxys() throws IOException {
        String header = resource("show-stat.csv").lines().findFirst().orElseThrow();
        assertThat(cli("show stat").lines().findFirst().orElseThrow()).isEqualTo(header);
    }

    /** Columns HAProxy fills that Sluice leaves empty because it does not measure them. */
    static final Set<String> NOT_MEASURED = Set.of("eint", "srv_icur",
            "idle_conn_cur", "safe_conn_cur", "used_conn_cur", "need_conn_est", "agg_server_status", "agg_server_check_status",
            "agg_check_status");

    @Test
    void showStatRowsHaveHaproxysShape() throws IOException {
        Map<String, Map<String, String>> haproxy = parseStat(resource("show-stat.csv"));
        Map<String, Map<String, String>> ours = stat();
        assertThat(ours.keySet()).containsExactly("fe_main/FRONTEND", "fe_api/FRONTEND", "be_web/web1", "be_web/web2", "be_web/BACKEND",
                "be_api/api1", "be_api/BACKEND", "be_static/st1", "be_static/BACKEND");
        assertThat(ours.keySet()).containsExactlyElementsOf(haproxy.keySet());
        for (String row : ours.keySet()) {
            Set<String> theirs = filled(haproxy.get(row));
            Set<String> mine = filled(ours.get(row));
            assertThat(ours.get(row)).as(row).hasSize(128).doesNotContainValue(null);
            // every column Sluice fills, HAProxy fills too; what only HAProxy fills is what Sluice does not measure
            assertThat(theirs).as(row).containsAll(mine);
            Set<String> missing = new TreeSet<>(theirs);
            missing.removeAll(mine);
            missing.removeIf(c -> c.startsWith("ssl_") || c.startsWith("h1_") || c.startsWith("h2_"));
            assertThat(NOT_MEASURED).as(row).containsAll(missing);
        }
        Map<String, String> fe = ours.get("fe_main/FRONTEND");
        assertThat(fe.get("status")).isEqualTo("OPEN");
        assertThat(fe.get("iid")).isEqualTo("2");
        assertThat(fe.get("type")).isEqualTo("0");
        assertThat(fe.get("mode")).isEqualTo("http");
        Map<String, String> srv = ours.get("be_web/web2");
        assertThat(srv.get("status")).isEqualTo("no check");
        assertThat(srv.get("iid")).isEqualTo("4");
        assertThat(srv.get("sid")).isEqualTo("2");
        assertThat(srv.get("type")).isEqualTo("2");
        assertThat(srv.get("addr")).isEqualTo("127.0.0.1:" + web2.port());
        Map<String, String> be = ours.get("be_web/BACKEND");
        assertThat(be.get("status")).isEqualTo("UP");
        assertThat(be.get("algo")).isEqualTo("roundrobin");
        assertThat(be.get("weight")).isEqualTo("20");
        assertThat(be.get("act")).isEqualTo("2");
        assertThat(be.get("type")).isEqualTo("1");
    }

    @Test
    void showStatTypedUsesHaproxysTagsAndPositions() throws IOException {
        // position, name, tags and type of each field as HAProxy 2.6 prints them, for each object
        Map<String, String> theirs = new HashMap<>();
        for (String l : resource("show-stat-typed.txt").lines().filter(l -> !l.isEmpty()).toList()) {
            String[] p = l.split(":", 4);
            theirs.put(p[0].replaceFirst("^(\\w)\\.\\d+\\.", "$1.") + ":" + p[1] + ":" + p[2], l);
        }
        List<String> ours = cli("show stat typed").lines().filter(l -> !l.isEmpty()).toList();
        assertThat(ours).isNotEmpty();
        for (String l : ours) {
            String[] p = l.split(":", 4);
            assertThat(theirs).as(l).containsKey(p[0].replaceFirst("^(\\w)\\.\\d+\\.", "$1.") + ":" + p[1] + ":" + p[2]);
        }
        assertThat(ours).contains("F.2.0.0.pxname.1:KNS:str:fe_main", "S.4.2.17.status.1:SGP:str:no check", "B.4.0.1.svname.1:KNS:str:BACKEND");
        assertThat(cli("show stat be_api 2 -1 typed desc")).startsWith("B.5.0.0.pxname.1:KNS:str:be_api:\"Proxy name\"\n");
    }

    static Set<String> filled(Map<String, String> row) {
        return row.entrySet().stream().filter(e -> e.getValue() != null && !e.getValue().isEmpty()).map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void showStatFiltersAndUserLevelHidesAddresses() {
        assertThat(parseStat(cli("show stat be_web 4 -1")).keySet()).containsExactly("be_web/web1", "be_web/web2");
        assertThat(parseStat(cli("show stat -1 3 -1")).keySet()).containsExactly("fe_main/FRONTEND", "fe_api/FRONTEND", "be_web/BACKEND",
                "be_api/BACKEND", "be_static/BACKEND");
        assertThat(parseStat(cli("show stat 4 4 2")).keySet()).containsExactly("be_web/web2");
        assertThat(cli("show stat nope 1 -1")).isEqualTo("No such proxy.\n\n");
        Map<String, Map<String, String>> asUser = parseStat(AdminClient.run(user, "show stat\n"));
        assertThat(asUser.get("be_web/web1").get("addr")).isEmpty();
        assertThat(asUser.get("be_web/BACKEND").get("algo")).isEmpty();
    }

    @Test
    void showServersStateLinesAsHaproxy() throws IOException {
        List<String> haproxy = resource("show-servers-state.txt").lines().toList();
        List<String> lines = cli("show servers state").lines().toList();
        assertThat(lines.get(0)).isEqualTo("1");
        assertThat(lines.get(1)).isEqualTo(haproxy.get(1));
        assertThat(lines.get(2)).matches("4 be_web 1 web1 127\\.0\\.0\\.1 2 0 10 10 \\d+ 1 0 2 0 0 0 0 - " + web1.port() + " - 0 0 - - 0");
        assertThat(lines.subList(2, 6)).allSatisfy(l -> assertThat(l.split(" ")).hasSize(haproxy.get(2).split(" ").length));
        assertThat(lines.get(6)).isEmpty();
        assertThat(lines).hasSize(7);
        assertThat(cli("show servers state be_api").lines().toList()).hasSize(4);
        assertThat(cli("show servers state #5")).isEqualTo(cli("show servers state be_api"));
        assertThat(cli("show servers state nope")).isEqualTo("Can't find backend.\n\n");
        assertThat(cli("show servers state fe_main")).isEqualTo("Can't find backend.\n\n");
    }

    @Test
    void showBackendAndShowErrors() {
        assertThat(cli("show backend")).isEqualTo("# name\nbe_web\nbe_api\nbe_static\n\n");
        assertThat(cli("show errors")).matches("(?s)Total events captured on \\[\\d\\d/\\w{3}/\\d{4}:\\d\\d:\\d\\d:\\d\\d\\.\\d{3}] : \\d+\n.*\n");
        assertThat(cli("show errors nope")).isEqualTo("No such proxy.\n\n");
    }

    // ------------------------------------------------------------------ protocol

    @Test
    void oneShotAnswersAndCloses() {
        assertThat(cli("show cli level")).isEqualTo("admin\n\n");
        assertThat(AdminClient.run(tcp, "show cli level\n")).isEqualTo("admin\n\n");
        // a line without its line feed is dropped when the client ends, as HAProxy does
        assertThat(AdminClient.run(admin, "show cli level")).isEmpty();
        assertThat(AdminClient.run(admin, "quit\n")).isEmpty();
        assertThat(AdminClient.run(admin, "show cli level\r\n")).isEqualTo("admin\n\n");
    }

    @Test
    void semicolonsSeparateCommands() {
        assertThat(cli("show cli level;get weight be_web/web1;show backend"))
                .isEqualTo("admin\n\n10 (initial 10)\n\n# name\nbe_web\nbe_api\nbe_static\n\n");
        assertThat(cli("get weight be_web\\;x/web1")).isEqualTo("No such backend.\n\n");
        assertThat(cli("show cli level ; user ; show cli level")).isEqualTo("admin\n\n\nuser\n\n");
    }

    @Test
    void promptModeAsHaproxy() {
        // the exact bytes HAProxy sends for this exchange
        assertThat(AdminClient.run(admin, "prompt\nshow cli level\nget weight be_web/web1\nquit\n"))
                .isEqualTo("\n> admin\n\n> 10 (initial 10)\n\n> ");
        try (AdminClient c = AdminClient.open(admin)) {
            assertThat(c.send("prompt\n").readUntil("> ", 5000)).isEqualTo("\n> ");
            assertThat(c.send("show cli level\n").readUntil("> ", 5000)).isEqualTo("admin\n\n> ");
            assertThat(c.send("operator\n").readUntil("> ", 5000)).isEqualTo("\n> ");
            assertThat(c.send("set weight be_web/web1 5\n").readUntil("> ", 5000)).isEqualTo("Permission denied\n\n> ");
            assertThat(c.send("prompt\n").readToEnd(5000)).isEqualTo("\n");
        }
        // prompt i: interactive without a prompt (HAProxy 3.x)
        try (AdminClient c = AdminClient.open(admin)) {
            assertThat(c.send("prompt i\nshow cli level\n").readUntil("admin\n\n", 5000)).isEqualTo("\nadmin\n\n");
            assertThat(c.send("quit\n").readToEnd(5000)).isEmpty();
        }
    }

    @Test
    void helpAndUnknownCommandsInHaproxysLayout() throws IOException {
        String help = cli("help");
        assertThat(help).startsWith("The following commands are valid at this level:\n")
                .endsWith("  help [<command>]                        : list matching or all commands\n"
                        + "  prompt                                  : toggle interactive mode with prompt\n"
                        + "  quit                                    : disconnect\n\n");
        // every line Sluice prints for a command HAProxy has is HAProxy's own line
        Set<String> haproxyLines = resource("help.txt").lines().collect(Collectors.toSet());
        for (String l : help.lines().skip(1).filter(l -> !l.isEmpty()).toList()) {
            String cmd = l.substring(2, 42).trim();
            // show quic: the Debian HAProxy 2.6 the help was captured from has no QUIC; flush pools: Sluice's
            // (HAProxy flushes on SIGQUIT, which the JVM keeps); reload: Sluice's in-process reload (HAProxy's is the
            // master CLI's, which starts a new process)
            if (!Set.of("set server <bk>/<srv> [opts]", "show quic [oneline|full] [all]", "flush pools", "reload").contains(cmd)) {
                assertThat(haproxyLines).as(l).contains(l);
            }
        }
        // the closest command is proposed first (HAProxy 2.6 proposes only this one; Sluice's distances also keep show sess)
        assertThat(cli("show stats")).startsWith("Unknown command, but maybe one of the following ones is a better match:\n")
                .contains("  show stat [desc|json|no-maint|typed|up]*: report counters for each proxy and server\n")
                .endsWith("  help [<command>]                        : list matching or all commands\n"
                + "  prompt                                  : toggle interactive mode with prompt\n"
                + "  quit                                    : disconnect\n\n");
        assertThat(cli("set srever be_web/web1 state maint")).startsWith("Unknown command, but maybe one of the following ones is a better match:\n")
                .contains("\n  set server <bk>/<srv> [opts]            : change a server's state or weight\n");
        assertThat(cli("")).startsWith("Unknown command. Please enter one of the following commands only:\n");
    }

    @Test
    void errorStringsAsHaproxy() {
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("set server be_web/web1 state foo", "'set server <srv> state' expects 'ready', 'drain' and 'maint'.\n\n");
        expected.put("set server be_web/web1 state", "'set server <srv> state' expects 'ready', 'drain' and 'maint'.\n\n");
        expected.put("set server be_web/nope state maint", "No such server.\n\n");
        expected.put("set server nope/web1 state maint", "No such backend.\n\n");
        expected.put("set server fe_main/x state ready", "No such backend.\n\n");
        expected.put("set server be_web state maint", "Require 'backend/server'.\n\n");
        expected.put("set server", "Require 'backend/server'.\n\n");
        expected.put("set server be_web/web1", "usage: set server <backend>/<server> addr | agent | agent-addr | agent-port | agent-send | check-addr"
                + " | check-port | fqdn | health | ssl | state | weight\n\n");
        expected.put("set server be_web/web1 weight", "Require <weight> or <weight%>.\n\n");
        expected.put("set server be_web/web1 weight 300", "Absolute weight can only be between 0 and 256 inclusive.\n\n");
        expected.put("set server be_web/web1 weight -1", "Absolute weight can only be between 0 and 256 inclusive.\n\n");
        expected.put("set server be_web/web1 weight -5%", "Relative weight must be positive.\n\n");
        // HAProxy prints these two without a line feed: only the separator follows
        expected.put("set server be_web/web1 weight abc", "Empty weight string empty or preceded by garbage\n");
        expected.put("set weight be_web/web1 12abc", "Trailing garbage in weight string\n");
        expected.put("get weight", "Require 'backend/server'.\n\n");
        expected.put("get weight be_web/", "Require 'backend/server'.\n\n");
        expected.put("get weight /web1", "No such backend.\n\n");
        expected.put("get weight be_web/x", "No such server.\n\n");
        expected.put("get weight #4/#2", "10 (initial 10)\n\n");
        expected.put("get weight #4/2", "No such server.\n\n");
        expected.put("disable frontend", "A frontend name is expected.\n\n");
        expected.put("disable frontend be_web", "No such frontend.\n\n");
        expected.put("enable frontend fe_api", "All sockets are already enabled.\n\n");
        expected.put("disable server be_web", "Require 'backend/server'.\n\n");
        for (var e : expected.entrySet()) {
            assertThat(cli(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    @Test
    void levelsAreEnforced() {
        for (String cmd : List.of("set server be_web/web1 state maint", "set weight be_web/web1 1", "disable server be_web/web1",
                "enable server be_web/web1", "disable frontend fe_api", "enable frontend fe_api", "clear counters", "clear counters all",
                "show errors", "operator")) {
            assertThat(AdminClient.run(user, cmd + "\n")).as(cmd).isEqualTo("Permission denied\n\n");
        }
        assertThat(AdminClient.run(user, "show cli level\n")).isEqualTo("user\n\n");
        assertThat(AdminClient.run(user, "get weight be_web/web1\n")).isEqualTo("10 (initial 10)\n\n");
        assertThat(AdminClient.run(user, "show servers state be_api\n")).startsWith("1\n# be_id");
        assertThat(AdminClient.run(oper, "show cli level\n")).isEqualTo("operator\n\n");
        assertThat(AdminClient.run(oper, "clear counters\n")).isEqualTo("\n");
        assertThat(AdminClient.run(oper, "clear counters all\n")).isEqualTo("Permission denied\n\n");
        assertThat(AdminClient.run(oper, "set server be_web/web1 state maint\n")).isEqualTo("Permission denied\n\n");
        assertThat(AdminClient.run(oper, "show errors\n")).startsWith("Total events captured on");
        // an admin session lowering itself loses its rights
        assertThat(cli("user;set weight be_web/web1 1;show cli level")).isEqualTo("\nPermission denied\n\nuser\n\n");
        assertThat(cli("get weight be_web/web1")).isEqualTo("10 (initial 10)\n\n");
    }

    // ------------------------------------------------------------------ counters

    @Test
    void countersFollowTraffic() {
        Map<String, Map<String, String>> before = stat();
        for (int i = 0; i < 4; i++) {
            assertThat(get(feMain, "/")).startsWith("200 web");
        }
        assertThat(get(feApi, "/api/x")).isEqualTo("200 api1");
        // be_static's only server does not listen: 3 retries, then 503
        assertThat(get(feApi, "/")).isEqualTo("503");
        Map<String, Map<String, String>> after = stat();
        assertThat(delta(before, after, "fe_main/FRONTEND", "req_tot")).isEqualTo(4);
        assertThat(delta(before, after, "fe_main/FRONTEND", "conn_tot")).isEqualTo(4);
        assertThat(delta(before, after, "fe_main/FRONTEND", "stot")).isEqualTo(4);
        assertThat(delta(before, after, "fe_main/FRONTEND", "hrsp_2xx")).isEqualTo(4);
        // HAProxy's HTX size of each request head: its start line's parts plus 20, the field's name and value, plus 1
        assertThat(delta(before, after, "fe_main/FRONTEND", "bin")).isEqualTo(4 * (20 + "GET/HTTP/1.1".length() + "hostx".length() + 1));
        assertThat(delta(before, after, "fe_main/FRONTEND", "bout")).isPositive();
        assertThat(delta(before, after, "be_web/BACKEND", "stot")).isEqualTo(4);
        assertThat(delta(before, after, "be_web/BACKEND", "lbtot")).isEqualTo(4);
        assertThat(delta(before, after, "be_web/web1", "lbtot") + delta(before, after, "be_web/web2", "lbtot")).isEqualTo(4);
        assertThat(delta(before, after, "be_web/web1", "hrsp_2xx") + delta(before, after, "be_web/web2", "hrsp_2xx")).isEqualTo(4);
        assertThat(delta(before, after, "be_web/BACKEND", "bout")).isEqualTo(delta(before, after, "fe_main/FRONTEND", "bout"));
        assertThat(delta(before, after, "be_api/api1", "req_tot")).isEqualTo(1);
        assertThat(delta(before, after, "fe_api/FRONTEND", "hrsp_5xx")).isEqualTo(1);
        assertThat(delta(before, after, "be_static/BACKEND", "hrsp_5xx")).isEqualTo(1);
        assertThat(delta(before, after, "be_static/st1", "hrsp_5xx")).isZero();
        assertThat(delta(before, after, "be_static/st1", "econ")).isEqualTo(1);
        assertThat(delta(before, after, "be_static/BACKEND", "econ")).isEqualTo(1);
        assertThat(delta(before, after, "be_static/st1", "wretr")).isEqualTo(3);
        assertThat(delta(before, after, "be_static/st1", "stot")).isEqualTo(4);
        assertThat(delta(before, after, "be_static/st1", "connect")).isEqualTo(4);
        assertThat(Long.parseLong(after.get("be_web/BACKEND").get("smax"))).isPositive();
        assertThat(after.get("be_web/BACKEND").get("lastsess")).matches("\\d+");
    }

    @Test
    void invalidHttp1RequestCountsInEreq() {
        Map<String, Map<String, String>> before = stat();
        try (RawClient c = new RawClient(feMain)) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: a\r\nbad header\r\n\r\n").read().status()).isEqualTo(400);
        }
        Map<String, Map<String, String>> after = stat();
        assertThat(delta(before, after, "fe_main/FRONTEND", "ereq")).isEqualTo(1);
        assertThat(delta(before, after, "fe_main/FRONTEND", "hrsp_4xx")).isEqualTo(1);
        assertThat(delta(before, after, "fe_main/FRONTEND", "req_tot")).isEqualTo(1);
        assertThat(delta(before, after, "be_web/BACKEND", "req_tot")).isZero();
    }

    @Test
    void invalidHttp2RequestCountsInEreq() throws Exception {
        Map<String, Map<String, String>> before = stat();
        try (Socket s = new Socket("127.0.0.1", feApiH2)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(frame(0x4, 0, 0, new byte[0]));
            // a request whose :path does not start with '/': a stream error (RST_STREAM PROTOCOL_ERROR)
            byte[] block = concat(literal(":method", "GET"), literal(":scheme", "http"), literal(":path", "nope"), literal(":authority", "x"));
            out.write(frame(0x1, 0x5, 1, block));
            out.flush();
            assertThat(readUntilReset(s)).isTrue();
        }
        Map<String, Map<String, String>> after = stat();
        assertThat(delta(before, after, "fe_api/FRONTEND", "ereq")).isEqualTo(1);
    }

    static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >> 16);
        f[1] = (byte) (payload.length >> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        f[5] = (byte) (stream >> 24);
        f[6] = (byte) (stream >> 16);
        f[7] = (byte) (stream >> 8);
        f[8] = (byte) stream;
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    /** An HPACK literal field without indexing, new name, no Huffman (names and values under 127 bytes). */
    static byte[] literal(String name, String value) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        byte[] v = value.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[3 + n.length + v.length];
        out[0] = 0;
        out[1] = (byte) n.length;
        System.arraycopy(n, 0, out, 2, n.length);
        out[2 + n.length] = (byte) v.length;
        System.arraycopy(v, 0, out, 3 + n.length, v.length);
        return out;
    }

    static byte[] concat(byte[]... parts) {
        int len = 0;
        for (byte[] p : parts) {
            len += p.length;
        }
        byte[] out = new byte[len];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    /** Reads frames until a RST_STREAM for stream 1 (true) or the end of the connection (false). */
    static boolean readUntilReset(Socket s) throws IOException {
        var in = s.getInputStream();
        while (true) {
            byte[] head = in.readNBytes(9);
            if (head.length < 9) {
                return false;
            }
            int len = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
            int type = head[3];
            int stream = (head[5] & 0x7f) << 24 | (head[6] & 0xff) << 16 | (head[7] & 0xff) << 8 | head[8] & 0xff;
            in.readNBytes(len);
            if (type == 0x3 && stream == 1) {
                return true;
            }
        }
    }

    // ------------------------------------------------------------------ state changes and traffic

    @Test
    void maintDrainAndWeightZeroStopNewRequestsAndReadyRestores() {
        try {
            assertThat(origins(10)).containsOnlyKeys("web1", "web2");
            assertThat(cli("set server be_web/web1 state maint")).isEqualTo("\n");
            assertThat(origins(10)).containsOnlyKeys("web2");
            assertThat(stat().get("be_web/web1").get("status")).isEqualTo("MAINT");
            assertThat(cli("show servers state be_web").lines().skip(2).findFirst().orElseThrow()).startsWith("4 be_web 1 web1 127.0.0.1 0 1 10 10 ");
            assertThat(cli("set server be_web/web1 state drain")).isEqualTo("\n");
            assertThat(origins(10)).containsOnlyKeys("web2");
            assertThat(stat().get("be_web/web1").get("status")).isEqualTo("DRAIN");
            assertThat(cli("show servers state be_web").lines().skip(2).findFirst().orElseThrow()).startsWith("4 be_web 1 web1 127.0.0.1 2 8 10 10 ");
            assertThat(cli("set server be_web/web1 state ready")).isEqualTo("\n");
            assertThat(origins(10)).containsOnlyKeys("web1", "web2");
            assertThat(cli("set server be_web/web1 weight 0")).isEqualTo("\n");
            assertThat(origins(10)).containsOnlyKeys("web2");
            assertThat(stat().get("be_web/BACKEND").get("weight")).isEqualTo("10");
            assertThat(cli("set weight be_web/web1 100%")).isEqualTo("\n");
            assertThat(cli("get weight be_web/web1")).isEqualTo("10 (initial 10)\n\n");
            assertThat(origins(10)).containsOnlyKeys("web1", "web2");
            // the deprecated aliases, and no server left: 503 and a DOWN backend
            assertThat(cli("disable server be_web/web1;disable server be_web/web2")).isEqualTo("\n\n");
            assertThat(get(feMain, "/")).isEqualTo("503");
            Map<String, String> be = stat().get("be_web/BACKEND");
            assertThat(be.get("status")).isEqualTo("DOWN");
            assertThat(be.get("act")).isEqualTo("0");
            assertThat(Long.parseLong(be.get("chkdown"))).isPositive();
            assertThat(cli("enable server be_web/web1;enable server be_web/web2")).isEqualTo("\n\n");
            assertThat(stat().get("be_web/BACKEND").get("status")).isEqualTo("UP");
            assertThat(origins(10)).containsOnlyKeys("web1", "web2");
        } finally {
            cli("set server be_web/web1 state ready;set server be_web/web2 state ready;set weight be_web/web1 10;set weight be_web/web2 10");
        }
    }

    /** Sends n requests to fe_main and counts the answering origins. */
    static Map<String, Integer> origins(int n) {
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String r = get(feMain, "/");
            assertThat(r).startsWith("200 ");
            seen.merge(r.substring(4), 1, Integer::sum);
        }
        return seen;
    }

    @Test
    void disabledFrontendStopsAcceptingUntilEnabled() throws Exception {
        try {
            assertThat(cli("disable frontend fe_api")).isEqualTo("\n");
            assertThat(cli("disable frontend fe_api")).isEqualTo("All sockets are already disabled.\n\n");
            assertThat(stat().get("fe_api/FRONTEND").get("status")).isEqualTo("PAUSED");
            try (RawClient c = new RawClient(feApi, 1000)) {
                c.send("GET /api/paused HTTP/1.1\r\nHost: x\r\n\r\n");
                // the connection waits in the backlog: no answer while paused
                assertThat(timesOut(c)).isTrue();
                assertThat(cli("enable frontend #3")).isEqualTo("\n");
                assertThat(c.read().status()).isEqualTo(200);
            }
            assertThat(stat().get("fe_api/FRONTEND").get("status")).isEqualTo("OPEN");
        } finally {
            cli("enable frontend fe_api");
        }
    }

    static boolean timesOut(RawClient c) {
        try {
            c.read();
            return false;
        } catch (java.io.UncheckedIOException e) {
            return e.getCause() instanceof java.net.SocketTimeoutException;
        }
    }

    @Test
    void clearCounters() {
        get(feMain, "/");
        assertThat(Long.parseLong(stat().get("fe_main/FRONTEND").get("req_tot"))).isPositive();
        assertThat(cli("clear counters")).isEqualTo("\n");
        assertThat(Long.parseLong(stat().get("fe_main/FRONTEND").get("req_tot"))).isPositive();
        assertThat(cli("clear counters all")).isEqualTo("\n");
        Map<String, String> fe = stat().get("fe_main/FRONTEND");
        assertThat(fe.get("req_tot")).isEqualTo("0");
        assertThat(fe.get("stot")).isEqualTo("0");
        assertThat(stat().get("be_web/web1").get("lbtot")).isEqualTo("0");
        assertThat(stat().get("be_web/web1").get("lastsess")).isEqualTo("-1");
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code show table}, {@code clear table} and {@code set table} on the admin socket: the same
 * configuration and traffic in HAProxy 2.6 and in Sluice, the same command lines to both (on admin,
 * operator and user level sockets), the same answers once entry pointers and expiry countdowns are masked;
 * then the fields of Sluice's lines one by one. Skipped without haproxy, except the field checks.
 */
class TableCommandsTest {

    /** Command lines; "op:" and "user:" go to the operator and user sockets. Each on its own connection. */
    static final List<String> INPUTS = List.of(
            "show table",
            "show table fe",
            "show table trk",
            "show table nope",
            "show table fe extra",
            "show table fe key",
            "show table fe key 127.0.0.1",
            "show table fe key 10.0.0.9",
            "show table fe key 1.2.3",
            "show table fe data.foo eq 1",
            "show table fe data.gpc0 eq 1",
            "show table fe data.conn_cnt",
            "show table fe data.conn_cnt xx 1",
            "show table fe data.conn_cnt eq",
            "show table fe data.conn_cnt eq x",
            "show table fe data.conn_cnt eq +0",
            "show table fe data.conn_cnt gt 1x",
            "show table fe data.conn_cnt eq 99999999999999999999",
            "show table fe data.conn_cnt gt 0",
            "show table fe data.conn_cnt gt 0 data.http_req_cnt ge 1 foo",
            "show table fe data.conn_cnt gt 0 data.http_req_cnt ge 1 data.conn_cur eq 0 data.http_req_rate eq 1 data.conn_cnt eq 1",
            "show table fe data.conn_cnt eq 1 extra",
            "show table fe data.conn_cnt eq 1 data.conn_cnt",
            "show table fe data.conn_cnt eq 1 data.conn_cnt eq",
            "show table bins key 0102",
            "clear table",
            "clear table nope",
            "clear table fe key",
            "clear table fe extra",
            "clear table bins key 01",
            "clear table trk key 127.0.0.1",
            "clear table trk",
            "show table trk",
            "set table",
            "set table fe key",
            "set table fe foo",
            "set table fe data.gpc 1",
            "set table fe key 1.1.1.1",
            "set table fe key 1.1.1.1 data.foo 1",
            "set table fe key 1.1.1.1 data.gpc0 1",
            "set table fe key 1.1.1.1 foo",
            "set table fe key 1.1.1.1 data.gpc",
            "set table fe key 2.2.2.2 data.conn_cnt 4 data.foo 1 data.http_req_cnt 5",
            "set table fe key 3.3.3.3 data.conn_cnt x",
            "set table fe key 4.4.4.4 data.conn_cnt 12abc",
            "set table fe key 5.5.5.5 data.conn_cnt -1 data.http_req_rate 7 data.server_id -5 data.bytes_out_cnt -1",
            "set table fe key 6.6.6.6 data.conn_cnt 99999999999",
            "set table fe key 7.7.7.7 data.gpc 5 data.gpt 6 data.gpc_rate 3",
            "set table fe key 8.8.8.8 data.conn_cnt +3",
            "set table fe key 9.9.9.9 data.conn_cnt -",
            "set table fe key abc data.conn_cnt 2",
            "set table fe key 10 data.conn_cnt 3",
            "set table fe key 1.1.1.300",
            "set table fe key 1234.5.6.7.8",
            "set table fe key 1..1",
            "show table fe",
            "show table fe data.gpc eq 5",
            "show table fe data.gpc_rate gt 0",
            "show table fe data.conn_cnt eq 4294967295",
            "show table fe data.conn_cnt eq -1",
            "show table fe data.server_id lt 0",
            "show table fe data.http_req_rate eq 7",
            "clear table fe key 1.2.3",
            "clear table fe key 0.0.0.0 extra",
            "clear table fe data.conn_cnt eq 3",
            "show table fe",
            "set table ints key abc data.gpc0 1",
            "set table ints key -1 data.gpc0 1",
            "set table ints key 4294967296 data.gpc0 1",
            "set table ints key 4294967295 data.gpc0 1",
            "set table ints key 12abc data.gpc0 2",
            "set table ints key +5 data.gpc0 3",
            "set table ints key 0x10 data.gpc0 4",
            "show table ints",
            "set table v6 key 1.2.3.4",
            "set table v6 key [::1]",
            "set table v6 key ::ffff:1.2.3.4 data.gpc0 1",
            "set table v6 key 2001:db8:0:0:1:0:0:1",
            "set table v6 key 1::",
            "show table v6",
            "set table users key 01234567890123456789 data.http_req_cnt 1",
            "set table users key a\\ b data.http_req_cnt 2",
            "set table users key a\\\\x",
            "set table users key k data.server_key x",
            "set table users key k data.server_key 5",
            "set table users key 'a b' data.http_req_cnt 1",
            "show table users",
            "show table users key 0123456789012345",
            "show table users key 01234567890123456789",
            "show table users data.server_key eq 0",
            "user:show table",
            "user:show table fe",
            "user:show table fe data.conn_cnt eq 1",
            "user:show table fe key 127.0.0.1",
            "user:show table fe key",
            "user:set table fe key 1.1.1.1",
            "user:set table ints key abc",
            "user:set table fe foo",
            "user:set table fe data.x 1",
            "user:clear table fe key 1.1.1.1",
            "user:clear table fe data.conn_cnt eq 0",
            "user:clear table fe data.conn_cnt",
            "user:clear table fe",
            "op:show table fe key 1.1.1.1",
            "op:set table fe key 1.1.1.1 data.conn_cnt 6",
            "op:clear table ints",
            "show table",
            "show table fe",
            "clear table fe",
            "show table fe",
            "show table ints");

    static String config(Path dir, int plain, int fe, int held, int origin) {
        return """
                global
                    stats socket %1$s/admin.sock level admin
                    stats socket %1$s/op.sock level operator
                    stats socket %1$s/user.sock level user
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 30s
                    timeout server 5s
                frontend plain
                    bind 127.0.0.1:%2$d
                    default_backend be
                frontend fe
                    bind 127.0.0.1:%3$d
                    stick-table type ip size 1m expire 30s store http_req_rate(10s),http_req_cnt,conn_cur,conn_cnt,gpc(3),gpc_rate(2,5s),gpt(2),server_id,bytes_out_cnt
                    http-request track-sc0 src
                    http-request return status 200
                frontend held
                    bind 127.0.0.1:%4$d
                    tcp-request connection track-sc0 src table trk
                    default_backend be
                backend trk
                    stick-table type ip size 10 expire 30s store conn_cur,conn_cnt
                backend be
                    server s1 127.0.0.1:%5$d
                backend users
                    stick-table type string len 16 size 100 expire 1m store http_req_cnt,conn_cur,server_key
                backend ints
                    stick-table type integer size 3 store gpc0
                backend bins
                    stick-table type binary len 8 size 10 store gpc0
                backend v6
                    stick-table type ipv6 size 3 expire 10s nopurge store gpc0
                """.formatted(dir, plain, fe, held, origin);
    }

    @Test
    void sameAnswersAsHaproxy() throws Exception {
        String haproxy = Program.HAPROXY.require();
        try (Origin o = Origin.start("o")) {
            Path hdir = Files.createTempDirectory("tables-haproxy");
            Path sdir = Files.createTempDirectory("tables-sluice");
            int[] hp = {Ports.free(), Ports.free(), Ports.free()};
            int[] sp = {Ports.free(), Ports.free(), Ports.free()};
            Path hcfg = hdir.resolve("haproxy.cfg");
            Files.writeString(hcfg, config(hdir, hp[0], hp[1], hp[2], o.port()));
            Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                    .redirectOutput(hdir.resolve("haproxy.log").toFile()).start();
            try (Sluice s = Sluice.start(config(sdir, sp[0], sp[1], sp[2], o.port()), sp[0])) {
                HaproxyParityTest.waitFor(hp[0]);
                AdminClient.await(hdir.resolve("admin.sock"));
                AdminClient.await(sdir.resolve("admin.sock"));
                try (Socket heldH = traffic(hp); Socket heldS = traffic(sp)) {
                    awaitTracked(hdir);
                    awaitTracked(sdir);
                    for (String in : INPUTS) {
                        String theirs = run(hdir, in);
                        String ours = run(sdir, in);
                        assertThat(mask(ours)).as("answer to %s", in).isEqualTo(mask(theirs));
                    }
                }
            } finally {
                h.destroy();
                h.waitFor();
            }
        }
    }

    /**
     * Sessions ({@code sess_cnt}, {@code sess_rate}) against connections and requests, by where the tracker is
     * set: HAProxy 2.6 counts a session only on trackers of {@code tcp-request connection} rules, once the
     * connection passed them (a rejected connection counts a connection, no session); {@code tcp-request
     * content} and {@code http-request} trackers count a connection per request and never a session.
     */
    static String sessionsConfig(Path dir, int[] p) {
        String store = "store conn_cnt,sess_cnt,sess_rate(10s),http_req_cnt";
        String seen = "hdr x-s \"%[sc_sess_cnt(0)]|%[sc_sess_rate(0)]|%[sc_conn_cnt(0)]|%[sc_http_req_cnt(0)]|%[src_sess_cnt(tb)]\"";
        return """
                global
                    stats socket %1$s/admin.sock level admin
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 30s
                    timeout server 5s
                frontend plain
                    bind 127.0.0.1:%2$d
                    http-request return status 200
                frontend fc
                    bind 127.0.0.1:%3$d
                    stick-table type ip size 100 expire 1m %8$s
                    tcp-request connection track-sc0 src
                    http-request return status 200 %9$s
                frontend fh
                    bind 127.0.0.1:%4$d
                    http-request track-sc0 src table th
                    http-request return status 200 %9$s
                frontend ft
                    bind 127.0.0.1:%5$d
                    tcp-request content track-sc0 src table tt
                    http-request return status 200 %9$s
                frontend fb
                    bind 127.0.0.1:%6$d
                    tcp-request connection track-sc0 src table tb
                    http-request track-sc1 src table tb2
                    http-request return status 200 %9$s
                frontend frej
                    bind 127.0.0.1:%7$d
                    tcp-request connection track-sc0 src table tr
                    tcp-request connection reject if { sc_conn_cnt(0) gt 1 }
                    http-request return status 200 %9$s
                backend th
                    stick-table type ip size 100 expire 1m %8$s
                backend tt
                    stick-table type ip size 100 expire 1m %8$s
                backend tb
                    stick-table type ip size 100 expire 1m %8$s
                backend tb2
                    stick-table type ip size 100 expire 1m %8$s
                backend tr
                    stick-table type ip size 100 expire 1m %8$s
                """.formatted(dir, p[0], p[1], p[2], p[3], p[4], p[5], store, seen);
    }

    @Test
    void sessionCountersMatchHaproxy() throws Exception {
        String haproxy = Program.HAPROXY.require();
        Path hdir = Files.createTempDirectory("sessions-haproxy");
        Path sdir = Files.createTempDirectory("sessions-sluice");
        int[] hp = new int[6];
        int[] sp = new int[6];
        for (int i = 0; i < 6; i++) {
            hp[i] = Ports.free();
            sp[i] = Ports.free();
        }
        Path hcfg = hdir.resolve("haproxy.cfg");
        Files.writeString(hcfg, sessionsConfig(hdir, hp));
        Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                .redirectOutput(hdir.resolve("haproxy.log").toFile()).start();
        try (Sluice s = Sluice.start(sessionsConfig(sdir, sp), sp[0])) {
            HaproxyParityTest.waitFor(hp[0]);
            AdminClient.await(hdir.resolve("admin.sock"));
            AdminClient.await(sdir.resolve("admin.sock"));
            List<String> theirs = sessionTraffic(hp);
            List<String> ours = sessionTraffic(sp);
            assertThat(ours).isEqualTo(theirs);
            for (String t : List.of("fc", "th", "tt", "tb", "tb2", "tr")) {
                String a = released(hdir, t);
                String b = released(sdir, t);
                assertThat(mask(b)).as("show table %s", t).isEqualTo(mask(a));
            }
            // the figures themselves, so that the comparison cannot pass on two empty dumps
            assertThat(released(sdir, "fc")).contains(" conn_cnt=2 sess_cnt=2 sess_rate(10000)=2 http_req_cnt=4");
            assertThat(released(sdir, "th")).contains(" conn_cnt=4 sess_cnt=0 sess_rate(10000)=0 http_req_cnt=4");
            assertThat(released(sdir, "tr")).contains(" conn_cnt=3 sess_cnt=1 sess_rate(10000)=1 http_req_cnt=1");
            for (String cmd : List.of("show table fc data.sess_cnt eq 2", "show table tb2 data.sess_cnt gt 0", "show table tr data.sess_rate eq 1",
                    "show table th data.sess_rate gt 0 data.conn_cnt eq 4", "set table th key 127.0.0.1 data.sess_cnt 7 data.sess_rate 3",
                    "show table th data.sess_cnt eq 7")) {
                assertThat(mask(run(sdir, cmd))).as("answer to %s", cmd).isEqualTo(mask(run(hdir, cmd)));
            }
        } finally {
            h.destroy();
            h.waitFor();
        }
    }

    /**
     * Two connections of two requests each to fc, fh, ft and fb, then three connections of one request to
     * frej (the last two rejected); the x-s field of every answer, or "no response".
     */
    private static List<String> sessionTraffic(int[] p) {
        List<String> out = new ArrayList<>();
        String get = "GET / HTTP/1.1\r\nhost: x\r\n\r\n";
        for (int i = 1; i <= 4; i++) {
            for (int c = 0; c < 2; c++) {
                try (RawClient client = new RawClient(p[i])) {
                    for (int r = 0; r < 2; r++) {
                        out.add(i + ":" + client.send(get).read().head().get("x-s"));
                    }
                }
            }
        }
        for (int c = 0; c < 3; c++) {
            try (RawClient client = new RawClient(p[5])) {
                out.add("5:" + client.send(get).read().head().get("x-s"));
            } catch (RuntimeException e) {
                out.add("5:no response");
            }
        }
        return out;
    }

    /** {@code show table <t>} once no connection tracks its entries any more (they are released when connections close). */
    private static String released(Path dir, String table) throws InterruptedException {
        String answer = run(dir, "show table " + table);
        for (int i = 0; i < 200 && answer.contains(" use=") && !answer.contains(" use=0 "); i++) {
            Thread.sleep(20);
            answer = run(dir, "show table " + table);
        }
        return answer;
    }

    /** One request tracked by fe, then a connection held open on the frontend tracking it for trk. */
    private static Socket traffic(int[] ports) throws IOException {
        try (RawClient c = new RawClient(ports[1])) {
            assertThat(c.send("GET / HTTP/1.1\r\nhost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
        return new Socket("127.0.0.1", ports[2]);
    }

    private static void awaitTracked(Path dir) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (run(dir, "show table trk").contains("use=1")) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the held connection was not tracked in " + dir);
    }

    private static String run(Path dir, String line) {
        String sock = line.startsWith("user:") ? "user.sock" : line.startsWith("op:") ? "op.sock" : "admin.sock";
        String cmd = line.replaceFirst("^(user|op):", "");
        return AdminClient.run(dir.resolve(sock), cmd + "\n");
    }

    /**
     * Pointers and expiry countdowns differ by nature ("exp=0", no expire, stays as is). The bytes counted for the
     * request sent by 127.0.0.1 are the same: HAProxy's internal (HTX) measure of the response, 49 bytes for a 38-byte
     * answer, in both.
     */
    static String mask(String answer) {
        return answer.replaceAll("(?m)^0x[0-9a-f]+: ", "PTR: ").replaceAll(" exp=[1-9][0-9]* ", " exp=T ");
    }

    @Test
    void showTableLinesFieldByField() throws Exception {
        Path dir = Files.createTempDirectory("tables-fields");
        try (Origin o = Origin.start("o")) {
            int[] p = {Ports.free(), Ports.free(), Ports.free()};
            try (Sluice s = Sluice.start(config(dir, p[0], p[1], p[2], o.port()), p[0])) {
                AdminClient.await(dir.resolve("admin.sock"));
                try (RawClient c = new RawClient(p[1])) {
                    c.send("GET / HTTP/1.1\r\nhost: x\r\n\r\n").read();
                }
                for (int i = 0; i < 2; i++) {
                    try (RawClient c = new RawClient(p[1])) {
                        assertThat(c.send("GET / HTTP/1.1\r\nhost: x\r\n\r\n").read().status()).isEqualTo(200);
                    }
                }
                List<String> lines = new ArrayList<>(run(dir, "show table fe").lines().toList());
                assertThat(lines.getFirst()).isEqualTo("# table: fe, type: ip, size:1048576, used:1");
                String[] f = lines.get(1).split(" ");
                assertThat(f[0]).matches("0x[0-9a-f]+:");
                assertThat(f[1]).isEqualTo("key=127.0.0.1");
                assertThat(f[2]).isEqualTo("use=0");
                assertThat(f[3]).startsWith("exp=");
                assertThat(Long.parseLong(f[3].substring(4))).isBetween(20_000L, 30_000L);
                List<String> rest = List.of(f).subList(4, f.length).stream().map(x -> x.replaceFirst("=.*", "=")).toList();
                assertThat(rest).containsExactly("server_id=", "conn_cnt=", "conn_cur=", "http_req_cnt=", "http_req_rate(10000)=",
                        "bytes_out_cnt=", "gpt0=", "gpt1=", "gpc0=", "gpc1=", "gpc2=", "gpc0_rate(5000)=", "gpc1_rate(5000)=");
                assertThat(lines.get(1)).contains(" conn_cnt=3 conn_cur=0 http_req_cnt=3 http_req_rate(10000)=3 ");
                // HAProxy's measure of the three generated responses (%B): "HTTP/1.1 200 OK" (20 + 13), content-length: 0
                // (15), the end of headers (1)
                assertThat(lines.get(1)).contains(" bytes_out_cnt=" + 3 * 49 + " ");
                assertThat(lines).hasSize(3);
                assertThat(lines.get(2)).isEmpty();
                // the pointer addresses the entry
                String ptr = f[0].substring(0, f[0].length() - 1);
                assertThat(run(dir, "set table fe ptr " + ptr + " data.gpc 4")).isEqualTo("\n");
                assertThat(run(dir, "show table fe key 127.0.0.1")).contains(" gpc0=4 ");
            }
        }
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Load balancing and persistence of {@code mode tcp} backends, Sluice against HAProxy 2.6 on one configuration and the
 * same sequence of connections: which server each connection reached (each server says its name first), the tcplog
 * line's server, flags and connection counts, and the backends' {@code lbtot} in {@code show stat}. Covered: roundrobin,
 * static-rr with weights, leastconn, first, source, hash on a sample, a backup server behind a missing one,
 * {@code use-server} (to a weight-0 server, falling through a rule whose server is down), {@code stick on src}, and
 * {@code stick match} / {@code stick store-request} where the first store of a table wins. The connections run one after
 * the other, so every algorithm's choice is deterministic.
 */
class TcpBalancingTest {

    static final String[] ALGOS = {"roundrobin", "static-rr", "leastconn", "first", "source", "hash src"};

    static String config(int[] p, int[] s, int dead) {
        StringBuilder b = new StringBuilder("""
                global
                    log stdout format raw local0
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode tcp
                    log global
                    option tcplog
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                """);
        for (int i = 0; i < ALGOS.length; i++) {
            b.append("""
                    listen a%d
                        bind 127.0.0.1:%d
                        balance %s
                        server s1 127.0.0.1:%d weight 1 maxconn 10
                        server s2 127.0.0.1:%d weight 2 maxconn 10
                        server s3 127.0.0.1:%d weight 1 maxconn 10
                    """.formatted(i, p[i], ALGOS[i], s[0], s[1], s[2]));
        }
        int n = ALGOS.length;
        b.append("""
                listen backup
                    bind 127.0.0.1:%d
                    server dead 127.0.0.1:%d check inter 200ms fall 1 rise 1
                    server b1 127.0.0.1:%d backup
                    server b2 127.0.0.1:%d backup
                listen us
                    bind 127.0.0.1:%d
                    server dead 127.0.0.1:%d check inter 200ms fall 1 rise 1
                    use-server dead if { src 127.0.0.1 }
                    use-server s3 if { src 127.0.0.1 }
                    server s1 127.0.0.1:%d
                    server s2 127.0.0.1:%d
                    server s3 127.0.0.1:%d weight 0
                listen stick
                    bind 127.0.0.1:%d
                    stick-table type ip size 10 expire 1m
                    stick on src
                    server s1 127.0.0.1:%d
                    server s2 127.0.0.1:%d
                listen stores
                    bind 127.0.0.1:%d
                    stick-table type integer size 10 expire 1m
                    stick match dst_port
                    stick store-request dst_port
                    stick store-request src_port
                    server s1 127.0.0.1:%d
                    server s2 127.0.0.1:%d
                """.formatted(p[n], dead, s[0], s[1], p[n + 1], dead, s[0], s[1], s[2], p[n + 2], s[0], s[1], p[n + 3], s[0], s[1]));
        return b.toString();
    }

    record Result(Map<String, String> seen, Map<String, String> lines, Map<String, Map<String, String>> stat, String tables) {
    }

    static Result run(boolean haproxy, int[] s, int dead) throws IOException {
        int[] p = new int[ALGOS.length + 4];
        for (int i = 0; i < p.length; i++) {
            p[i] = Ports.free();
        }
        Map<String, String> seen = new LinkedHashMap<>();
        Map<String, Integer> ports = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, config(p, s, dead), p[0])) {
            TcpRulesTest.talk(p[0], List.of(), 0, true, 5000);
            // the dead servers are seen down by their check
            Daemon.sleep(800);
            List<String[]> cases = new ArrayList<>();
            for (int i = 0; i < ALGOS.length; i++) {
                for (int k = 0; k < 5; k++) {
                    cases.add(new String[] {"a" + i + "-" + k, Integer.toString(p[i])});
                }
            }
            for (String name : List.of("backup", "us", "stick", "stores")) {
                int port = p[ALGOS.length + List.of("backup", "us", "stick", "stores").indexOf(name)];
                for (int k = 0; k < 3; k++) {
                    cases.add(new String[] {name + "-" + k, Integer.toString(port)});
                }
            }
            for (String[] c : cases) {
                Daemon.sleep(100);
                try (Socket sk = new Socket("127.0.0.1", Integer.parseInt(c[1]))) {
                    sk.setSoTimeout(3000);
                    // the server's name first, then the client ends the stream (its FIN goes to the server, which closes)
                    byte[] name = sk.getInputStream().readNBytes(2);
                    sk.shutdownOutput();
                    sk.getInputStream().readAllBytes();
                    seen.put(c[0], new String(name, StandardCharsets.US_ASCII));
                    ports.put(c[0], sk.getLocalPort());
                } catch (IOException e) {
                    seen.put(c[0], e.getClass().getSimpleName());
                }
            }
            String last = cases.getLast()[0];
            String lastFrontend = "] " + last.substring(0, last.lastIndexOf('-')) + " ";
            d.awaitLines(l -> l.contains(":" + ports.get(last) + " ") && l.contains(lastFrontend), 1);
            Daemon.sleep(200);
            Map<String, String> lines = new LinkedHashMap<>();
            List<String> out = d.output().lines().toList();
            for (Map.Entry<String, Integer> e : ports.entrySet()) {
                // the client's port and the case's frontend: the kernel may give a later case a port an earlier one had
                String mark = "127.0.0.1:" + e.getValue() + " ";
                String frontend = "] " + e.getKey().substring(0, e.getKey().lastIndexOf('-')) + " ";
                lines.put(e.getKey(), out.stream().filter(l -> l.contains(mark) && l.contains(frontend)).findFirst().orElse(null));
            }
            Path sock = d.dir().resolve("admin.sock");
            Map<String, Map<String, String>> stat = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
            String tables = AdminClient.run(sock, "show table stick\n") + AdminClient.run(sock, "show table stores\n");
            return new Result(seen, lines, stat, tables);
        }
    }

    @Test
    void balancingAndPersistenceAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        int dead = Ports.free();
        try (TcpOrigin s1 = TcpOrigin.start(TcpOrigin.banner("s1")); TcpOrigin s2 = TcpOrigin.start(TcpOrigin.banner("s2"));
                TcpOrigin s3 = TcpOrigin.start(TcpOrigin.banner("s3"))) {
            int[] s = {s1.port(), s2.port(), s3.port()};
            Result theirs = run(true, s, dead);
            Result ours = run(false, s, dead);
            List<String> differences = new ArrayList<>();
            for (String c : theirs.seen().keySet()) {
                String what = c + "\n  haproxy: " + theirs.lines().get(c) + " / " + theirs.seen().get(c) + "\n  sluice:  " + ours.lines().get(c)
                        + " / " + ours.seen().get(c);
                if (!ours.seen().get(c).equals(theirs.seen().get(c))) {
                    differences.add("seen " + what);
                    continue;
                }
                if (theirs.lines().get(c) == null || ours.lines().get(c) == null) {
                    if (theirs.lines().get(c) != ours.lines().get(c)) {
                        differences.add("line " + what);
                    }
                    continue;
                }
                TcpLogTest.Line h = TcpLogTest.parse(theirs.lines().get(c));
                TcpLogTest.Line o = TcpLogTest.parse(ours.lines().get(c));
                if (!o.srv().equals(h.srv()) || !o.flags().equals(h.flags()) || !o.counts().equals(h.counts()) || !o.queues().equals(h.queues())) {
                    differences.add("log " + what);
                }
            }
            for (String px : theirs.stat().keySet()) {
                if (!px.startsWith("a") && !px.startsWith("backup") && !px.startsWith("us") && !px.startsWith("st")) {
                    continue;
                }
                for (String col : List.of("stot", "lbtot", "econ", "wredis", "wretr")) {
                    String h = theirs.stat().get(px).get(col);
                    String o = ours.stat().get(px) == null ? null : ours.stat().get(px).get(col);
                    if (!String.valueOf(h).equals(String.valueOf(o))) {
                        differences.add("stat " + px + " " + col + ": haproxy " + h + ", sluice " + o);
                    }
                }
            }
            assertThat(differences).as("haproxy tables:\n%s\nsluice tables:\n%s", theirs.tables(), ours.tables()).isEmpty();
            // what HAProxy does, so the comparison cannot pass on two empty runs
            assertThat(theirs.seen().get("us-0")).isEqualTo("s3");
            assertThat(theirs.seen().get("backup-1")).isEqualTo("s1");
            assertThat(theirs.seen().get("stick-2")).isEqualTo(theirs.seen().get("stick-0"));
        }
    }

    /** {@code probe}: where the harness checks that the daemon listens, so that no check connection reaches q's server. */
    static String queueConfig(int[] p, int s1, int s2) {
        return """
                global
                    log stdout format raw local0
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode tcp
                    log global
                    option tcplog
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen q
                    bind 127.0.0.1:%d
                    timeout queue 300ms
                    server s1 127.0.0.1:%d maxconn 1
                listen r
                    bind 127.0.0.1:%d
                    option redispatch
                    use-server s1 if TRUE
                    server s1 127.0.0.1:%d maxconn 1 maxqueue 1
                    server s2 127.0.0.1:%d
                listen probe
                    bind 127.0.0.1:%d
                    tcp-request connection reject
                """.formatted(p[0], s1, p[1], s1, s2, p[2]);
    }

    /** Opens a connection that reads the server's name (2 bytes, or what came before {@code waitMs}) and stays open. */
    static Socket open(int port, int waitMs) throws IOException {
        Socket sk = new Socket("127.0.0.1", port);
        sk.setSoTimeout(waitMs);
        return sk;
    }

    static String name(Socket sk) {
        try {
            byte[] b = sk.getInputStream().readNBytes(2);
            return b.length == 0 ? "<FIN>" : new String(b, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return e.getClass().getSimpleName();
        }
    }

    static Result runQueues(boolean haproxy, int s1, int s2) throws IOException {
        int[] p = {Ports.free(), Ports.free(), Ports.free()};
        Map<String, String> seen = new LinkedHashMap<>();
        Map<String, Integer> ports = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, queueConfig(p, s1, s2), p[2])) {
            Path sock = d.dir().resolve("admin.sock");
            // q: A holds the only slot, B waits in the queue until timeout queue (sQ)
            try (Socket a = open(p[0], 3000)) {
                seen.put("q-a", name(a));
                ports.put("q-a", a.getLocalPort());
                try (Socket b = open(p[0], 3000)) {
                    ports.put("q-b", b.getLocalPort());
                    Daemon.sleep(100);
                    Map<String, Map<String, String>> st = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
                    seen.put("q-stat", "scur=" + st.get("q/s1").get("scur") + " qcur=" + st.get("q/s1").get("qcur") + " bscur="
                            + st.get("q/BACKEND").get("scur") + " fscur=" + st.get("q/FRONTEND").get("scur"));
                    seen.put("q-b", name(b));
                }
                // B's line before A's: HAProxy may end B's stream after the client closed A, which would count B in A's line
                Daemon.sleep(100);
            }
            Daemon.sleep(200);
            // r: A holds s1, B waits in s1's queue, C finds it full and is redispatched to s2
            try (Socket a = open(p[1], 3000)) {
                seen.put("r-a", name(a));
                ports.put("r-a", a.getLocalPort());
                Socket b = open(p[1], 3000);
                ports.put("r-b", b.getLocalPort());
                Daemon.sleep(100);
                try (Socket c = open(p[1], 3000)) {
                    seen.put("r-c", name(c));
                    ports.put("r-c", c.getLocalPort());
                }
                // C's line before A's: the counts of each are then the same whatever the order of two closes in one loop
                Daemon.sleep(100);
                a.close();
                seen.put("r-b", name(b));
                b.close();
            }
            d.awaitLines(l -> l.contains(":" + ports.get("r-b") + " "), 1);
            Daemon.sleep(300);
            Map<String, String> lines = new LinkedHashMap<>();
            List<String> out = d.output().lines().toList();
            for (Map.Entry<String, Integer> e : ports.entrySet()) {
                String mark = "127.0.0.1:" + e.getValue() + " ";
                lines.put(e.getKey(), out.stream().filter(l -> l.contains(mark)).findFirst().orElse(null));
            }
            Map<String, Map<String, String>> stat = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
            return new Result(seen, lines, stat, "");
        }
    }

    /**
     * Queues: a stream waiting for a server of maxconn 1 counts in its backend's connections (BACKEND scur and smax, the
     * log's %bc) as HAProxy's beconn, and the stream it is handed to after another ends counts in the server's (%sc) once it
     * connects, after that one's line. (A server resetting right after its accept is left out: HAProxy 2.6 logs it SD with
     * Tc 0 or retries it after a second, Tc 1003, as the reset arrives before or after it sees the connection up.)
     */
    @Test
    void queuesAndRedispatchAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        try (TcpOrigin s1 = TcpOrigin.start(TcpOrigin.banner("s1")); TcpOrigin s2 = TcpOrigin.start(TcpOrigin.banner("s2"))) {
            Result theirs = runQueues(true, s1.port(), s2.port());
            Result ours = runQueues(false, s1.port(), s2.port());
            List<String> differences = new ArrayList<>();
            for (String c : theirs.seen().keySet()) {
                if (!ours.seen().get(c).equals(theirs.seen().get(c))) {
                    differences.add("seen " + c + ": haproxy " + theirs.seen().get(c) + ", sluice " + ours.seen().get(c));
                }
            }
            for (String c : theirs.lines().keySet()) {
                String h = theirs.lines().get(c);
                String o = ours.lines().get(c);
                String what = c + "\n  haproxy: " + h + "\n  sluice:  " + o;
                if (h == null || o == null) {
                    if (h != o) {
                        differences.add("line " + what);
                    }
                    continue;
                }
                TcpLogTest.Line hl = TcpLogTest.parse(h);
                TcpLogTest.Line ol = TcpLogTest.parse(o);
                if (!ol.srv().equals(hl.srv()) || !ol.flags().equals(hl.flags()) || !ol.counts().equals(hl.counts())
                        || !ol.queues().equals(hl.queues()) || (ol.tw() < 0) != (hl.tw() < 0) || (ol.tc() < 0) != (hl.tc() < 0)) {
                    differences.add("log " + what);
                }
            }
            for (String px : List.of("q/s1", "q/BACKEND", "r/s1", "r/s2", "r/BACKEND")) {
                for (String col : List.of("stot", "smax", "qmax", "lbtot", "econ", "eresp", "wredis", "wretr")) {
                    String h = theirs.stat().get(px).get(col);
                    String o = ours.stat().get(px).get(col);
                    if (!String.valueOf(h).equals(String.valueOf(o))) {
                        differences.add("stat " + px + " " + col + ": haproxy " + h + ", sluice " + o);
                    }
                }
            }
            assertThat(differences).isEmpty();
            assertThat(theirs.lines().get("q-b")).contains(" sQ ");
            assertThat(theirs.seen().get("r-c")).isEqualTo("s2");
        }
    }

    /**
     * {@code tcp-request content set-priority-class} in a layer-4 proxy, against HAProxy: with the only slot held, a
     * connection of class -1 that came after one of class 0 gets the slot first ({@code prio_class} read back by a
     * {@code tcp-request content} rule that rejects anything else than the value set).
     */
    @Test
    void priorityClassOrdersTheQueueAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        try (TcpOrigin s1 = TcpOrigin.start(TcpOrigin.banner("s1"))) {
            List<List<String>> runs = new ArrayList<>();
            for (boolean haproxy : new boolean[] {true, false}) {
                int[] p = {Ports.free(), Ports.free()};
                String cfg = """
                        defaults
                            mode tcp
                            timeout connect 1s
                            timeout client 5s
                            timeout server 5s
                        listen q
                            bind 127.0.0.1:%d
                            bind 127.0.0.1:%d
                            timeout queue 5s
                            tcp-request content set-priority-class int(-1) if { dst_port %d }
                            tcp-request content reject unless { prio_class -- -1 } || { prio_class 0 }
                            server s1 127.0.0.1:%d maxconn 1
                        """.formatted(p[0], p[1], p[1], s1.port());
                List<String> out = new ArrayList<>();
                try (Daemon d = Daemon.start(haproxy, cfg, p[0]); Socket a = open(p[0], 3000)) {
                    out.add("a " + name(a));
                    Socket b = open(p[0], 300);
                    Daemon.sleep(100);
                    Socket c = open(p[1], 3000);
                    Daemon.sleep(100);
                    a.close();
                    // c (class -1) is served first; b still waits
                    out.add("c " + name(c));
                    out.add("b while c holds " + name(b));
                    c.close();
                    b.setSoTimeout(3000);
                    out.add("b " + name(b));
                    b.close();
                }
                runs.add(out);
            }
            assertThat(runs.get(1)).as("Sluice against HAProxy").isEqualTo(runs.get(0));
            assertThat(runs.get(1)).containsExactly("a s1", "c s1", "b while c holds SocketTimeoutException", "b s1");
        }
    }
}

package dev.sluice.regtests;

import static dev.sluice.regtests.TcpBalancingTest.name;
import static dev.sluice.regtests.TcpBalancingTest.open;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@code balance random(<draws>)} in {@code mode tcp}, Sluice against HAProxy 2.6, on what does not depend on the draws'
 * luck: with many draws (30) a new connection goes to the idle server (each draw lands on it with its share of the ring,
 * and the least loaded draw wins), servers at their maxconn send it to the backend's queue until a slot frees, with no
 * usable active server the first backup takes everything, and a redispatched retry never lands on the server it leaves
 * (HAProxy hands that server to each draw as the one to avoid). Each server says its name first.
 */
class TcpRandomTest {

    static String config(int[] p, int[] s, int dead) {
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
                listen idle
                    bind 127.0.0.1:%d
                    balance random(30)
                    server s1 127.0.0.1:%d
                    server s2 127.0.0.1:%d
                    server s3 127.0.0.1:%d
                listen full
                    bind 127.0.0.1:%d
                    balance random(30)
                    timeout queue 2s
                    server s1 127.0.0.1:%d maxconn 1
                    server s2 127.0.0.1:%d maxconn 1
                listen bk
                    bind 127.0.0.1:%d
                    balance random
                    server a1 127.0.0.1:%d disabled
                    server b1 127.0.0.1:%d backup
                    server b2 127.0.0.1:%d backup
                listen redis
                    bind 127.0.0.1:%d
                    balance random
                    option redispatch
                    retries 1
                    server dead 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                listen probe
                    bind 127.0.0.1:%d
                    tcp-request connection reject
                """.formatted(p[0], s[0], s[1], s[2], p[1], s[0], s[1], p[2], s[0], s[1], s[2], p[3], dead, s[0], p[4]);
    }

    record Result(Map<String, String> seen, Map<String, String> lines, Map<String, Map<String, String>> stat) {
    }

    static Result run(boolean haproxy, int[] s, int dead) throws IOException {
        // p[4]: where the harness checks that the daemon listens, so that no check connection reaches a server
        int[] p = {Ports.free(), Ports.free(), Ports.free(), Ports.free(), Ports.free()};
        Map<String, String> seen = new LinkedHashMap<>();
        Map<String, Integer> ports = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, config(p, s, dead), p[4])) {
            Path sock = d.dir().resolve("admin.sock");
            // idle: three held connections, one on each server; the one on s2 goes, the next connection takes s2
            List<Socket> held = new ArrayList<>();
            Map<String, Socket> byServer = new LinkedHashMap<>();
            for (int i = 0; i < 3; i++) {
                Socket sk = open(p[0], 3000);
                held.add(sk);
                byServer.put(name(sk), sk);
                Daemon.sleep(50);
            }
            seen.put("idle-spread", new TreeSet<>(byServer.keySet()).toString());
            Socket onS2 = byServer.get("s2");
            if (onS2 != null) {
                onS2.close();
            }
            Daemon.sleep(150);
            try (Socket sk = open(p[0], 3000)) {
                seen.put("idle-next", name(sk));
                ports.put("idle-next", sk.getLocalPort());
            }
            Daemon.sleep(150);
            for (Socket sk : held) {
                sk.close();
            }
            // full: both servers at their maxconn; a third waits in the backend's queue and takes the first slot freed
            try (Socket a = open(p[1], 3000); Socket b = open(p[1], 3000)) {
                String na = name(a);
                Daemon.sleep(50);
                seen.put("full-two", new TreeSet<>(List.of(na, name(b))).toString());
                try (Socket c = open(p[1], 3000)) {
                    ports.put("full-queued", c.getLocalPort());
                    Daemon.sleep(150);
                    Map<String, Map<String, String>> st = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
                    seen.put("full-stat", "bscur=" + st.get("full/BACKEND").get("scur") + " bqcur=" + st.get("full/BACKEND").get("qcur")
                            + " s1=" + st.get("full/s1").get("scur") + " s2=" + st.get("full/s2").get("scur"));
                    a.close();
                    seen.put("full-queued-takes-the-freed-one", Boolean.toString(name(c).equals(na)));
                }
                // the queued one's line before B's: its counts do not depend on the order of two closes
                Daemon.sleep(100);
            }
            Daemon.sleep(150);
            // bk: no usable active server: the first backup
            for (int i = 0; i < 3; i++) {
                try (Socket sk = open(p[2], 3000)) {
                    seen.put("bk-" + i, name(sk));
                }
                // one at a time: the previous stream ended (smax)
                Daemon.sleep(100);
            }
            // redis: a refused connection is retried once, redispatched away from the dead server
            for (int i = 0; i < 6; i++) {
                try (Socket sk = open(p[3], 5000)) {
                    seen.put("redis-" + i, name(sk));
                }
                Daemon.sleep(100);
            }
            d.awaitLines(l -> l.contains(":" + ports.get("full-queued") + " "), 1);
            Daemon.sleep(300);
            Map<String, String> lines = new LinkedHashMap<>();
            List<String> out = d.output().lines().toList();
            for (Map.Entry<String, Integer> e : ports.entrySet()) {
                String mark = "127.0.0.1:" + e.getValue() + " ";
                lines.put(e.getKey(), out.stream().filter(l -> l.contains(mark)).findFirst().orElse(null));
            }
            Map<String, Map<String, String>> stat = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
            return new Result(seen, lines, stat);
        }
    }

    @Test
    void randomIsHaproxysWhereTheDrawsDoNotMatter() throws Exception {
        Program.HAPROXY.require();
        int dead = Ports.free();
        try (TcpOrigin s1 = TcpOrigin.start(TcpOrigin.banner("s1")); TcpOrigin s2 = TcpOrigin.start(TcpOrigin.banner("s2"));
                TcpOrigin s3 = TcpOrigin.start(TcpOrigin.banner("s3"))) {
            int[] s = {s1.port(), s2.port(), s3.port()};
            Result theirs = run(true, s, dead);
            Result ours = run(false, s, dead);
            List<String> differences = new ArrayList<>();
            for (String c : theirs.seen().keySet()) {
                if (!theirs.seen().get(c).equals(ours.seen().get(c))) {
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
                // the queued one's server is the one the first connection drew (checked above: the freed one)
                boolean srvDrawn = c.startsWith("full");
                if (!srvDrawn && !ol.srv().equals(hl.srv()) || !ol.flags().equals(hl.flags()) || !ol.counts().equals(hl.counts())
                        || !ol.queues().equals(hl.queues())) {
                    differences.add("log " + what);
                }
            }
            for (String px : List.of("idle/BACKEND", "full/BACKEND", "bk/b1", "bk/b2", "redis/s1")) {
                for (String col : List.of("stot", "scur", "smax", "qmax")) {
                    String h = theirs.stat().get(px).get(col);
                    String o = ours.stat().get(px).get(col);
                    if (!String.valueOf(h).equals(String.valueOf(o))) {
                        differences.add("stat " + px + " " + col + ": haproxy " + h + ", sluice " + o);
                    }
                }
            }
            assertThat(differences).isEmpty();
            // what HAProxy does, so the comparison cannot pass on two empty runs
            assertThat(theirs.seen().get("idle-spread")).isEqualTo("[s1, s2, s3]");
            assertThat(theirs.seen().get("idle-next")).isEqualTo("s2");
            assertThat(theirs.seen().get("full-queued-takes-the-freed-one")).isEqualTo("true");
            // b1 is the origin that says s2
            assertThat(theirs.seen().get("bk-2")).isEqualTo("s2");
            assertThat(theirs.seen().get("redis-5")).isEqualTo("s1");
        }
    }
}

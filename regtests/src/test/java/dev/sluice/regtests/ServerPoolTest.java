package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server's idle connection pool options ({@code pool-max-conn}, {@code pool-purge-delay}) through the real daemon:
 * three requests at once to each server open three connections; once they are done, {@code show servers conn} tells
 * how many wait idle (the limit, none, or what the estimated need keeps) and each server's purge delay and limit; the
 * origin tells how many connections the next requests open. The *InHaproxy test (HAProxy 2.6) requires the same.
 */
class ServerPoolTest {
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
    private volatile CountDownLatch hold = new CountDownLatch(1);

    @AfterEach
    void stop() throws Exception {
        hold.countDown();
        for (AutoCloseable c : closing) {
            c.close();
        }
        clients.shutdownNow();
    }

    private boolean handle(Origin.Request r, OutputStream out) throws IOException {
        if (r.target().endsWith("/hold")) {
            try {
                hold.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return false;
            }
        }
        Origin.respond(out, 200, "OK", List.of(), "ok".getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    private static String status(int port, String path) {
        try (RawClient c = new RawClient(port, 10_000)) {
            return Integer.toString(c.send("GET " + path + " HTTP/1.1\r\nhost: t\r\n\r\n").read().status());
        }
    }

    /** The {@code show servers conn} lines without used_max and need_est (the estimate's bookkeeping). */
    private static List<String> conns(Daemon d) {
        return AdminClient.run(d.dir().resolve("admin.sock"), "show servers conn be\n").lines().filter(l -> !l.isBlank()).map(l -> {
            if (l.startsWith("#")) {
                return l;
            }
            String[] w = l.split(" ");
            w[7] = "M";
            w[8] = "E";
            return String.join(" ", w);
        }).toList();
    }

    private List<String> run(boolean haproxy, List<Origin> origins) throws Exception {
        hold = new CountDownLatch(1);
        int fe = Ports.free();
        String cfg = """
                global
                    nbthread 1
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    http-reuse always
                    use-server s1 if { path_beg /s1 }
                    use-server s2 if { path_beg /s2 }
                    use-server s3 if { path_beg /s3 }
                    server s1 127.0.0.1:%d pool-max-conn 1
                    server s2 127.0.0.1:%d pool-max-conn 0 pool-purge-delay 0
                    server s3 127.0.0.1:%d pool-purge-delay 20s pool-low-conn 2
                """.formatted(fe, origins.get(0).port(), origins.get(1).port(), origins.get(2).port());
        List<Integer> before = origins.stream().map(Origin::connections).toList();
        try (Daemon d = Daemon.start(haproxy, cfg, fe)) {
            List<String> got = new ArrayList<>(conns(d));
            List<Future<String>> held = new ArrayList<>();
            for (String s : List.of("s1", "s2", "s3")) {
                for (int i = 0; i < 3; i++) {
                    held.add(clients.submit(() -> status(fe, "/" + s + "/hold")));
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (opened(origins, before) < 9 && System.nanoTime() < deadline) {
                Daemon.sleep(20);
            }
            hold.countDown();
            for (Future<String> f : held) {
                got.add(f.get(10, TimeUnit.SECONDS));
            }
            Daemon.sleep(300);
            got.addAll(conns(d));
            // one more request each: an idle connection serves it, or a new one opens
            for (String s : List.of("s1", "s2", "s3")) {
                got.add(status(fe, "/" + s + "/x"));
            }
            for (int i = 0; i < 3; i++) {
                got.add("s" + (i + 1) + " opened " + (origins.get(i).connections() - before.get(i)));
            }
            return got;
        }
    }

    private static int opened(List<Origin> origins, List<Integer> before) {
        int n = 0;
        for (int i = 0; i < origins.size(); i++) {
            n += origins.get(i).connections() - before.get(i);
        }
        return n;
    }

    private List<Origin> origins() {
        List<Origin> l = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            Origin o = Origin.start("s" + i, this::handle);
            closing.add(o);
            l.add(o);
        }
        return l;
    }

    @Test
    void idleConnectionsFollowTheServersPoolOptions() throws Exception {
        List<Origin> o = origins();
        List<String> r = run(false, o);
        String p1 = " 127.0.0.1 " + o.get(0).port();
        assertThat(r).containsExactly(
                "# bkname/svname bkid/svid addr port - purge_delay used_cur used_max need_est unsafe_nb safe_nb idle_lim idle_cur idle_per_thr[1]",
                "be/s1 3/1" + p1 + " - 5000 0 M E 0 0 1 0 0",
                "be/s2 3/2 127.0.0.1 " + o.get(1).port() + " - 0 0 M E 0 0 0 0",
                "be/s3 3/3 127.0.0.1 " + o.get(2).port() + " - 20000 0 M E 0 0 -1 0 0",
                "200", "200", "200", "200", "200", "200", "200", "200", "200",
                "# bkname/svname bkid/svid addr port - purge_delay used_cur used_max need_est unsafe_nb safe_nb idle_lim idle_cur idle_per_thr[1]",
                "be/s1 3/1" + p1 + " - 5000 0 M E 1 0 1 1 1",
                "be/s2 3/2 127.0.0.1 " + o.get(1).port() + " - 0 0 M E 0 0 0 0",
                "be/s3 3/3 127.0.0.1 " + o.get(2).port() + " - 20000 0 M E 3 0 -1 3 3",
                "200", "200", "200",
                "s1 opened 3", "s2 opened 4", "s3 opened 3");
    }

    @Test
    void idleConnectionsFollowTheServersPoolOptionsInHaproxy() throws Exception {
        Program.HAPROXY.require();
        List<Origin> o = origins();
        List<String> sluice = run(false, o);
        List<String> haproxy = run(true, o);
        assertThat(haproxy).as("HAProxy 2.6").isEqualTo(sluice);
    }
}

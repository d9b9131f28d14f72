package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Server {@code maxconn} and the queues, through the real daemon: requests beyond a server's maxconn wait
 * (in the backend's queue when the balancing chose, in the server's own when a hash bound them), are served
 * one at a time in arrival order, get a 503 after {@code timeout queue} or when {@code maxqueue} is reached,
 * leave the queue when their client goes, and move to another server when theirs is disabled under
 * {@code option redispatch}. Each scenario also runs in HAProxy 2.6 (the with-HAProxy cases, which require it), and the log lines
 * (status, termination flags, server, queue positions) must be the same.
 */
class ServerQueueTest {
    /** %ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %{+Q}r */
    private static final Pattern HTTPLOG = Pattern.compile("^\\S+ \\[[^]]+\\] (\\S+) (\\S+)/(\\S+) (-?\\d+)/(-?\\d+)/(-?\\d+)/(-?\\d+)/(-?\\d+) "
            + "(-?\\d+) (\\d+) \\S+ \\S+ (\\S{4}) (\\d+)/(\\d+)/(\\d+)/(\\d+)/(\\+?\\d+) (\\d+)/(\\d+) \"(\\S+) (\\S+) [^\"]*\"$");

    /** What the comparison looks at in a log line. */
    record Logged(String path, int status, String flags, String server, int retries, String redispatched, int sq, int bq, long tw) {
        /** Without the queue time, which differs between runs. */
        String key() {
            return path + " " + status + " " + flags + " " + server + " " + redispatched + retries + " " + sq + "/" + bq;
        }
    }

    static Logged parse(String line) {
        Matcher m = HTTPLOG.matcher(line);
        assertThat(m.matches()).as("httplog line: %s", line).isTrue();
        String rc = m.group(16);
        return new Logged(m.group(20), Integer.parseInt(m.group(9)), m.group(11), m.group(3), Integer.parseInt(rc.replace("+", "")),
                rc.startsWith("+") ? "+" : "", Integer.parseInt(m.group(17)), Integer.parseInt(m.group(18)), Long.parseLong(m.group(5)));
    }

    private final List<Origin> origins = new ArrayList<>();
    /** Requests whose path starts with /hold wait for this gate before their answer. */
    private volatile CountDownLatch gate = new CountDownLatch(1);
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger maxInflight = new AtomicInteger();

    @AfterEach
    void stopOrigins() {
        gate.countDown();
        origins.forEach(Origin::close);
    }

    private Origin origin(String name) {
        Origin o = Origin.start(name, (r, out) -> answer(name, r, out));
        origins.add(o);
        return o;
    }

    private boolean answer(String name, Origin.Request r, OutputStream out) throws IOException {
        int n = inflight.incrementAndGet();
        maxInflight.accumulateAndGet(n, Math::max);
        try {
            if (r.target().startsWith("/hold") && !gate.await(30, TimeUnit.SECONDS)) {
                return false;
            }
        } catch (InterruptedException e) {
            return false;
        } finally {
            inflight.decrementAndGet();
        }
        Origin.respond(out, 200, "OK", Origin.headers("X-Origin", name), ("origin " + name + "\n").getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    private void reset() {
        gate = new CountDownLatch(1);
        maxInflight.set(0);
    }

    /** Logs on stdout (httplog), an admin socket in the daemon's directory; the timeouts follow. */
    static final String HEADER = """
            global
                log stdout format raw local0
                stats socket @DIR@/admin.sock level admin
            defaults
                mode http
                log global
                option httplog
            """;

    static String config(int port, String backend) {
        return HEADER + """
                    timeout connect 2s
                    timeout client 30s
                    timeout server 30s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                %s""".formatted(port, backend.strip().indent(4));
    }

    /** A column of a show stat row ({@code pxname,svname}). */
    static String stat(Daemon d, String row, String column) {
        String out = AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n");
        List<String> lines = out.lines().toList();
        List<String> header = List.of(lines.get(0).substring(2).split(",", -1));
        for (String l : lines) {
            if (l.startsWith(row + ",")) {
                return l.split(",", -1)[header.indexOf(column)];
            }
        }
        throw new AssertionError("no row " + row + " in " + out);
    }

    static void awaitStat(Daemon d, String row, String column, String value) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String v;
        while (!(v = stat(d, row, column)).equals(value)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(d.name() + ": " + row + " " + column + " is " + v + ", not " + value);
            }
            Daemon.sleep(5);
        }
    }

    /** Waits until {@code o} received {@code target} after its first {@code before} requests. */
    static void awaitRequest(Origin o, int before, String target) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (o.requests().stream().skip(before).noneMatch(r -> r.target().equals(target))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(o.name() + " did not receive " + target);
            }
            Daemon.sleep(5);
        }
    }

    static String get(String path, String... headers) {
        StringBuilder sb = new StringBuilder("GET " + path + " HTTP/1.1\r\nhost: test\r\n");
        for (String h : headers) {
            sb.append(h).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    /** The request log lines once {@code n} are there, by path. */
    static Map<String, Logged> logged(Daemon d, int n) {
        Map<String, Logged> out = new HashMap<>();
        for (String l : d.awaitLines(x -> x.contains(" fe be/"), n)) {
            Logged g = parse(l);
            out.put(g.path(), g);
        }
        assertThat(out).as("%s log lines:\n%s", d.name(), d.output()).hasSize(n);
        return out;
    }

    /**
     * Runs a scenario in Sluice and, {@code withHaproxy}, in HAProxy 2.6 after it (requiring it), where the log keys
     * must match Sluice's. Each test runs once without and once with HAProxy: Sluice's own checks count without it.
     */
    private void compare(boolean withHaproxy, Scenario s) throws Exception {
        if (withHaproxy) {
            Program.HAPROXY.require();
        }
        List<String> sluice = s.run(false);
        if (withHaproxy) {
            reset();
            List<String> haproxy = s.run(true);
            assertThat(sluice).as("Sluice's log against HAProxy's").isEqualTo(haproxy);
        }
    }

    @FunctionalInterface
    interface Scenario {
        /** Runs against Sluice or HAProxy and returns the sorted log keys. */
        List<String> run(boolean haproxy) throws Exception;
    }

    private static List<String> keys(Map<String, Logged> m) {
        return m.values().stream().sorted(Comparator.comparing(Logged::path)).map(Logged::key).toList();
    }

    /**
     * 50 clients at once on a server of maxconn 1: the first is held, the 49 others wait in the backend's
     * queue (the balancing chose), then are served one at a time, in the order they arrived, none lost.
     */
    @ParameterizedTest(name = "with HAProxy: {0}")
    @ValueSource(booleans = {false, true})
    void fiftyClientsOnMaxconnOneAreServedOneByOneInArrivalOrder(boolean withHaproxy) throws Exception {
        Origin o = origin("s1");
        compare(withHaproxy, haproxy -> {
            int port = Ports.free();
            int before = o.requests().size();
            try (Daemon d = Daemon.start(haproxy, config(port, "timeout queue 30s\nserver s1 127.0.0.1:" + o.port() + " maxconn 1"), port)) {
                List<RawClient> clients = new ArrayList<>();
                try {
                    RawClient first = new RawClient(port, 30_000).send(get("/hold/0"));
                    clients.add(first);
                    awaitRequest(o, before, "/hold/0");
                    for (int i = 1; i < 50; i++) {
                        clients.add(new RawClient(port, 30_000).send(get("/q/" + i)));
                        awaitStat(d, "be,BACKEND", "qcur", Integer.toString(i));
                    }
                    assertThat(stat(d, "be,s1", "qcur")).isEqualTo("0");
                    assertThat(stat(d, "be,s1", "scur")).isEqualTo("1");
                    gate.countDown();
                    for (RawClient c : clients) {
                        RawClient.Response r = c.read();
                        assertThat(r.status()).isEqualTo(200);
                    }
                } finally {
                    clients.forEach(RawClient::close);
                }
                List<String> order = o.requests().subList(before, o.requests().size()).stream().map(Origin.Request::target).toList();
                List<String> expected = new ArrayList<>(List.of("/hold/0"));
                for (int i = 1; i < 50; i++) {
                    expected.add("/q/" + i);
                }
                assertThat(maxInflight.get()).as("%s: at most maxconn at the server", d.name()).isEqualTo(1);
                assertThat(order).as("%s: every request served once", d.name()).containsExactlyInAnyOrderElementsOf(expected);
                Map<String, Logged> log = logged(d, 50);
                assertThat(stat(d, "be,BACKEND", "qmax")).isEqualTo("49");
                assertThat(stat(d, "be,BACKEND", "qcur")).isEqualTo("0");
                if (haproxy) {
                    // HAProxy 2.6 (two threads) now and then serves two neighbours the other way round: only
                    // the positions as a set are compared with it
                    return log.values().stream().map(g -> g.status() + " " + g.flags() + " " + g.server() + " " + g.sq() + "/" + g.bq())
                            .sorted().toList();
                }
                assertThat(order).as("arrival order at the server").isEqualTo(expected);
                for (int i = 1; i < 50; i++) {
                    Logged g = log.get("/q/" + i);
                    assertThat(g.bq()).as("/q/%d was behind %d requests", i, i - 1).isEqualTo(i);
                    assertThat(g.tw()).isGreaterThanOrEqualTo(0);
                }
                return log.values().stream().map(g -> g.status() + " " + g.flags() + " " + g.server() + " " + g.sq() + "/" + g.bq())
                        .sorted().toList();
            }
        });
    }

    /**
     * HAProxy's beconn counts a request from the backend's choice to just before its log line, waiting in a queue or not:
     * with one held on a server of maxconn 1 and three queued, show stat's BACKEND scur/smax, the be_conn, queue,
     * avg_queue, be_conn_free and srv_conn fetches at each response, and each line's %ac/%fc/%bc/%sc (%bc the requests
     * left, %sc 0: the next one connects after the line).
     */
    @ParameterizedTest(name = "with HAProxy: {0}")
    @ValueSource(booleans = {false, true})
    void queuedRequestsCountInTheBackendsConnections(boolean withHaproxy) throws Exception {
        Origin o = origin("s1");
        compare(withHaproxy, haproxy -> {
            int port = Ports.free();
            int before = o.requests().size();
            String be = "timeout queue 30s\nhttp-response set-header x-conn \"%[be_conn] %[queue] %[avg_queue] %[be_conn_free] "
                    + "%[srv_conn(be/s1)]\"\nserver s1 127.0.0.1:" + o.port() + " maxconn 1";
            try (Daemon d = Daemon.start(haproxy, config(port, be), port)) {
                List<RawClient> clients = new ArrayList<>();
                List<String> seen = new ArrayList<>();
                try {
                    clients.add(new RawClient(port, 30_000).send(get("/hold/0")));
                    awaitRequest(o, before, "/hold/0");
                    for (int i = 1; i <= 3; i++) {
                        clients.add(new RawClient(port, 30_000).send(get("/q/" + i)));
                        awaitStat(d, "be,BACKEND", "qcur", Integer.toString(i));
                    }
                    for (String row : List.of("be,BACKEND", "be,s1", "fe,FRONTEND")) {
                        seen.add("stat " + row + " scur=" + stat(d, row, "scur") + " smax=" + stat(d, row, "smax") + " qcur="
                                + stat(d, row, "qcur"));
                    }
                    gate.countDown();
                    List<String> fetched = new ArrayList<>();
                    for (RawClient c : clients) {
                        RawClient.Response r = c.read();
                        assertThat(r.status()).isEqualTo(200);
                        fetched.add("x-conn " + r.header("x-conn"));
                    }
                    // HAProxy (two threads) may serve two queued neighbours the other way round: in response order
                    seen.addAll(fetched);
                    List<String> counts = new ArrayList<>();
                    for (String l : d.awaitLines(x -> x.contains(" fe be/"), 4)) {
                        Matcher m = HTTPLOG.matcher(l);
                        assertThat(m.matches()).as(l).isTrue();
                        counts.add("log " + m.group(12) + "/" + m.group(13) + "/" + m.group(14) + "/" + m.group(15) + " " + m.group(17)
                                + "/" + m.group(18));
                    }
                    seen.addAll(counts.stream().sorted(Comparator.reverseOrder()).toList());
                } finally {
                    clients.forEach(RawClient::close);
                }
                assertThat(stat(d, "be,BACKEND", "smax")).isEqualTo("4");
                // every stream left the backend's and the server's counts
                awaitStat(d, "be,BACKEND", "scur", "0");
                awaitStat(d, "be,s1", "scur", "0");
                return seen;
            }
        });
    }

    /** Requests still waiting at {@code timeout queue} get a 503 (sQ), counted as connection errors; the slot then serves again. */
    @ParameterizedTest(name = "with HAProxy: {0}")
    @ValueSource(booleans = {false, true})
    void timeoutQueueAnswers503AndLosesNothing(boolean withHaproxy) throws Exception {
        Origin o = origin("s1");
        compare(withHaproxy, haproxy -> {
            int port = Ports.free();
            int before = o.requests().size();
            try (Daemon d = Daemon.start(haproxy, config(port, "timeout queue 400ms\nserver s1 127.0.0.1:" + o.port() + " maxconn 1"), port)) {
                RawClient held = new RawClient(port, 30_000).send(get("/hold/0"));
                awaitRequest(o, before, "/hold/0");
                List<RawClient> waiting = new ArrayList<>();
                long sent = System.nanoTime();
                for (int i = 1; i <= 5; i++) {
                    waiting.add(new RawClient(port, 30_000).send(get("/q/" + i)));
                }
                for (RawClient c : waiting) {
                    assertThat(c.read().status()).isEqualTo(503);
                    c.close();
                }
                assertThat((System.nanoTime() - sent) / 1_000_000).as("503 after timeout queue").isGreaterThanOrEqualTo(380);
                assertThat(stat(d, "be,BACKEND", "econ")).isEqualTo("5");
                gate.countDown();
                assertThat(held.read().status()).isEqualTo(200);
                held.close();
                // the held stream may keep s1's only slot for a moment after its response was read: a request sent then
                // would wait in the queue (and log bq 1), as HAProxy did once in CI
                awaitStat(d, "be,s1", "scur", "0");
                try (RawClient after = new RawClient(port, 10_000)) {
                    assertThat(after.send(get("/after")).read().status()).isEqualTo(200);
                }
                assertThat(o.requests().subList(before, o.requests().size()).stream().map(Origin.Request::target).toList())
                        .containsExactly("/hold/0", "/after");
                Map<String, Logged> log = logged(d, 7);
                for (int i = 1; i <= 5; i++) {
                    Logged g = log.get("/q/" + i);
                    assertThat(g.tw()).isGreaterThanOrEqualTo(390);
                }
                return keys(log);
            }
        });
    }

    /**
     * With a hash, a request waits for its own server; {@code maxqueue} bounds that queue (503, SQ, at once);
     * the waiting ones are served in order when the slot frees.
     */
    @ParameterizedTest(name = "with HAProxy: {0}")
    @ValueSource(booleans = {false, true})
    void hashedRequestsWaitInTheirServersQueueBoundedByMaxqueue(boolean withHaproxy) throws Exception {
        Origin o = origin("s1");
        compare(withHaproxy, haproxy -> {
            int port = Ports.free();
            int before = o.requests().size();
            try (Daemon d = Daemon.start(haproxy, config(port, "balance hdr(x-key)\ntimeout queue 30s\nserver s1 127.0.0.1:" + o.port()
                    + " maxconn 1 maxqueue 2"), port)) {
                RawClient held = new RawClient(port, 30_000).send(get("/hold/a", "x-key: a"));
                awaitRequest(o, before, "/hold/a");
                RawClient q1 = new RawClient(port, 30_000).send(get("/q/1", "x-key: a"));
                awaitStat(d, "be,s1", "qcur", "1");
                RawClient q2 = new RawClient(port, 30_000).send(get("/q/2", "x-key: a"));
                awaitStat(d, "be,s1", "qcur", "2");
                assertThat(stat(d, "be,s1", "qlimit")).isEqualTo("2");
                assertThat(stat(d, "be,BACKEND", "qcur")).isEqualTo("0");
                try (RawClient full = new RawClient(port, 10_000)) {
                    assertThat(full.send(get("/q/3", "x-key: a")).read().status()).isEqualTo(503);
                }
                gate.countDown();
                for (RawClient c : List.of(held, q1, q2)) {
                    assertThat(c.read().status()).isEqualTo(200);
                    c.close();
                }
                Map<String, Logged> log = logged(d, 4);
                assertThat(log.get("/q/3").tw()).isEqualTo(-1);
                return keys(log);
            }
        });
    }

    /**
     * A client that aborts (a reset) while its request waits takes it out of the queue at once (CQ); the next one
     * is served. Sluice only: HAProxy without {@code option abortonclose} leaves it queued until its turn or its
     * timeout, then finds the client gone. (A half-close is no abort in either: the request is still served.)
     */
    /**
     * {@code http-request set-priority-class} and {@code set-priority-offset} order the queue as HAProxy's: the lower class
     * first, within a class arrival time plus offset; values clamped to -2047..2047 and -524287..524287 ms, a missing
     * sample leaving them at 0; {@code prio_class} and {@code prio_offset} read them. Both daemons must serve the same
     * order and answer the same fetches.
     */
    @Test
    void priorityClassesAndOffsetsOrderTheQueueAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        Origin o = origin("s1");
        String backend = """
                timeout queue 30s
                http-request set-priority-class req.hdr(x-class)
                http-request set-priority-offset req.hdr(x-offset)
                http-response set-header x-prio "%[prio_class] %[prio_offset]"
                server s1 127.0.0.1:@O@ maxconn 1""".replace("@O@", Integer.toString(o.port()));
        // path, then the fields that set its priority
        String[][] queued = {{"/q/a"}, {"/q/b", "x-class: 1"}, {"/q/c", "x-offset: 10000"}, {"/q/d", "x-class: -1"},
            {"/q/e", "x-offset: -5000"}, {"/q/f", "x-class: 1", "x-offset: -60000"}, {"/q/g", "x-offset: 2000"},
            {"/q/h", "x-class: 99999", "x-offset: -99999999"}, {"/q/i", "x-class: nope"}};
        List<List<String>> runs = new ArrayList<>();
        for (boolean haproxy : new boolean[] {true, false}) {
            reset();
            int port = Ports.free();
            int before = o.requests().size();
            try (Daemon d = Daemon.start(haproxy, config(port, backend), port)) {
                List<RawClient> clients = new ArrayList<>();
                List<String> out = new ArrayList<>();
                try {
                    clients.add(new RawClient(port, 30_000).send(get("/hold/0")));
                    awaitRequest(o, before, "/hold/0");
                    for (int i = 0; i < queued.length; i++) {
                        String[] q = queued[i];
                        clients.add(new RawClient(port, 30_000).send(get(q[0], java.util.Arrays.copyOfRange(q, 1, q.length))));
                        awaitStat(d, "be,BACKEND", "qcur", Integer.toString(i + 1));
                        // apart by more than a millisecond: equal offsets keep arrival order
                        Daemon.sleep(5);
                    }
                    gate.countDown();
                    for (int i = 0; i < clients.size(); i++) {
                        RawClient.Response r = clients.get(i).read();
                        out.add((i == 0 ? "/hold/0" : queued[i - 1][0]) + " " + r.status() + " prio=" + r.header("x-prio"));
                    }
                } finally {
                    clients.forEach(RawClient::close);
                }
                out.add("order " + String.join(" ", o.requests().subList(before, o.requests().size()).stream().map(Origin.Request::target).toList()));
                runs.add(out);
            }
        }
        assertThat(runs.get(1)).as("Sluice against HAProxy").isEqualTo(runs.get(0));
        assertThat(runs.get(0).getLast()).isEqualTo("order /hold/0 /q/d /q/e /q/a /q/i /q/g /q/c /q/f /q/b /q/h");
        assertThat(runs.get(0)).contains("/q/h 200 prio=2047 -524287", "/q/f 200 prio=1 -60000", "/q/i 200 prio=0 0");
    }

    @Test
    void aClientAbortingLeavesTheQueue() throws Exception {
        Origin o = origin("s1");
        int port = Ports.free();
        try (Daemon d = Daemon.start(false, config(port, "timeout queue 30s\nserver s1 127.0.0.1:" + o.port() + " maxconn 1"), port)) {
            RawClient held = new RawClient(port, 30_000).send(get("/hold/0"));
            awaitRequest(o, 0, "/hold/0");
            RawClient gone = new RawClient(port, 30_000).send(get("/q/gone"));
            awaitStat(d, "be,BACKEND", "qcur", "1");
            RawClient next = new RawClient(port, 30_000).send(get("/q/next"));
            awaitStat(d, "be,BACKEND", "qcur", "2");
            gone.reset();
            awaitStat(d, "be,BACKEND", "qcur", "1");
            gate.countDown();
            assertThat(held.read().status()).isEqualTo(200);
            assertThat(next.read().status()).isEqualTo(200);
            held.close();
            next.close();
            assertThat(o.requests().stream().map(Origin.Request::target).toList()).containsExactly("/hold/0", "/q/next");
            Map<String, Logged> log = logged(d, 3);
            assertThat(log.get("/q/gone").flags()).isEqualTo("CQ--");
            assertThat(log.get("/q/gone").server()).isEqualTo("<NOSRV>");
            assertThat(log.get("/q/next").bq()).isEqualTo(1);
            assertThat(stat(d, "be,BACKEND", "cli_abrt")).isEqualTo("1");
        }
    }

    /**
     * Requests a hash bound to a server wait in its queue; when the server is put in maintenance under
     * {@code option redispatch}, they are assigned again and served by the other server.
     */
    @ParameterizedTest(name = "with HAProxy: {0}")
    @ValueSource(booleans = {false, true})
    void disablingAServerRedispatchesItsQueue(boolean withHaproxy) throws Exception {
        Origin a = origin("a");
        Origin b = origin("b");
        compare(withHaproxy, haproxy -> {
            int port = Ports.free();
            try (Daemon d = Daemon.start(haproxy, config(port, "balance hdr(x-key)\noption redispatch\ntimeout queue 30s\n"
                    + "server a 127.0.0.1:" + a.port() + " maxconn 1\nserver b 127.0.0.1:" + b.port() + " maxconn 1"), port)) {
                // find a key the hash sends to a
                String key = null;
                for (int k = 0; k < 50 && key == null; k++) {
                    try (RawClient c = new RawClient(port, 10_000)) {
                        if ("a".equals(c.send(get("/probe/" + k, "x-key: k" + k)).read().header("x-origin"))) {
                            key = "k" + k;
                        }
                    }
                }
                assertThat(key).isNotNull();
                int probes = Integer.parseInt(key.substring(1)) + 1;
                // the last probe's stream may still hold a's only slot for a moment after its client closed: a request
                // sent then would wait in a's queue (and log sq 1)
                awaitStat(d, "be,a", "scur", "0");
                int before = a.requests().size();
                RawClient held = new RawClient(port, 30_000).send(get("/hold/x", "x-key: " + key));
                awaitRequest(a, before, "/hold/x");
                RawClient w1 = new RawClient(port, 30_000).send(get("/hold/w1", "x-key: " + key));
                awaitStat(d, "be,a", "qcur", "1");
                RawClient w2 = new RawClient(port, 30_000).send(get("/hold/w2", "x-key: " + key));
                awaitStat(d, "be,a", "qcur", "2");
                assertThat(AdminClient.run(d.dir().resolve("admin.sock"), "disable server be/a\n")).isEqualTo("\n");
                // both go to b: one is served (held), the other waits in b's queue
                awaitStat(d, "be,a", "qcur", "0");
                awaitStat(d, "be,b", "qcur", "1");
                awaitStat(d, "be,b", "scur", "1");
                gate.countDown();
                assertThat(w1.read().header("x-origin")).isEqualTo("b");
                assertThat(w2.read().header("x-origin")).isEqualTo("b");
                assertThat(held.read().status()).isEqualTo(200);
                for (RawClient c : List.of(held, w1, w2)) {
                    c.close();
                }
                Map<String, Logged> log = logged(d, probes + 3);
                log.keySet().removeIf(p -> p.startsWith("/probe/"));
                // the requeued requests are assigned again each on its own event loop (thread): which one gets
                // b's slot first is a race in both, so their positions are compared as a set
                List<String> out = new ArrayList<>(log.values().stream().sorted(Comparator.comparing(Logged::path))
                        .map(g -> g.path() + " " + g.status() + " " + g.flags() + " " + g.server() + " " + g.redispatched() + g.retries()).toList());
                out.add(log.values().stream().map(g -> g.sq() + "/" + g.bq()).sorted().toList().toString());
                return out;
            }
        });
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * FastCGI connection multiplexing ({@code option mpxs-conns}, {@code option max-reqs}, {@code option get-values}) against
 * a responder that multiplexes ({@link FcgiOrigin}; php-fpm does not), through Sluice and, on the same configuration and
 * traffic, HAProxy 2.6: what the responder sees (its connections, the request ids on each, how many requests each carried
 * at once, GET_VALUES and ABORT_REQUEST records) and what each client gets must be the same. Requests are held by the
 * responder until the test lets them go, in another order than they came. One thread, so that every client shares the
 * same pool.
 */
class FcgiMultiplexTest {

    private static final String MPXS4 = "    option mpxs-conns\n    option max-reqs 4";

    static Daemon start(boolean haproxy, String reuse, String appLines, FcgiOrigin o, int port, int h2Port) {
        return Daemon.start(haproxy, """
                global
                    nbthread 1
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 20s
                    timeout server 20s
                frontend fe
                    bind 127.0.0.1:%d
                    bind 127.0.0.1:%d proto h2
                    default_backend be
                backend be
                    http-reuse %s
                    use-fcgi-app app
                    server s1 127.0.0.1:%d proto fcgi
                fcgi-app app
                    docroot /var/www
                %s
                """.formatted(port, h2Port, reuse, o.port(), appLines), port);
    }

    static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    /** What the responder saw: its connections, each request as uri@connection/id, the most requests at once on each. */
    static String seen(FcgiOrigin o) {
        List<String> r = new ArrayList<>();
        for (FcgiOrigin.Request q : o.requests()) {
            r.add(q.uri() + "@" + q.connection() + "/" + q.id() + (q.keepConn() ? "" : " no-keep"));
        }
        List<String> peaks = new ArrayList<>();
        for (int c = 1; c <= o.connections(); c++) {
            peaks.add(c + ":" + o.peak(c));
        }
        long values = o.events().stream().filter(e -> e.startsWith("values ")).count();
        List<String> aborts = o.events().stream().filter(e -> e.startsWith("abort ")).toList();
        return "connections=" + o.connections() + " peaks=" + peaks + " values=" + values + " aborts=" + aborts + " requests=" + r;
    }

    /** A scenario run against one daemon: what the responder saw and what the clients got, by name. */
    interface Scenario {
        void run(FcgiOrigin o, int port, int h2Port, Map<String, String> out) throws Exception;
    }

    /** Runs {@code s} through Sluice, then HAProxy; both must give the same; Sluice's outcome is returned. */
    static Map<String, String> parity(String reuse, String appLines, Map<String, String> values, Scenario s) throws Exception {
        Program.HAPROXY.require();
        Map<String, String> sluice = null;
        for (boolean haproxy : new boolean[] {false, true}) {
            Map<String, String> out = new LinkedHashMap<>();
            try (FcgiOrigin o = new FcgiOrigin()) {
                o.values = values;
                int port = Ports.free();
                int h2Port = Ports.free();
                try (Daemon d = start(haproxy, reuse, appLines, o, port, h2Port)) {
                    CrossProtocolTest.awaitPort(h2Port);
                    s.run(o, port, h2Port, out);
                    Daemon.sleep(100);
                    out.put("seen", seen(o));
                }
            }
            if (sluice == null) {
                sluice = out;
            } else {
                assertThat(sluice).as("Sluice against HAProxy 2.6").isEqualTo(out);
            }
        }
        return sluice;
    }

    /** One request answered at once, so that the connection exists (and GET_VALUES was answered) before the test. */
    static void warm(int port) {
        try (RawClient w = new RawClient(port)) {
            assertThat(w.send(get("/warm")).read().status()).isEqualTo(200);
        }
    }

    /**
     * {@code n} clients each send /hold-i, one after the other once the previous one reached the responder; the responder
     * answers them last to first; what each client got goes in {@code out}.
     */
    static void holdAndRelease(FcgiOrigin o, int port, int n, Map<String, String> out) {
        int before = o.requests().size();
        List<RawClient> clients = new ArrayList<>();
        try {
            for (int i = 1; i <= n; i++) {
                RawClient k = new RawClient(port);
                clients.add(k);
                k.send(get("/hold-" + i));
                o.awaitRequests(before + i);
            }
            out.put("held", seen(o));
            for (int i = n; i >= 1; i--) {
                o.release("/hold-" + i);
            }
            for (int i = 0; i < n; i++) {
                RawClient.Response r = clients.get(i).read();
                out.put("/hold-" + (i + 1), r.status() + " " + r.bodyText().strip());
            }
        } finally {
            clients.forEach(RawClient::close);
        }
    }

    @Test
    void requestsShareOneConnectionUnderTheirOwnIdsAndAreAnsweredOutOfOrder() throws Exception {
        Map<String, String> out = parity("always", MPXS4, Map.of(), (o, port, h2Port, m) -> {
            warm(port);
            holdAndRelease(o, port, 3, m);
        });
        assertThat(out.get("held")).isEqualTo("connections=1 peaks=[1:3] values=0 aborts=[] requests=[/warm@1/1, /hold-1@1/3, /hold-2@1/5, /hold-3@1/7]");
        assertThat(out).containsEntry("/hold-1", "200 /hold-1 on 1/3").containsEntry("/hold-2", "200 /hold-2 on 1/5")
                .containsEntry("/hold-3", "200 /hold-3 on 1/7");
    }

    @Test
    void maxReqsCapsTheConnectionAndTheNextRequestOpensAnother() throws Exception {
        Map<String, String> out = parity("always", "    option mpxs-conns\n    option max-reqs 2", Map.of(), (o, port, h2Port, m) -> {
            warm(port);
            holdAndRelease(o, port, 3, m);
        });
        assertThat(out.get("held")).isEqualTo("connections=2 peaks=[1:2, 2:1] values=0 aborts=[] requests=[/warm@1/1, /hold-1@1/3, /hold-2@1/5, /hold-3@2/1]");
        assertThat(out).containsEntry("/hold-3", "200 /hold-3 on 2/1");
    }

    @Test
    void anApplicationAnsweringMpxsConns0GetsOneRequestAtATimePerConnection() throws Exception {
        Map<String, String> out = parity("always", "    option get-values\n" + MPXS4, Map.of("FCGI_MAX_REQS", "3", "FCGI_MPXS_CONNS", "0"),
                (o, port, h2Port, m) -> {
                    warm(port);
                    holdAndRelease(o, port, 3, m);
                });
        assertThat(out.get("held")).isEqualTo(
                "connections=3 peaks=[1:1, 2:1, 3:1] values=3 aborts=[] requests=[/warm@1/1, /hold-1@1/3, /hold-2@2/1, /hold-3@3/1]");
    }

    @Test
    void theGetValuesAnswerSetsTheLimitEvenAboveMaxReqs() throws Exception {
        Map<String, String> out = parity("always", "    option get-values\n    option max-reqs 2", Map.of("FCGI_MAX_REQS", "3", "FCGI_MPXS_CONNS", "1"),
                (o, port, h2Port, m) -> {
                    warm(port);
                    holdAndRelease(o, port, 4, m);
                });
        assertThat(out.get("held")).isEqualTo("connections=2 peaks=[1:3, 2:1] values=2 aborts=[]"
                + " requests=[/warm@1/1, /hold-1@1/3, /hold-2@1/5, /hold-3@1/7, /hold-4@2/1]");
    }

    @Test
    void underHttpReuseSafeAClientConnectionsStreamsShareOneConnection() throws Exception {
        Map<String, String> out = parity("safe", MPXS4, Map.of(), (o, port, h2Port, m) -> {
            try (H2RawClient c = new H2RawClient(h2Port)) {
                for (int i = 0; i < 3; i++) {
                    c.headers(1 + 2 * i, true, CrossProtocolTest.request("GET", "/hold-" + (1 + 2 * i)));
                    o.awaitRequests(i + 1);
                }
                // another client connection's first request does not share it
                try (RawClient e = new RawClient(port)) {
                    RawClient.Response r = e.send(get("/e")).read();
                    m.put("/e", r.status() + " " + r.bodyText().strip());
                }
                o.release("/hold-5");
                o.release("/hold-3");
                o.release("/hold-1");
                m.put("ended", Http2ReuseTest.ended(c, 3).stream().sorted().toList().toString());
            }
        });
        assertThat(out.get("seen")).isEqualTo("connections=2 peaks=[1:3, 2:1] values=0 aborts=[] requests=[/hold-1@1/1, /hold-3@1/3, /hold-5@1/5, /e@2/1]");
        assertThat(out).containsEntry("ended", "[1, 3, 5]");
    }

    @Test
    void anAbandonedRequestIsAbortedWhenNotSentWholeAndTheConnectionGoesOn() throws Exception {
        Map<String, String> out = parity("always", MPXS4, Map.of(), (o, port, h2Port, m) -> {
            try (RawClient b = new RawClient(port)) {
                b.send(get("/hold-b"));
                o.awaitRequests(1);
                // a GET sent whole, then its client goes: no ABORT_REQUEST, and its id is not used again
                RawClient a = new RawClient(port);
                a.send(get("/hold-a"));
                o.awaitRequests(2);
                a.close();
                // a POST whose body is not all there (more than a buffer, so that HAProxy starts sending it), then its client
                // goes: ABORT_REQUEST
                RawClient p = new RawClient(port);
                p.send("POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(50000));
                o.awaitEvents("start 1/5", 1);
                p.close();
                o.awaitEvents("abort ", 1);
                o.release("/hold-b");
                RawClient.Response r = b.read();
                m.put("/hold-b", r.status() + " " + r.bodyText().strip());
                RawClient.Response c = b.send(get("/c")).read();
                m.put("/c", c.status() + " " + c.bodyText().strip());
            }
        });
        assertThat(out.get("seen")).isEqualTo("connections=1 peaks=[1:3] values=0 aborts=[abort 1/5] requests=[/hold-b@1/1, /hold-a@1/3, /c@1/7]");
        assertThat(out).containsEntry("/hold-b", "200 /hold-b on 1/1").containsEntry("/c", "200 /c on 1/7");
    }

    @Test
    void aConnectionClosedByTheApplicationFailsEveryRequestOnIt() throws Exception {
        Map<String, String> out = parity("always", MPXS4, Map.of(), (o, port, h2Port, m) -> {
            try (RawClient a = new RawClient(port); RawClient b = new RawClient(port)) {
                a.send(get("/hold-a"));
                o.awaitRequests(1);
                b.send(get("/hold-b"));
                o.awaitRequests(2);
                o.kill(1);
                m.put("a", Integer.toString(a.read().status()));
                m.put("b", Integer.toString(b.read().status()));
            }
        });
        assertThat(out).containsEntry("a", "502").containsEntry("b", "502");
        assertThat(out.get("seen")).isEqualTo("connections=1 peaks=[1:2] values=0 aborts=[] requests=[/hold-a@1/1, /hold-b@1/3]");
    }
}

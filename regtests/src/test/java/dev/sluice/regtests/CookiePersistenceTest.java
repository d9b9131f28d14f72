package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cookie persistence ({@code cookie} and the server's {@code cookie}) through the real daemon: every mode and option, with
 * and without the cookie, a cookie for a server in maintenance, expired dates, a dynamic cookie, a stick rule behind the
 * cookie, a denied request, {@code option persist}, {@code force-persist} and {@code ignore-persist}. The same requests go to HAProxy 2.6 (persistenceSameInHaproxy), and the responses (status, the
 * server that answered, the Set-Cookie and Cache-Control fields, the Cookie the server received), the log's server and
 * %tsc flags, and lbtot must be the same.
 */
class CookiePersistenceTest {
    private final List<Origin> origins = new ArrayList<>();

    @AfterEach
    void stop() {
        origins.forEach(Origin::close);
    }

    /**
     * An origin answering with the Set-Cookie ({@code sc}), Cache-Control ({@code cc}) and status ({@code status}) its
     * query asks for ({@code exp} adds an Expires), and a body naming it and the Cookie fields it received.
     */
    private Origin origin(String name) {
        Origin o = Origin.start(name, (r, out) -> answer(name, r, out));
        origins.add(o);
        return o;
    }

    private static boolean answer(String name, Origin.Request r, OutputStream out) throws IOException {
        int q = r.target().indexOf('?');
        List<String[]> h = new ArrayList<>();
        int status = 200;
        if (q >= 0) {
            for (String kv : r.target().substring(q + 1).split("&")) {
                int eq = kv.indexOf('=');
                String k = kv.substring(0, eq);
                String v = URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
                switch (k) {
                    case "sc" -> h.add(new String[] {"Set-Cookie", v});
                    case "cc" -> h.add(new String[] {"Cache-Control", v});
                    case "exp" -> h.add(new String[] {"Expires", "Thu, 01 Jan 2099 00:00:00 GMT"});
                    case "status" -> status = Integer.parseInt(v);
                    default -> {
                    }
                }
            }
        }
        h.add(new String[] {"X-Origin", name});
        Origin.respond(out, status, "X", h, ("origin " + name + " cookie " + r.head().all("cookie") + "\n").getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    private static final String CONFIG = """
            global
                log stdout format raw local0
                stats socket @DIR@/admin.sock level admin
            defaults
                mode http
                log global
                option httplog
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            listen ins
                bind 127.0.0.1:@P0@
                cookie SRV insert indirect nocache
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2
            listen insnoind
                bind 127.0.0.1:@P1@
                cookie SRV insert
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2
            listen passive
                bind 127.0.0.1:@P2@
                cookie SRV
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2
            listen rw
                bind 127.0.0.1:@P3@
                cookie SRV rewrite
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2
            listen pfx
                bind 127.0.0.1:@P4@
                cookie JSESSIONID prefix
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2
            listen opts
                bind 127.0.0.1:@P5@
                cookie SRV insert postonly httponly secure domain .a.com domain .b.com attr SameSite=Lax preserve
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@
            listen dated
                bind 127.0.0.1:@P6@
                cookie SRV insert indirect maxidle 30m maxlife 8h
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2
            listen down
                bind 127.0.0.1:@P7@
                cookie SRV insert indirect
                http-request deny if { path_beg /deny }
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2 disabled
                server s3 127.0.0.1:@O3@ cookie a3
            listen dyn
                bind 127.0.0.1:@P8@
                cookie SRV insert indirect dynamic
                dynamic-cookie-key mysecret
                server s1 127.0.0.1:@O1@
                server s2 127.0.0.1:@O2@ cookie fixed
            listen stick
                bind 127.0.0.1:@P9@
                cookie SRV insert indirect
                stick-table type string len 32 size 1k
                stick on req.hdr(x-key)
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2
            listen persist
                bind 127.0.0.1:@P11@
                option persist
                cookie SRV insert indirect
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2 disabled
            listen force
                bind 127.0.0.1:@P12@
                cookie SRV insert indirect
                force-persist if { req.hdr(x-force) -m found }
                ignore-persist if { path_beg /static }
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2 disabled
                server s3 127.0.0.1:@O3@ cookie a3
            frontend fe
                bind 127.0.0.1:@P10@
                http-request deny if { path_beg /deny }
                default_backend be
            backend be
                cookie SRV insert indirect
                http-request deny if { path_beg /bedeny }
                server s1 127.0.0.1:@O1@ cookie a1
                server s2 127.0.0.1:@O2@ cookie a2
            """;

    /** A request: the listen (port index), the method, the path and query, extra header lines ("@LAST@": the last cookie set). */
    private record Req(int port, String method, String target, String... headers) {
    }

    /** A date HAProxy's way (5 base64 characters of seconds / 4) for {@code secondsAgo} seconds ago. */
    private static String date(long secondsAgo) {
        String tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        int in = (int) ((System.currentTimeMillis() / 1000 - secondsAgo) >> 2);
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < 5; k++) {
            sb.append(tab.charAt(in >> 24 & 0x3F));
            in <<= 6;
        }
        return sb.toString();
    }

    private static List<Req> requests() {
        String old = date(600);
        return List.of(
                new Req(0, "GET", "/"),
                new Req(0, "GET", "/?sc=SRV%3Dzz"),
                new Req(0, "GET", "/", "Cookie: a=1; SRV=a2; b=2"),
                new Req(0, "GET", "/?exp=1", "Cookie: SRV=bad"),
                new Req(0, "GET", "/?exp=1"),
                new Req(0, "GET", "/?cc=public"),
                new Req(0, "POST", "/?exp=1", "Content-Length: 0"),
                new Req(0, "GET", "/", "Cookie: a = 1 ;  SRV = a1 ; b=2"),
                new Req(0, "GET", "/", "Cookie: SRV=a1; SRV=a2; c=3"),
                new Req(0, "GET", "/", "Cookie: x=1", "Cookie: SRV=a2"),
                new Req(0, "GET", "/?status=404&exp=1"),
                new Req(0, "GET", "/?cc=max-age%3D60"),
                new Req(1, "GET", "/?sc=SRV%3Dq"),
                new Req(1, "GET", "/?sc=SRV%3Dq", "Cookie: SRV=a2"),
                new Req(2, "GET", "/?sc=SRV%3Dzz"),
                new Req(2, "GET", "/?sc=SRV%3Dzz", "Cookie: SRV=a2"),
                new Req(3, "GET", "/?sc=SRV%3Dzz%3B%20path%3D%2Fx"),
                new Req(3, "GET", "/?sc=SRV%3Dzz", "Cookie: SRV=a2"),
                new Req(3, "GET", "/", "Cookie: SRV=a2"),
                new Req(4, "GET", "/?sc=JSESSIONID%3Dzz%3B%20path%3D%2F"),
                new Req(4, "GET", "/?sc=JSESSIONID%3Dzz", "Cookie: JSESSIONID=a2~abc"),
                new Req(4, "GET", "/?sc=JSESSIONID%3Dzz", "Cookie: JSESSIONID=abc"),
                new Req(4, "GET", "/", "Cookie: x=1; JSESSIONID=a1~q; y=2"),
                new Req(5, "GET", "/?sc=SRV%3Dzz"),
                new Req(5, "POST", "/", "Content-Length: 0"),
                new Req(5, "POST", "/", "Content-Length: 0", "Cookie: SRV=a1"),
                new Req(6, "GET", "/"),
                new Req(6, "GET", "/", "Cookie: SRV=a2|" + old + "|" + old),
                new Req(6, "GET", "/", "Cookie: SRV=a2|AAAAB"),
                new Req(6, "GET", "/", "Cookie: SRV=a2|" + old + "|AAAAB"),
                new Req(6, "GET", "/", "Cookie: SRV=a2"),
                new Req(7, "GET", "/", "Cookie: SRV=a2"),
                new Req(7, "GET", "/", "Cookie: SRV=a3"),
                new Req(7, "GET", "/deny", "Cookie: SRV=a3"),
                new Req(8, "GET", "/"),
                new Req(8, "GET", "/", "Cookie: @LAST@"),
                new Req(8, "GET", "/", "Cookie: SRV=fixed"),
                new Req(9, "GET", "/", "x-key: k1"),
                new Req(9, "GET", "/", "x-key: k1", "Cookie: SRV=a2"),
                new Req(9, "GET", "/", "x-key: k1"),
                new Req(10, "GET", "/deny", "Cookie: SRV=a1"),
                new Req(10, "GET", "/bedeny", "Cookie: SRV=a1"),
                new Req(10, "GET", "/", "Cookie: SRV=a2"),
                new Req(11, "GET", "/", "Cookie: SRV=a2"),
                new Req(11, "GET", "/", "Cookie: SRV=a1"),
                new Req(12, "GET", "/", "Cookie: SRV=a2"),
                new Req(12, "GET", "/", "Cookie: SRV=a2", "X-Force: 1"),
                new Req(12, "GET", "/static/x", "Cookie: SRV=a3"),
                new Req(12, "GET", "/static/x?sc=SRV%3Dzz", "Cookie: SRV=a3"),
                new Req(12, "GET", "/static/y", "Cookie: SRV=a2", "X-Force: 1"));
    }

    /** Each request's normalised response, then each one's log (server, status, %tsc), then the lbtot of listen 'ins'. */
    private List<String> run(boolean haproxy, Origin o1, Origin o2, Origin o3) {
        int[] ports = new int[13];
        String cfg = CONFIG.replace("@O1@", Integer.toString(o1.port())).replace("@O2@", Integer.toString(o2.port()))
                .replace("@O3@", Integer.toString(o3.port()));
        for (int i = ports.length - 1; i >= 0; i--) {
            ports[i] = Ports.free();
            cfg = cfg.replace("@P" + i + "@", Integer.toString(ports[i]));
        }
        List<String> out = new ArrayList<>();
        List<Req> reqs = requests();
        try (Daemon d = Daemon.start(haproxy, cfg, ports[10])) {
            String last = null;
            for (int i = 0; i < reqs.size(); i++) {
                Req r = reqs.get(i);
                StringBuilder sb = new StringBuilder(r.method()).append(' ').append(tagged(r, i)).append(" HTTP/1.1\r\nHost: t\r\n");
                for (String h : r.headers()) {
                    sb.append(h.replace("@LAST@", last == null ? "" : last)).append("\r\n");
                }
                sb.append("\r\n");
                try (RawClient c = new RawClient(ports[r.port()], 10_000)) {
                    RawClient.Response resp = c.send(sb.toString()).read();
                    List<String> set = resp.head().all("set-cookie");
                    if (!set.isEmpty()) {
                        last = set.getFirst().split(";")[0];
                    }
                    out.add(i + " " + resp.status() + " " + resp.header("x-origin") + " set-cookie " + dated(set) + " cache-control "
                            + resp.head().all("cache-control") + " | " + resp.bodyText().strip());
                }
            }
            for (int i = 0; i < reqs.size(); i++) {
                String marker = "\"" + reqs.get(i).method() + " " + tagged(reqs.get(i), i) + " ";
                List<String> lines = d.awaitLines(l -> l.contains(marker), 1);
                assertThat(lines).as("log line of request %d in %s", i, d.name()).isNotEmpty();
                String[] w = lines.getFirst().split(" ");
                out.add("log " + i + " " + w[3] + " " + w[5] + " " + w[9]);
            }
            for (String row : List.of("ins,s1", "ins,s2", "ins,BACKEND", "stick,s1", "stick,s2")) {
                out.add(row + " lbtot " + ServerQueueTest.stat(d, row, "lbtot"));
            }
        }
        return out;
    }

    /** The request's target with a query parameter telling it apart in the log. */
    private static String tagged(Req r, int i) {
        return r.target() + (r.target().contains("?") ? "&" : "?") + "r=" + i;
    }

    /** Set-Cookie values with their dates (5 base64 characters after a '|') made comparable. */
    private static List<String> dated(List<String> values) {
        return values.stream().map(v -> v.replaceAll("\\|[A-Za-z0-9+/]{5}", "|<date>")).toList();
    }

    @Test
    void persistenceAsHaproxy() {
        Origin o1 = origin("s1");
        Origin o2 = origin("s2");
        Origin o3 = origin("s3");
        List<String> sluice = run(false, o1, o2, o3);
        // what Sluice must do whatever HAProxy says (each value was checked against haproxy 2.6.12)
        assertThat(sluice).contains(
                "0 200 s1 set-cookie [SRV=a1; path=/] cache-control [] | origin s1 cookie []",
                "1 200 s2 set-cookie [SRV=a2; path=/] cache-control [] | origin s2 cookie []",
                "2 200 s2 set-cookie [] cache-control [] | origin s2 cookie [a=1; b=2]",
                "3 200 s1 set-cookie [SRV=a1; path=/] cache-control [private] | origin s1 cookie []",
                "13 200 s2 set-cookie [] cache-control [] | origin s2 cookie [SRV=a2]",
                "20 200 s2 set-cookie [JSESSIONID=a2~zz] cache-control [] | origin s2 cookie [JSESSIONID=abc]",
                "24 200 s2 set-cookie [SRV=; Expires=Thu, 01-Jan-1970 00:00:01 GMT; path=/; domain=.a.com; domain=.b.com; HttpOnly; Secure;"
                        + " SameSite=Lax] cache-control [] | origin s2 cookie []",
                "log 0 ins/s1 200 --NI", "log 2 ins/s2 200 --VN", "log 3 ins/s1 200 --II", "log 14 passive/s1 200 ----",
                "log 28 dated/s2 200 --EI", "log 29 dated/s1 200 --OI", "log 31 down/s1 200 --DI", "log 33 down/s3 403 PRVN",
                "log 39 stick/s2 200 --NN", "log 40 fe/<NOSRV> 403 PR--", "log 41 be/s1 403 PRVN",
                // option persist and force-persist: a server in maintenance still gets its cookie's requests; ignore-persist:
                // the cookie is left unused, none is set, the server's own passes untouched; force-persist is the first rule
                "log 43 persist/s2 200 --DN", "log 45 force/s1 200 --DI", "log 46 force/s2 200 --DN", "log 47 force/s3 200 --UN",
                "48 200 s1 set-cookie [SRV=zz] cache-control [] | origin s1 cookie []", "log 49 force/s2 200 --DN");
    }

    /** Every line of {@link #persistenceAsHaproxy}'s run, not only the ones it checks, is HAProxy 2.6's. */
    @Test
    void persistenceSameInHaproxy() {
        Program.HAPROXY.require();
        Origin o1 = origin("s1");
        Origin o2 = origin("s2");
        Origin o3 = origin("s3");
        List<String> sluice = run(false, o1, o2, o3);
        List<String> haproxy = run(true, o1, o2, o3);
        for (int i = 0; i < Math.min(sluice.size(), haproxy.size()); i++) {
            assertThat(sluice.get(i)).as("HAProxy 2.6 line %d", i).isEqualTo(haproxy.get(i));
        }
        assertThat(sluice).hasSameSizeAs(haproxy);
    }
}

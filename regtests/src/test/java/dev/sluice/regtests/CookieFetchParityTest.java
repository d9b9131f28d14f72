package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the cookie fetches ({@code req.cook}, {@code cook}, {@code cookie}, {@code req.cook_cnt}, {@code cook_val},
 * {@code res.cook}, {@code scook}, ...) and the ACLs on them find in odd Cookie and Set-Cookie fields (several fields,
 * repeated names, empty and quoted values, spaces around {@code =} and {@code ;}, names without {@code =}, commas,
 * {@code $} attributes, a folded line), what {@code capture cookie} logs of them, and what a persistence cookie leaves
 * of a folded Cookie field: the same requests go to Sluice and to HAProxy 2.6 on the same configuration, and every
 * answer, every log line and what the server received must be the same.
 */
class CookieFetchParityTest {
    private final List<Origin> origins = new ArrayList<>();

    @AfterEach
    void stop() {
        origins.forEach(Origin::close);
    }

    /** Request-side samples: header suffix, expression. Each is sent back as {@code x-q-<suffix>: [<value>]}. */
    private static final String[][] REQUEST_SAMPLES = {
        {"cook-a", "req.cook(a)"}, {"cook-a-short", "cook(a)"}, {"cook-any", "req.cook"}, {"cook-any-short", "cook"},
        {"cookie-a", "cookie(a)"}, {"cook-ab", "req.cook(ab)"}, {"cnt-a", "req.cook_cnt(a)"}, {"cnt-any", "req.cook_cnt"},
        {"cnt-a-short", "cook_cnt(a)"}, {"val-a", "req.cook_val(a)"}, {"val-a-short", "cook_val(a)"}, {"val-any", "cook_val"}};

    /** Request-side ACLs: header suffix, ACL; {@code x-qa-<suffix>: y} is sent back when it matches. */
    private static final String[][] REQUEST_ACLS = {
        {"found", "req.cook(a) -m found"}, {"eq1", "req.cook(a) 1"}, {"empty", "req.cook(a) -m len 0"}, {"any-x", "req.cook -m str x"},
        {"any-found", "cook -m found"}, {"val1", "cook_val(a) 1"}, {"beg", "cook_beg(a) x"}, {"sub", "cook_sub(a) \" \""},
        {"cnt2", "cook_cnt(a) 2"}, {"cookie-found", "cookie(a) -m found"}};

    /** Response-side samples, sent back as {@code x-r-<suffix>: [<value>]}. */
    private static final String[][] RESPONSE_SAMPLES = {
        {"cook-a", "res.cook(a)"}, {"scook-a", "scook(a)"}, {"cook-any", "res.cook"}, {"cookie-a", "cookie(a)"},
        {"cnt-a", "res.cook_cnt(a)"}, {"cnt-any", "res.cook_cnt"}, {"scnt-a", "scook_cnt(a)"}, {"val-a", "res.cook_val(a)"},
        {"sval-a", "scook_val(a)"}};

    /** Response-side ACLs, {@code x-ra-<suffix>: y} when they match. */
    private static final String[][] RESPONSE_ACLS = {
        {"found", "res.cook(a) -m found"}, {"eq1", "res.cook(a) 1"}, {"empty", "scook(a) -m len 0"}, {"any-found", "res.cook -m found"},
        {"val2", "res.cook_val(a) 2"}};

    /** Cookie field values, one request each ({@code |} separates fields; {@code FOLD} makes a folded line). */
    private static final List<String> COOKIES = List.of("a=1; b=2", "a=1|a=2", "a=1; a=2; a=3", "a=", "a=; b=1", "a=1; a=", "b=1|a=",
            "a=\"x y\"", "a=\"x;y\"; b=1", "a=\"x,y\"", "a=\"open; b=1", "a = 1", "a= 1", "a =1 ; b = 2 ", "a=1 ;b=2",
            "a", "a; b=1", "b; a=1", "a;a=2", "a=1, a=2", "a=1,b=2", "a=1 , b=2", ";a=1", ";;a=1;;", "a=1;", "|a=1", "a=1||b=2",
            "$Version=1; a=1; $Path=/", "$a=1", "a=1.5", "a=-3", "a=12abc", "a=x", "a=99999999999", "a=+5", "a=1 2", "a=1=2",
            "=1; a=2", "ab=1; a=2", "aa=1", "A=1", "a=1\tb=2", "a=x y z", "x", "a=,", "FOLDa=1", "FOLD;a=2; b=3", "a=1; FOLDa=2");

    /** Set-Cookie field values the origin answers with ({@code |} separates fields), one request each. */
    private static final List<String> SET_COOKIES = List.of("a=1", "a=1; Path=/", "a=1|a=2", "b=1; a=2", "a= 1 ; Path=/", "a=1, a=2",
            "a=1; Expires=Thu, 01-Jan-2030 00:00:00 GMT", "foo; a=1", "$x=1; a=2", "a=", "a=\"q;w\"; b=2", "a = 3", "a=1; a=2",
            "b=1|a=2; Path=/", "a=x; Max-Age=3, a=4", ";a=1", "a=7abc", "a", "a=1;b", "Path=/; a=1");

    private static final String CONFIG = """
            global
                log stdout format raw local0
            defaults
                mode http
                log global
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:@P0@
                capture cookie a len 12
                log-format "CAPT %HU %CC %CS"
            @REQUEST_RULES@
            @RESPONSE_RULES@
                default_backend be
            backend be
                server o 127.0.0.1:@O1@
            listen pers
                bind 127.0.0.1:@P1@
                log-format "PERS %HU %CC %ST"
                capture cookie SRV len 20
                cookie SRV insert indirect nocache
                server s1 127.0.0.1:@O1@ cookie a1
            """;

    /** The origin: echoes the request's {@code x-q*} fields, answers each {@code x-set} field as a Set-Cookie. */
    private Origin origin() {
        Origin o = Origin.start("o", (r, out) -> answer(r, out));
        origins.add(o);
        return o;
    }

    private static boolean answer(Origin.Request r, OutputStream out) throws IOException {
        List<String[]> h = new ArrayList<>();
        for (String[] f : r.head().fields()) {
            String n = f[0].toLowerCase(Locale.ROOT);
            if (n.startsWith("x-q")) {
                h.add(f);
            } else if (n.equals("x-set")) {
                h.add(new String[] {"Set-Cookie", f[1]});
            }
        }
        Origin.respond(out, 200, "OK", h, ("cookie " + r.head().all("cookie") + "\n").getBytes(StandardCharsets.ISO_8859_1));
        return true;
    }

    private static String config(int[] ports, Origin o) {
        StringBuilder req = new StringBuilder();
        for (String[] s : REQUEST_SAMPLES) {
            req.append("    http-request set-header X-Q-").append(s[0]).append(" \"[%[").append(s[1]).append("]]\"\n");
        }
        for (String[] a : REQUEST_ACLS) {
            req.append("    http-request set-header X-QA-").append(a[0]).append(" y if { ").append(a[1]).append(" }\n");
        }
        StringBuilder res = new StringBuilder();
        for (String[] s : RESPONSE_SAMPLES) {
            res.append("    http-response set-header X-R-").append(s[0]).append(" \"[%[").append(s[1]).append("]]\"\n");
        }
        for (String[] a : RESPONSE_ACLS) {
            res.append("    http-response set-header X-RA-").append(a[0]).append(" y if { ").append(a[1]).append(" }\n");
        }
        return CONFIG.replace("@REQUEST_RULES@\n", req).replace("@RESPONSE_RULES@\n", res).replace("@P0@", Integer.toString(ports[0]))
                .replace("@P1@", Integer.toString(ports[1])).replace("@O1@", Integer.toString(o.port()));
    }

    /** The Cookie lines of a request: fields split at '|', "FOLD" starting a continuation line. */
    private static String cookieLines(String spec, String field) {
        StringBuilder sb = new StringBuilder();
        for (String v : spec.split("\\|", -1)) {
            sb.append(field).append(": ").append(v.replace("FOLD", "\r\n ")).append("\r\n");
        }
        return sb.toString();
    }

    /** The normalised answer: status, the fields the rules added (sorted), the Cookie fields the server received. */
    private static String exchange(int port, String path, String head) {
        try (RawClient c = new RawClient(port)) {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: t\r\n" + head + "Connection: close\r\n\r\n").read();
            TreeMap<String, List<String>> added = new TreeMap<>();
            for (String[] f : r.head().fields()) {
                String n = f[0].toLowerCase(Locale.ROOT);
                if (n.startsWith("x-q") || n.startsWith("x-r") || n.equals("set-cookie")) {
                    added.computeIfAbsent(n, k -> new ArrayList<>()).add(f[1]);
                }
            }
            return path + " " + r.status() + " " + added + " " + r.bodyText().strip();
        }
    }

    /** Every answer and log line of one daemon. */
    private static List<String> run(boolean haproxy, Origin o) {
        int[] ports = {Ports.free(), Ports.free()};
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(ports, o), ports[0])) {
            int n = 0;
            for (String c : COOKIES) {
                out.add(exchange(ports[0], "/q" + n++, cookieLines(c, "Cookie")));
            }
            n = 0;
            for (String s : SET_COOKIES) {
                out.add(exchange(ports[0], "/r" + n++, cookieLines(s, "X-Set")));
            }
            n = 0;
            for (String c : List.of("FOLD ;SRV=a1; x=1", "FOLD;SRV=a1", "x= 1; SRV = a1 ; y=2", "SRV= a1", "FOLD , SRV=a1, x=1", "$V=1; SRV=a1; $P=/")) {
                out.add(exchange(ports[1], "/p" + n++, cookieLines(c, "Cookie")));
            }
            // (a readiness probe may be logged too: it has no URI)
            int lines = COOKIES.size() + SET_COOKIES.size() + n;
            out.addAll(d.awaitLines(l -> l.startsWith("CAPT /") || l.startsWith("PERS /"), lines).stream().sorted().toList());
        }
        return out;
    }

    @Test
    void cookieFetchesCapturesAndPersistenceAsHaproxy() {
        Program.HAPROXY.require();
        Origin o = origin();
        List<String> sluice = run(false, o);
        List<String> haproxy = run(true, o);
        for (int i = 0; i < Math.min(sluice.size(), haproxy.size()); i++) {
            assertThat(sluice.get(i)).as("line %d", i).isEqualTo(haproxy.get(i));
        }
        assertThat(sluice).hasSameSizeAs(haproxy);
    }
}

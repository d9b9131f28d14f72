package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Runs one rule-heavy configuration (src/test/resources/rules-parity.cfg: ACLs, converters, every
 * http-request/response/after-response action, use_backend) in real HAProxy and in Sluice, sends both
 * the same requests and asserts the same responses, byte for byte except the Date field and the order
 * of Content-Length among the fields. Skipped when haproxy is not installed (CI installs it).
 */
class HaproxyParityTest {

    static final List<String> REQUESTS = List.of(
            "GET / HTTP/1.1\r\n\r\n",
            "GET /admin HTTP/1.1\r\n\r\n",
            "GET /admin HTTP/1.1\r\nx-token: secret\r\n\r\n",
            "GET /Admin/x HTTP/1.1\r\nx-token: bad\r\n\r\n",
            "GET /limit HTTP/1.1\r\n\r\n",
            "GET /tea HTTP/1.1\r\n\r\n",
            "GET /ret HTTP/1.1\r\n\r\n",
            "POST /ret HTTP/1.1\r\ncontent-length: 3\r\n\r\nabc",
            "GET /nf HTTP/1.1\r\n\r\n",
            "GET /empty HTTP/1.1\r\n\r\n",
            "GET /old HTTP/1.1\r\n\r\n",
            "GET /tmp HTTP/1.1\r\n\r\n",
            "GET /p/a?x=1 HTTP/1.1\r\n\r\n",
            "GET /q/a?x=1 HTTP/1.1\r\n\r\n",
            "GET /sec?x=1 HTTP/1.1\r\n\r\n",
            "GET /opt?y=2 HTTP/1.1\r\n\r\n",
            "GET /kw HTTP/1.1\r\n\r\n",
            "GET /order HTTP/1.1\r\n\r\n",
            "GET /as?x=1 HTTP/1.1\r\n\r\n",
            "GET /hello HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nx-del: 1\r\nx-rep: aa-bb\r\nx-rv: ab,ac, b\r\nx-rv: xa\r\n\r\n",
            "GET /sp/a?x=1 HTTP/1.1\r\n\r\n",
            "GET /sq?z=1 HTTP/1.1\r\n\r\n",
            "GET /su HTTP/1.1\r\n\r\n",
            "GET /sm HTTP/1.1\r\n\r\n",
            "GET /rp/a/b?k=v HTTP/1.1\r\n\r\n",
            "GET /x/y.png HTTP/1.1\r\n\r\n",
            "GET /a/x/b HTTP/1.1\r\n\r\n",
            "GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\r\n",
            "GET /?a=7 HTTP/1.1\r\n\r\n",
            "GET /?b=1&a=3 HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nhost: www.example.com\r\n\r\n",
            "GET / HTTP/1.1\r\nhost: example.com.evil\r\n\r\n",
            "GET / HTTP/1.1\r\nx-m: 1\r\nx-m: 2\r\n\r\n",
            "GET / HTTP/1.1\r\nx-m: 1, 2\r\n\r\n",
            "GET / HTTP/1.1\r\nx-in: HeLLo\r\n\r\n",
            "GET / HTTP/1.1\r\nx-f: a:b:c\r\n\r\n",
            "GET / HTTP/1.1\r\ncookie: a=1; sid=xyz\r\n\r\n",
            "GET /base?q=1 HTTP/1.1\r\nhost: h.example\r\n\r\n",
            "GET /ver HTTP/1.0\r\nhost: h\r\n\r\n",
            "GET /url?z=2 HTTP/1.1\r\n\r\n",
            "POST / HTTP/1.1\r\ncontent-length: 3\r\n\r\nabc",
            "GET /mask HTTP/1.1\r\n\r\n",
            "GET /nocookie HTTP/1.1\r\n\r\n",
            "GET /b2/x HTTP/1.1\r\n\r\n",
            "GET /b2/st HTTP/1.1\r\n\r\n",
            "GET /st HTTP/1.1\r\nx-be: b2\r\n\r\n",
            "GET / HTTP/1.1\r\nx-be: nope\r\n\r\n");

    @Test
    void sameResponsesAsHaproxy() throws Exception {
        assertSameAsHaproxy("rules-parity.cfg", REQUESTS);
    }

    /**
     * Runs the configuration template (in src/test/resources; {@code @FE@}, {@code @FE2@} are listen ports,
     * {@code @O1@}, {@code @O2@} echo origins) in HAProxy, then in Sluice, sends each request on a new
     * connection to the first port (a request starting with "2:" goes to the second port) and asserts
     * the same normalised responses.
     */
    static void assertSameAsHaproxy(String resource, List<String> requests) throws Exception {
        assertSameAsHaproxyWith(Files.readString(Path.of("src/test/resources/" + resource)), requests);
    }

    /** The same with a configuration template given as text (@FE@ @FE2@ @O1@ @O2@ filled in). */
    static void assertSameAsHaproxyWith(String template, List<String> requests) throws Exception {
        assumeTrue(haproxy() != null, "haproxy is not installed");
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int[] hp = {Ports.free(), Ports.free()};
            int[] sp = {Ports.free(), Ports.free()};
            List<String> fromHaproxy;
            Path hcfg = Sluice.writeConfig(fill(template, hp, s1, s2));
            Process h = new ProcessBuilder(haproxy(), "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                    .redirectOutput(hcfg.resolveSibling("haproxy.log").toFile()).start();
            // readiness is probed on the second port when there is one: a probe connection would count in stick tables
            int probe = template.contains("@FE2@") ? 1 : 0;
            try {
                waitFor(hp[probe]);
                fromHaproxy = exchange(hp, requests);
            } finally {
                h.destroy();
                h.waitFor();
            }
            List<String> fromSluice;
            try (Sluice s = Sluice.start(fill(template, sp, s1, s2), sp[probe])) {
                fromSluice = exchange(sp, requests);
            }
            for (int i = 0; i < requests.size(); i++) {
                assertThat(fromSluice.get(i)).as("response to %s", requests.get(i).replace("\r\n", "\\r\\n")).isEqualTo(fromHaproxy.get(i));
            }
        }
    }

    static String fill(String template, int port, Origin s1, Origin s2) {
        return fill(template, new int[] {port, 0}, s1, s2);
    }

    static String fill(String template, int[] ports, Origin s1, Origin s2) {
        return template.replace("@FE@", Integer.toString(ports[0])).replace("@FE2@", Integer.toString(ports[1]))
                .replace("@O1@", Integer.toString(s1.port())).replace("@O2@", Integer.toString(s2.port()));
    }

    /** Each request on its own connection (a deny closes it); a response is its normalised text. */
    static List<String> exchange(int[] ports, List<String> requests) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : requests) {
            int port = line.startsWith("2:") ? ports[1] : ports[0];
            String req = line.startsWith("2:") ? line.substring(2) : line;
            String withHost = req.contains("host:") || req.contains("Host:") ? req : req.replaceFirst("\r\n", "\r\nhost: test\r\n");
            try (RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send(withHost).read(req.startsWith("HEAD"));
                out.add(normalise(r));
            } catch (RuntimeException e) {
                out.add("no response");
            }
        }
        return out;
    }

    static String normalise(RawClient.Response r) {
        StringBuilder sb = new StringBuilder(r.head().startLine()).append('\n');
        String cl = null;
        for (String[] f : r.head().fields()) {
            String n = f[0].toLowerCase(Locale.ROOT);
            if (n.equals("date")) {
                continue;
            }
            if (n.equals("content-length")) {
                cl = f[1];
                continue;
            }
            sb.append(n).append(": ").append(f[1]).append('\n');
        }
        sb.append("content-length: ").append(cl).append('\n');
        String body = new String(r.body(), StandardCharsets.ISO_8859_1);
        // the origin echoes the request: the order of content-length among its fields is not compared
        body = body.replaceAll("(?m)^content-length: .*\n", "");
        return sb.append('\n').append(body).toString();
    }

    static void waitFor(int port) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("haproxy did not listen on " + port);
    }

    static String haproxy() {
        for (String p : new String[] {"/usr/sbin/haproxy", "/usr/local/sbin/haproxy", "/usr/bin/haproxy"}) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        return null;
    }
}

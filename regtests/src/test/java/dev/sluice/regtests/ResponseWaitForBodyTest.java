package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code http-response wait-for-body} with {@code res.body}, {@code res.body_len} and {@code res.body_size}, against
 * HAProxy 2.6 (each daemon in turn on the same configuration and origin): a whole body, a chunked one sent in two
 * pieces, {@code at-least} met by the first half of a body whose second half comes a second later (the rules read the
 * half, the client still gets all of it), a response without a body, and a body that stops coming (a 504 when the time
 * passes, logged sR as HAProxy 2.6 logs it). Without a wait-for-body, HAProxy's {@code res.body} reads whatever body came
 * in the same read as the head (timing); Sluice's gives no sample, so no case here reads it without one.
 */
class ResponseWaitForBodyTest {

    private static void write(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Origin origin() {
        return Origin.start("o", (r, out) -> {
            switch (r.target()) {
                case "/full" -> write(out, "HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\nhello world");
                case "/chunked" -> {
                    write(out, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n");
                    pause(200);
                    write(out, "3\r\ndef\r\n0\r\n\r\n");
                }
                case "/least" -> {
                    write(out, "HTTP/1.1 200 OK\r\ncontent-length: 40\r\n\r\n" + "a".repeat(20));
                    pause(1000);
                    write(out, "b".repeat(20));
                }
                case "/nobody" -> write(out, "HTTP/1.1 204 No Content\r\n\r\n");
                case "/slow" -> {
                    write(out, "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n12345");
                    pause(3000);
                    return false;
                }
                default -> write(out, "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
            }
            return true;
        });
    }

    private static String config(int port, int origin) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    option httplog
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d
                    http-response wait-for-body time 3s at-least 16 if { capture.req.uri /least }
                    http-response wait-for-body time 500ms if { capture.req.uri /slow }
                    http-response wait-for-body time 3s unless { capture.req.uri /least } || { capture.req.uri /slow }
                    http-response set-header x-body "%%[res.body]"
                    http-response set-header x-len "%%[res.body_len] %%[res.body_size]"
                    default_backend be
                backend be
                    server o 127.0.0.1:%d
                """.formatted(port, origin);
    }

    private static List<String> run(boolean haproxy, Origin o) {
        int port = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port, o.port()), port)) {
            for (String path : List.of("/full", "/chunked", "/least", "/nobody", "/slow")) {
                try (RawClient c = new RawClient(port, 10_000)) {
                    RawClient.Response res = c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read();
                    out.add(path + " " + res.status() + " x-body=" + res.header("x-body") + " x-len=" + res.header("x-len") + " body="
                            + res.bodyText().length());
                }
                List<String> l = d.awaitLines(x -> x.contains("\"GET " + path + " "), 1);
                assertThat(l).as("%s: log of %s in\n%s", d.name(), path, d.output()).isNotEmpty();
                String[] w = l.getFirst().split(" ");
                // status and termination state
                out.add(path + " logged " + w[5] + " " + w[9]);
            }
        }
        return out;
    }

    @Test
    void responseBodiesWaitedForAsHaproxyWaits() {
        try (Origin o = origin()) {
            List<String> theirs = run(true, o);
            assertThat(theirs).containsExactly("/full 200 x-body=hello world x-len=11 11 body=11", "/full logged 200 ----",
                    "/chunked 200 x-body=abcdef x-len=6 6 body=6", "/chunked logged 200 ----",
                    "/least 200 x-body=" + "a".repeat(20) + " x-len=20 40 body=40", "/least logged 200 ----",
                    "/nobody 204 x-body= x-len=0 0 body=0", "/nobody logged 204 ----",
                    // HAProxy 2.6's own page, and sR (not the sD its code would suggest)
                    "/slow 504 x-body=null x-len=null body=92", "/slow logged 504 sR--");
            assertThat(run(false, o)).isEqualTo(theirs);
        }
    }
}

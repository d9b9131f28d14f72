package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code option http-buffer-request}, Sluice against HAProxy 2.6: the http-request rules read the body that arrives after
 * the head (a deny on {@code req.body}), without the option they do not, and a body that never completes ends in a 408
 * after {@code timeout http-request}.
 */
class BufferRequestTest {

    static String config(int on, int off, int origin) {
        return """
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                    timeout http-request 800ms
                frontend on
                    bind 127.0.0.1:%d
                    option http-buffer-request
                    http-request deny if { req.body -m sub secret }
                    default_backend b
                frontend off
                    bind 127.0.0.1:%d
                    http-request deny if { req.body -m sub secret }
                    default_backend b
                backend b
                    server s1 127.0.0.1:%d
                """.formatted(on, off, origin);
    }

    /** Sends a head announcing {@code length} bytes, then {@code body} 300 ms later; the status line of the answer. */
    static String post(int port, int length, String body) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Daemon.sleep(300);
            out.write(body.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                line.append((char) c);
            }
            return line.toString().strip();
        }
    }

    static List<String> run(boolean haproxy, int origin) throws Exception {
        int on = Ports.free();
        int off = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(on, off, origin), on)) {
            out.add("on secret: " + post(on, 10, "my secret!"));
            out.add("on plain: " + post(on, 10, "0123456789"));
            out.add("off secret: " + post(off, 10, "my secret!"));
            out.add("on short: " + post(on, 100, "only a part"));
        }
        return out;
    }

    @Test
    void theRulesSeeTheBufferedBodyAsInHaproxy() throws Exception {
        Program.HAPROXY.require();
        try (Origin o = Origin.start("o")) {
            List<String> theirs = run(true, o.port());
            List<String> ours = run(false, o.port());
            assertThat(ours).isEqualTo(theirs);
            assertThat(theirs).containsExactly("on secret: HTTP/1.1 403 Forbidden", "on plain: HTTP/1.1 200 OK", "off secret: HTTP/1.1 200 OK",
                    "on short: HTTP/1.1 408 Request Time-out");
        }
    }
}

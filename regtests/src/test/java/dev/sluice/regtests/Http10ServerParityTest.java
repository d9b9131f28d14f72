package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * HTTP/1.0 on either side, through HAProxy 2.6 and Sluice: an HTTP/1.0 server's status line keeps its version
 * (h1_format_htx_stline), and the Connection line the proxy adds follows the response's version (h1_update_res_conn_value):
 * keep-alive said to keep a connection with an HTTP/1.0 response, no close said where HTTP/1.0 closes by default; an
 * HTTP/1.1 response of unknown length goes chunked to an HTTP/1.0 client too (mux_h1's test is the response's version). Each
 * row: the bytes the client got and whether its connection was left open.
 */
class Http10ServerParityTest {
    private static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:@P@
                default_backend be
            backend be
                server s1 127.0.0.1:@O@
            """;

    static final List<String> REQUESTS = List.of(
            "GET /a HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /ka HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /noclen HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /a HTTP/1.0\r\nHost: t\r\n\r\n",
            "GET /a HTTP/1.0\r\nHost: t\r\nConnection: keep-alive\r\n\r\n",
            "GET /v11 HTTP/1.0\r\nHost: t\r\n\r\n",
            // an HTTP/1.1 server's chunked response stays chunked to an HTTP/1.0 client, kept alive when it asked
            "GET /chunk HTTP/1.0\r\nHost: t\r\n\r\n",
            "GET /chunk HTTP/1.0\r\nHost: t\r\nConnection: keep-alive\r\n\r\n",
            "GET /chunk HTTP/1.1\r\nHost: t\r\n\r\n");

    private static boolean answer(Origin.Request r, OutputStream out) throws IOException {
        String raw = switch (r.target()) {
            case "/ka" -> "HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nhi";
            case "/noclen" -> "HTTP/1.0 200 OK\r\n\r\nuntil the close";
            case "/v11" -> "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
            case "/chunk" -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n";
            default -> "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi";
        };
        out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return false;
    }

    private static String exchange(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(1000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] b = new byte[4096];
            String end;
            try {
                for (int n; ; ) {
                    n = in.read(b);
                    if (n < 0) {
                        end = "<closed>";
                        break;
                    }
                    got.write(b, 0, n);
                }
            } catch (SocketTimeoutException e) {
                end = "<open>";
            }
            return got.toString(StandardCharsets.ISO_8859_1).replace("\r\n", "|") + end;
        }
    }

    private static List<String> run(boolean haproxy, Origin o) throws Exception {
        int port = Ports.free();
        String config = CONFIG.replace("@P@", Integer.toString(port)).replace("@O@", Integer.toString(o.port()));
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config, port)) {
            for (String r : REQUESTS) {
                out.add(r.substring(0, r.indexOf('\r')) + " => " + exchange(port, r));
            }
        }
        return out;
    }

    @Test
    void anHttp10ServersResponsesAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        try (Origin o = Origin.start("o", Http10ServerParityTest::answer)) {
            List<String> sluice = run(false, o);
            List<String> haproxy = run(true, o);
            assertThat(sluice).isEqualTo(haproxy);
            assertThat(sluice.get(0)).isEqualTo("GET /a HTTP/1.1 => HTTP/1.0 200 OK|content-length: 2|connection: keep-alive||hi<open>");
        }
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code set-tos} and {@code set-mark} in {@code http-request} and {@code tcp-request connection} rules, against HAProxy 2.6:
 * the client connection's socket as {@code ss} shows it (its TOS and netfilter mark) after a request on a kept-alive
 * connection. SO_MARK needs CAP_NET_ADMIN: where the tests run without it, both daemons leave the mark at 0 alike.
 */
class SocketOptionActionsTest {
    private static final Pattern TOS = Pattern.compile("tos:(0x[0-9a-f]+)");
    private static final Pattern MARK = Pattern.compile("fwmark:(0x[0-9a-f]+)");

    /** What ss says of the daemon's socket towards {@code client}'s port: "tos=... mark=...". */
    private static String socketOf(Socket client) throws Exception {
        Process p = new ProcessBuilder(Program.command(List.of("ss", "-tn", "--tos", "-e", "dst", "127.0.0.1:" + client.getLocalPort())))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        Matcher t = TOS.matcher(out);
        Matcher m = MARK.matcher(out);
        assertThat(out).as("ss output").contains("ESTAB");
        return "tos=" + (t.find() ? t.group(1) : "0x0") + " mark=" + (m.find() ? m.group(1) : "0x0");
    }

    private static String request(int port, String path) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            byte[] b = new byte[4096];
            int n = in.read(b);
            assertThat(new String(b, 0, Math.max(n, 0), StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");
            return path + " " + socketOf(s);
        }
    }

    private static List<String> run(boolean haproxy) throws Exception {
        int[] p = {Ports.free(), Ports.free()};
        String cfg = """
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    bind 127.0.0.1:%d
                    tcp-request connection set-tos 0x10 if { dst_port %d }
                    http-request set-tos 0x28 if { path /tos }
                    http-request set-mark 0x7 if { path /mark }
                    http-request set-tos 010 if { path /octal }
                    http-request return status 200 content-type text/plain string ok
                """.formatted(p[0], p[1], p[1]);
        try (Daemon d = Daemon.start(haproxy, cfg, p[0])) {
            List<String> out = new ArrayList<>();
            out.add(request(p[0], "/plain"));
            out.add(request(p[0], "/tos"));
            out.add(request(p[0], "/mark"));
            out.add(request(p[0], "/octal"));
            out.add(request(p[1], "/connection"));
            return out;
        }
    }

    @Test
    void tosAndMarkAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        Program.SS.require();
        List<String> theirs = run(true);
        List<String> ours = run(false);
        assertThat(ours).isEqualTo(theirs);
        assertThat(ours.get(0)).isEqualTo("/plain tos=0x0 mark=0x0");
        assertThat(ours.get(1)).isEqualTo("/tos tos=0x28 mark=0x0");
        assertThat(ours.get(3)).isEqualTo("/octal tos=0x8 mark=0x0");
        assertThat(ours.get(4)).isEqualTo("/connection tos=0x10 mark=0x0");
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code dispatch} and {@code option transparent} in backends without a balance algorithm: every request goes to the
 * dispatch address, or to the address the client connected to (here moved by {@code set-dst-port}), logged as
 * {@code <NOSRV>}; with a balance algorithm the dispatch address is ignored with a warning and transparent is refused.
 * The same answers, log lines and messages as HAProxy 2.6.
 */
class DispatchTest {

    private static List<String> run(boolean haproxy) throws Exception {
        try (Origin o = Origin.start("o"); Origin unused = Origin.start("unused")) {
            int port = Ports.free();
            int tport = Ports.free();
            String cfg = """
                    global
                        log stdout format raw local0
                    defaults
                        mode http
                        log global
                        option dontlognull
                        log-format "%%ft %%b/%%s %%ST"
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        default_backend disp
                    backend disp
                        dispatch 127.0.0.1:%d
                    listen transp
                        bind 127.0.0.1:%d
                        option transparent
                        http-request set-dst-port int(%d)
                        server never 127.0.0.1:%d
                    """.formatted(port, o.port(), tport, o.port(), unused.port());
            List<String> out = new ArrayList<>();
            try (Daemon d = Daemon.start(haproxy, cfg, port)) {
                for (int p : List.of(port, tport)) {
                    try (RawClient c = new RawClient(p, 5_000)) {
                        RawClient.Response r = c.send("GET /x HTTP/1.1\r\nhost: t\r\n\r\n").read();
                        out.add(r.status() + " " + r.bodyText().strip());
                    }
                }
                out.addAll(d.awaitLines(l -> l.contains("<NOSRV>") || l.contains("/never "), 2).stream().sorted().toList());
            }
            out.add("unused origin requests " + unused.requests().size());
            return out;
        }
    }

    @Test
    void everyRequestGoesToTheOneDestinationAsInHaproxy() throws Exception {
        List<String> sluice = run(false);
        assertThat(sluice).containsExactly("200 origin o", "200 origin o", "fe disp/<NOSRV> 200", "transp transp/<NOSRV> 200",
                "unused origin requests 0");
        Program.HAPROXY.require();
        assertThat(run(true)).as("HAProxy 2.6").isEqualTo(sluice);
    }

    @Test
    void inBalanceModeDispatchIsIgnoredAndTransparentRefusedAsInHaproxy() throws Exception {
        String cfg = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                backend a
                    balance roundrobin
                    dispatch 127.0.0.1:8080
                    server s 127.0.0.1:8081
                backend b
                    balance roundrobin
                    option transparent
                    server s 127.0.0.1:8081
                """;
        java.nio.file.Path file = Sluice.writeConfig(cfg);
        String sluice = Sluice.run(List.of("-c", "-f", file.toString()), java.util.Map.of()).output();
        assertThat(sluice).contains("dispatch address of backend 'a' will be ignored in balance mode.")
                .contains("backend 'b' cannot use both transparent and balance mode.");
        Process p = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", file.toString()).redirectErrorStream(true).start();
        String h = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        assertThat(h).as("HAProxy 2.6").contains("dispatch address of backend 'a' will be ignored in balance mode.")
                .contains("backend 'b' cannot use both transparent and balance mode.");
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code fc_err}, {@code fc_err_str}, {@code bc_err} and {@code bc_err_str} in log lines against HAProxy 2.6: 0 and
 * "Success" on the client connection of every stream (clear and TLS), the same on a server connection that was made (a
 * server that never answers: 504), no sample where none was (an answer of the proxy's own, a refused connect).
 */
class ConnectionErrorFetchParityTest {

    private static List<String> run(boolean haproxy, int silent, TestPki.Issued cert) throws Exception {
        int[] p = {Ports.free(), Ports.free()};
        String cfg = """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                    log-format "%%HP fc=%%[fc_err] fcs=%%[fc_err_str] bc=%%[bc_err] bcs=%%[bc_err_str] st=%%ST %%tsc"
                frontend fe
                    bind 127.0.0.1:%d
                    bind 127.0.0.1:%d ssl crt %s alpn http/1.1
                    use_backend dead if { path /dead }
                    use_backend slow if { path /slow }
                    default_backend ok
                backend ok
                    http-request return status 200
                backend dead
                    retries 0
                    server s 127.0.0.1:1
                backend slow
                    timeout server 300ms
                    server s 127.0.0.1:%d
                """.formatted(p[0], p[1], cert.pem(), silent);
        try (Daemon d = Daemon.start(haproxy, cfg, p[0])) {
            for (String path : List.of("/ok", "/dead", "/slow")) {
                Http2Test.run(List.of("curl", "-s", "-o", "/dev/null", "http://127.0.0.1:" + p[0] + path));
            }
            Http2Test.run(List.of("curl", "-sk", "-o", "/dev/null", "https://127.0.0.1:" + p[1] + "/tls"));
            // the start-up probe's <BADREQ> line left out
            List<String> out = new ArrayList<>(d.awaitLines(l -> l.contains(" fc=") && l.startsWith("/"), 4));
            out.sort(null);
            return out;
        }
    }

    @Test
    void errorCodesAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        Program.CURL.require();
        TestPki pki = new TestPki("err-ca");
        TestPki.Issued cert = pki.leaf("err.test");
        try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            List<String> theirs = run(true, silent.getLocalPort(), cert);
            List<String> ours = run(false, silent.getLocalPort(), cert);
            assertThat(ours).isEqualTo(theirs);
            assertThat(theirs).containsExactly("/dead fc=0 fcs=Success bc=- bcs=- st=503 SC--", "/ok fc=0 fcs=Success bc=- bcs=- st=200 LR--",
                    "/slow fc=0 fcs=Success bc=0 bcs=Success st=504 sH--", "/tls fc=0 fcs=Success bc=- bcs=- st=200 LR--");
        }
    }
}

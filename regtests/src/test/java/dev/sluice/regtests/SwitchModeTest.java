package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code mode tcp} frontends whose connections become HTTP, Sluice against HAProxy 2.6 on one configuration: the
 * implicit upgrade (a TCP frontend whose switching rules choose an HTTP backend: the choice made for the connection
 * holds for its first request; the next requests of the connection are routed by the rules on their own, as corpus file
 * 30 does with {@code path_beg}; whether HAProxy makes the first choice before or after the first request's bytes arrive
 * depends on timing, Sluice makes it when the connection is accepted), {@code tcp-request content switch-mode http} after
 * inspection (the frontend's {@code http-request} rules then apply), HTTP/2 with prior knowledge after the switch, a
 * multiplexer forced ({@code switch-mode http proto h1|h2}, {@code bind ... proto h1}: no upgrade on HTTP/2's preface).
 * Compared: which origin answered each request and the headers it received, what curl got.
 */
class SwitchModeTest {
    static String config(int ft, int fsw, int fh2, int fh1, int fp1, Origin web, Origin storage) {
        return """
                global
                    log stdout format raw local0
                defaults
                    log global
                    option tcplog
                    timeout connect 5s
                    timeout client 5s
                    timeout server 5s
                frontend ft
                    bind 127.0.0.1:%d
                    acl is_static path_beg /static
                    use_backend storage if is_static
                    default_backend web
                frontend fsw
                    mode tcp
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 2s
                    tcp-request content switch-mode http if { req.len gt 0 }
                    http-request set-header X-Switched yes
                    default_backend web
                frontend fh2
                    mode tcp
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 2s
                    tcp-request content switch-mode http proto h2 if { req.len gt 0 }
                    default_backend web
                frontend fh1
                    mode tcp
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 2s
                    tcp-request content switch-mode http proto h1 if { req.len gt 0 }
                    default_backend web
                frontend fp1
                    mode http
                    bind 127.0.0.1:%d proto h1
                    default_backend web
                backend web
                    mode http
                    server w 127.0.0.1:%d
                backend storage
                    mode http
                    server s 127.0.0.1:%d
                """.formatted(ft, fsw, fh2, fh1, fp1, web.port(), storage.port());
    }

    static List<String> run(boolean haproxy, Origin web, Origin storage) throws Exception {
        int ft = Ports.free();
        int fsw = Ports.free();
        int fh2 = Ports.free();
        int fh1 = Ports.free();
        int fp1 = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(ft, fsw, fh2, fh1, fp1, web, storage), ft)) {
            // two requests on one connection: the first goes where the connection was sent, the second by its path (the
            // first is not under /static: whether HAProxy decided before or after its bytes came varies)
            out.add(Http2Test.run(List.of("curl", "-sS", "http://127.0.0.1:" + ft + "/a", "-:", "http://127.0.0.1:" + ft
                    + "/static/b")));
            out.add(Http2Test.run(List.of("curl", "-sS", "http://127.0.0.1:" + ft + "/")));
            out.add(Http2Test.run(List.of("curl", "-sS", "http://127.0.0.1:" + fsw + "/sw")));
            out.add(Http2Test.run(List.of("curl", "-sS", "--http2-prior-knowledge", "-w", " %{http_version}", "http://127.0.0.1:" + fsw + "/h2")));
            // a multiplexer forced: HTTP/2 only (an HTTP/1 request gets no answer), HTTP/1 only (HTTP/2's preface is a
            // bad request, answered in HTTP/1, which an HTTP/2 client cannot read), on a switch as on a bind
            int[] ports = {fh2, fh1, fp1};
            String[] names = {"fh2", "fh1", "fp1"};
            for (int i = 0; i < ports.length; i++) {
                out.add(names[i] + " h1: " + curl("http://127.0.0.1:" + ports[i] + "/p1"));
                out.add(names[i] + " h2: " + curl("--http2-prior-knowledge", "http://127.0.0.1:" + ports[i] + "/p2"));
            }
        }
        return out;
    }

    /**
     * Whether curl succeeded, the status code and the body it got (which error curl reports depends on when the proxy
     * closes against what curl still writes: not compared).
     */
    static String curl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-s", "-m", "5", "-w", " %{http_code} %{http_version}"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(Program.command(cmd)).redirectErrorStream(true).start();
        String body = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return (p.exitValue() == 0 ? "ok: " : "failed: ") + body;
    }

    @Test
    void connectionsBecomeHttpAsInHaproxy() throws Exception {
        Program.HAPROXY.require();
        Program.CURL.require();
        try (Origin web = Origin.start("web"); Origin storage = Origin.start("storage")) {
            List<String> theirs = run(true, web, storage);
            List<Origin.Request> theirWeb = web.requests();
            List<Origin.Request> theirStorage = storage.requests();
            List<String> ours = run(false, web, storage);
            assertThat(ours).isEqualTo(theirs);
            // what HAProxy does: the second request of the connection routed by its own path
            assertThat(theirs.get(0)).isEqualTo("origin web\norigin storage\n");
            assertThat(web.requests().subList(theirWeb.size(), web.requests().size()).stream().map(Origin.Request::target))
                    .containsExactlyElementsOf(theirWeb.stream().map(Origin.Request::target).toList());
            assertThat(storage.requests().size() - theirStorage.size()).isEqualTo(theirStorage.size());
            for (Origin.Request r : web.requests()) {
                if (r.target().startsWith("/sw") || r.target().startsWith("/h2")) {
                    assertThat(r.header("x-switched")).as(r.target()).isEqualTo("yes");
                }
            }
        }
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code http-error status <code> ...} (HAProxy 2.2+), Sluice against HAProxy 2.6: a log-format body and header rendered
 * for the request that failed, a plain string, an errorfile page, the backend's reply before the frontend's (inherited
 * from defaults), {@code default-errorfiles} falling back to the frontend's, a deny and a {@code return ...
 * default-errorfiles} answered with the proxy's reply, and the last of errorfile / http-error for a code winning.
 */
class HttpErrorTest {

    static String config(int port, int dead, Path page) {
        return """
                defaults
                    mode http
                    retries 0
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                    http-error status 503 content-type text/plain lf-string "no server for %%[path] (%%[var(txn.x)])\\n" hdr x-err "e-%%[path]" hdr x-empty "%%[var(txn.none)]"
                frontend f
                    bind 127.0.0.1:%d
                    http-request set-var(txn.x) str(hello)
                    http-error status 403 content-type text/plain string "forbidden here\\n"
                    errorfile 429 %s
                    http-error status 404 content-type text/html string "<p>gone</p>"
                    errorfile 404 %s
                    http-request deny if { path_beg /deny }
                    http-request return status 429 default-errorfiles if { path_beg /limit }
                    http-request return status 404 default-errorfiles if { path_beg /missing }
                    use_backend be_own if { path_beg /own }
                    use_backend be_default if { path_beg /dflt }
                    default_backend be_dead
                backend be_dead
                    server s1 127.0.0.1:%d
                backend be_own
                    http-error status 503 content-type application/json string "{\\"error\\":\\"own\\"}"
                    server s1 127.0.0.1:%d
                backend be_default
                    http-error status 503 default-errorfiles
                    server s1 127.0.0.1:%d
                """.formatted(port, page, page, dead, dead, dead);
    }

    /** Each request's status, the headers that matter and the body. */
    static List<String> run(boolean haproxy, Path page) throws Exception {
        int port = Ports.free();
        int dead = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port, dead, page), port)) {
            for (String path : List.of("/a", "/deny", "/limit", "/missing", "/own", "/dflt/x")) {
                try (RawClient c = new RawClient(port, 10_000)) {
                    RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n").read();
                    out.add(path + " " + r.status() + " ct=" + r.header("content-type") + " cl=" + r.header("content-length") + " x-err="
                            + r.header("x-err") + " x-empty=" + r.header("x-empty") + " | " + r.bodyText());
                }
            }
        }
        return out;
    }

    @Test
    void errorRepliesAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        Path dir = Files.createTempDirectory("http-error");
        Path page = dir.resolve("page.http");
        Files.writeString(page, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Page: 1\r\n\r\nslow\n");
        List<String> theirs = run(true, page);
        List<String> ours = run(false, page);
        assertThat(ours).isEqualTo(theirs);
        // what HAProxy does, so the comparison cannot pass on two empty runs
        assertThat(theirs.get(0)).startsWith("/a 503 ct=text/plain").contains("x-err=e-/a", "no server for /a (hello)");
        assertThat(theirs.get(1)).startsWith("/deny 403").endsWith("forbidden here\n");
        assertThat(theirs.get(4)).contains("{\"error\":\"own\"}");
        assertThat(theirs.get(5)).contains("no server for /dflt/x");
    }
}

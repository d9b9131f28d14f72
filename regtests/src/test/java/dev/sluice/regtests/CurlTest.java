package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A real client: curl (installed by .ci/run), over keep-alive, with an upload. */
class CurlTest {

    static String curl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(Program.command(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void curlThroughTheProxy() throws Exception {
        Program.CURL.require();
        try (Origin a = Origin.start("a"); Origin b = Origin.start("b")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(ProxyingTest.config(port, List.of(a, b), "    option forwardfor"), port)) {
                String url = "http://127.0.0.1:" + port + "/c";
                // two URLs on one curl command share a keep-alive connection
                String out = curl(url, url, url);
                assertThat(out).isEqualTo("origin a\norigin b\norigin a\n");
                String post = curl("-d", "name=value", "http://127.0.0.1:" + port + "/post");
                assertThat(post).isEqualTo("origin b\n");
                Origin.Request r = b.requests().get(b.requests().size() - 1);
                assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("name=value");
                assertThat(r.header("x-forwarded-for")).isEqualTo("127.0.0.1");
                assertThat(r.header("user-agent")).startsWith("curl/");
            }
        }
    }
}

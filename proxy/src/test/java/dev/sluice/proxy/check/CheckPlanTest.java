package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Backends;
import io.netty.channel.DefaultEventLoop;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The check requests, byte for byte what HAProxy 2.6 sent for the same lines (captured from it). */
class CheckPlanTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
    }

    private String request(String lines) {
        Backend be = Backends.of(lines + "\nserver s1 check weight 7");
        CheckPlan plan = new CheckPlan(be, "vm", 16384);
        HealthCheck c = new HealthCheck(be.servers().getFirst(), plan, loop, null, 0);
        return new String(plan.request(c), StandardCharsets.ISO_8859_1);
    }

    @Test
    void requestsAreHaproxys() {
        assertThat(request("option httpchk")).isEqualTo("OPTIONS / HTTP/1.0\r\n\r\n");
        assertThat(request("option httpchk /onlyuri")).isEqualTo("OPTIONS /onlyuri HTTP/1.0\r\n\r\n");
        assertThat(request("option httpchk HEAD /c")).isEqualTo("HEAD /c HTTP/1.0\r\n\r\n");
        assertThat(request("option httpchk GET /a HTTP/1.1")).isEqualTo("GET /a HTTP/1.1\r\nconnection: close\r\n\r\n");
        assertThat(request("option httpchk\nhttp-check send meth POST uri /p ver HTTP/1.1 hdr Host h hdr X-A b body x"))
                .isEqualTo("POST /p HTTP/1.1\r\nhost: h\r\nx-a: b\r\ncontent-length: 1\r\nconnection: close\r\n\r\nx");
        assertThat(request("option httpchk\nhttp-check send ver HTTP/1.1 hdr Connection keep-alive hdr host x"))
                .isEqualTo("OPTIONS / HTTP/1.1\r\nhost: x\r\n\r\n");
    }

    @Test
    void theStateFieldComesAfterTheConfiguredOnes() {
        assertThat(request("option httpchk\nhttp-check send-state\nhttp-check send hdr X-A b body zz")).isEqualTo("OPTIONS / HTTP/1.0\r\n"
                + "x-a: b\r\nx-haproxy-server-state: UP 1/3; address=127.0.0.1; port=8001; name=be/s1; node=vm; weight=7/7; scur=0/0; qcur=0\r\n"
                + "content-length: 2\r\n\r\nzz");
    }
}

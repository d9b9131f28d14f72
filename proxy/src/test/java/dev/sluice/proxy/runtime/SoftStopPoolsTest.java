package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.pools.Pool;
import dev.sluice.proxy.memory.ProxyPools;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A graceful stop gives back every spare pool object, the event loops' caches included (HAProxy's soft-stop flush). */
class SoftStopPoolsTest {

    @Test
    void aGracefulStopDropsTheSparesOfEveryLoop() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        String cfg = """
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 1s
                    timeout server 1s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200
                """.formatted(port);
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "3.2"))
                .parse(List.of(new ConfigParser.Source("t.cfg", cfg)));
        assertThat(r.ok()).as(r.diagnostics().toString()).isTrue();
        Config config = r.config();
        ProxyPools pools = new ProxyPools(1);
        Pool<long[]> p = pools.registry().create("softstop", long[].class, 64, () -> new long[4], a -> { });
        ProxyRuntime rt = ProxyRuntime.build(config, ProxyRuntime.check(config), pools);
        rt.start();
        boolean stopped = false;
        try {
            int loops = rt.workers().count();
            // each loop takes 10 objects and gives them back: they stay in that loop's own cache
            rt.workers().onEachLoop(i -> {
                List<long[]> held = new ArrayList<>();
                for (int k = 0; k < 10; k++) {
                    held.add(p.alloc());
                }
                held.forEach(p::release);
                return Boolean.TRUE;
            }).get(5, TimeUnit.SECONDS);
            assertThat(p.allocated()).isEqualTo(10L * loops);
            assertThat(p.cached()).isEqualTo(10L * loops);
            rt.softStop();
            rt.awaitStop();
            stopped = true;
            assertThat(p.allocated()).isZero();
            assertThat(p.used()).isZero();
            assertThat(pools.registry().reservedBytes()).isZero();
        } finally {
            if (!stopped) {
                rt.stop();
            }
        }
    }
}

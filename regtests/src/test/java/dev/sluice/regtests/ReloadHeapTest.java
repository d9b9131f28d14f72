package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Replaced configurations die old, so only a full collection takes them back, and the collector grows the heap rather
 * than run one: after a burst of in-process reloads, once they have stopped, the daemon collects once and gives the
 * heap back (seen in the JVM's own GC log: a System.gc() pause that ends on a smaller heap than the burst left).
 */
class ReloadHeapTest {
    private static final Pattern PAUSE = Pattern.compile("Pause (Young|Full) \\(([^)]*\\)?)\\)? \\d+M->\\d+M\\((\\d+)M\\)");

    private static String config(Path admin, int port, String gen) {
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            servers.append("    server s").append(i).append(" 127.0.0.2:").append(20000 + i).append('\n');
        }
        return """
                global
                    stats socket %s level admin
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "%s"
                    default_backend be
                backend be
                %s""".formatted(admin, port, gen, servers);
    }

    /** The heap's committed size (MB) after the last collection in the log, and whether a System.gc() pause is there. */
    private static int committed(List<String> log) {
        int mb = -1;
        for (String l : log) {
            Matcher m = PAUSE.matcher(l);
            if (m.find()) {
                mb = Integer.parseInt(m.group(3));
            }
        }
        return mb;
    }

    @Test
    void aBurstOfReloadsGivesItsHeapBackOnceItStops() throws Exception {
        int port = Ports.free();
        Path dir = Files.createTempDirectory("sluice-reload-heap");
        Path admin = dir.resolve("admin.sock");
        Path cfg = dir.resolve("test.cfg");
        Path gc = dir.resolve("gc.log");
        Files.writeString(cfg, config(admin, port, "g0"));
        try (Sluice s = Sluice.start(cfg, List.of(), Map.of("SLUICE_JAVA_OPTS", Sluice.JVM_OPTS + " -Xlog:gc:file=" + gc), port)) {
            AdminClient.await(admin);
            // the reload path's warm-up (2 s after the start) done
            Thread.sleep(3000);
            int before = committed(Files.readAllLines(gc));
            for (int i = 1; i <= 100; i++) {
                Files.writeString(cfg, config(admin, port, "g" + i));
                assertThat(AdminClient.run(admin, "reload\n")).startsWith("Success=1");
            }
            int grown = committed(Files.readAllLines(gc));
            assertThat(grown).as("the heap the burst left (MB), from %d", before).isGreaterThan(before + 32);
            long end = System.currentTimeMillis() + 30_000;
            String collected = null;
            while (collected == null && System.currentTimeMillis() < end) {
                Thread.sleep(500);
                collected = Files.readAllLines(gc).stream().filter(l -> l.contains("Pause Full (System.gc())")).findFirst().orElse(null);
            }
            assertThat(collected).as("a System.gc() pause in %s", gc).isNotNull();
            Matcher m = PAUSE.matcher(collected);
            assertThat(m.find()).isTrue();
            assertThat(Integer.parseInt(m.group(3))).as(collected).isLessThan(grown);
            // one collection for the burst, not one per released configuration
            Thread.sleep(2000);
            assertThat(Files.readAllLines(gc).stream().filter(l -> l.contains("Pause Full (System.gc())")).count()).isEqualTo(1);
        }
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What only the process shows of the global section: {@code cpu-map} pins the event-loop threads to their CPUs,
 * {@code set-dumpable} lifts the core and file size limits, {@code tune.rcvbuf.client} sizes the listening socket's
 * receive buffer, and the process variables of {@code set-var} and the {@code setenv} environment are what every
 * connection's rules read (a {@code proc.} variable set by one request is seen by the next one).
 */
class GlobalTuningTest {

    @Test
    void theGlobalSectionShapesTheProcess() throws Exception {
        int port = Ports.free();
        boolean twoCpus = Runtime.getRuntime().availableProcessors() >= 2;
        String cfg = """
                global
                    nbthread 2
                    %s
                    set-dumpable
                    tune.rcvbuf.client 65536
                    tune.sndbuf.server 32768
                    setenv ZONE eu
                    set-var proc.greeting str(hi)
                    set-var proc.hits int(0)
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request set-var(proc.hits) var(proc.hits),add(1)
                    http-request return status 200 content-type text/plain lf-string "%%[var(proc.greeting)] %%[env(ZONE)] %%[var(proc.hits)]"
                """.formatted(twoCpus ? "cpu-map auto:1/1-2 0-1" : "", port);
        try (Sluice s = Sluice.start(cfg, port)) {
            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                // one connection each: both event loops get one, so both threads have started
                try (RawClient c = new RawClient("127.0.0.1", port)) {
                    RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read();
                    bodies.add(new String(r.body(), StandardCharsets.ISO_8859_1));
                }
            }
            assertThat(bodies).containsExactly("hi eu 1", "hi eu 2", "hi eu 3", "hi eu 4");

            // set-dumpable is applied once the listeners are up (after the identity change, as HAProxy): wait for it
            String limits = Files.readString(Path.of("/proc/" + s.pid() + "/limits"));
            for (long end = System.nanoTime() + 10_000_000_000L; !limits.matches("(?s).*Max core file size\\s+unlimited.*")
                    && System.nanoTime() < end;) {
                Thread.sleep(50);
                limits = Files.readString(Path.of("/proc/" + s.pid() + "/limits"));
            }
            assertThat(limits).containsPattern("Max core file size\\s+unlimited\\s+unlimited");
            assertThat(limits).containsPattern("Max file size\\s+unlimited\\s+unlimited");

            if (twoCpus) {
                assertThat(loopThreadCpus(s.pid())).containsExactlyInAnyOrder("0", "1");
            }

            Process ss = new ProcessBuilder("ss", "-tlmn", "sport = :" + port).redirectErrorStream(true).start();
            String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            ss.waitFor();
            // the kernel doubles what SO_RCVBUF asks for (its bookkeeping share)
            assertThat(out).contains("rb131072");
        }
    }

    /** The CPUs each "sluice-loop" thread may run on (Cpus_allowed_list). */
    private static List<String> loopThreadCpus(long pid) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                String comm = Files.readString(t.resolve("comm")).trim();
                if (!comm.startsWith("sluice-loop")) {
                    continue;
                }
                Files.readString(t.resolve("status")).lines().filter(l -> l.startsWith("Cpus_allowed_list:"))
                        .forEach(l -> out.add(l.substring(l.indexOf(':') + 1).trim()));
            }
        }
        return out;
    }
}

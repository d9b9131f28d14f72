package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A foreign HTTP/3 client for interoperability: {@code gtlsclient} (ngtcp2 + nghttp3 + GnuTLS, Debian's
 * ngtcp2-client). Runs it against 127.0.0.1, captures its packet and HTTP dump, and keeps what it downloaded. The
 * other HTTP/3 tests use {@link H3Client}.
 */
final class Gtls {
    /** What one run gave: exit status, output (ngtcp2's trace), wall time, the download directory. */
    record Run(int exit, String output, long millis, Path downloads) {
        /** The body downloaded for {@code path} (its last segment names the file). */
        byte[] body(String path) throws Exception {
            String name = path.substring(path.lastIndexOf('/') + 1);
            return Files.readAllBytes(downloads.resolve(name.isEmpty() ? "index.html" : name));
        }
    }

    /** Runs {@code gtlsclient [options] 127.0.0.1 <port> <uris...>} (8 s idle timeout). */
    static Run run(int port, List<String> options, String... paths) throws Exception {
        Path dir = Files.createTempDirectory("gtls");
        List<String> cmd = new ArrayList<>(List.of(Program.GTLSCLIENT.require(), "--timeout=8s", "--exit-on-all-streams-close", "--download=" + dir));
        cmd.addAll(options);
        cmd.add("127.0.0.1");
        cmd.add(Integer.toString(port));
        for (String p : paths) {
            cmd.add("https://127.0.0.1:" + port + p);
        }
        Path out = dir.resolve("trace.txt");
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean done = p.waitFor(30, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(done).as("gtlsclient ended").isTrue();
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), ms, dir);
    }
}

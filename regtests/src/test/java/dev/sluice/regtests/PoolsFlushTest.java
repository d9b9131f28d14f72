package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Giving spare pool objects back, HAProxy's SIGQUIT: {@code flush pools} answers the {@code show pools} dump
 * as it was, then every spare is gone, those the event loops keep in their own caches included. SIGQUIT itself
 * stays the JVM's: a thread dump on stdout, the daemon serving on, nothing flushed. The pool with objects to
 * give back is {@code quic_conn_closed}: the daemon refuses QUIC connections ({@code tcp-request connection
 * reject}), each refusal leaves a closing record, freed at its deadline into its loop's cache.
 */
class PoolsFlushTest {
    static TestPki.Issued cert;

    @BeforeAll
    static void pki() {
        cert = new TestPki("pools-ca").leaf("localhost", "127.0.0.1");
    }

    /** A daemon refusing QUIC connections, its admin socket, its port. */
    private record Refusing(Sluice sluice, Path admin, int port) implements AutoCloseable {
        @Override
        public void close() {
            sluice.close();
        }
    }

    private static Refusing start() throws Exception {
        int port = Ports.free();
        Path admin = Files.createTempDirectory("poolsflush").resolve("admin.sock");
        String cfg = """
                global
                    stats socket %1$s level admin
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%2$d
                    bind quic4@127.0.0.1:%2$d ssl crt %3$s alpn h3
                    tcp-request connection reject
                    default_backend be
                backend be
                    server s1 127.0.0.1:1
                """.formatted(admin, port, cert.pem());
        return new Refusing(Sluice.start(Sluice.writeConfig(cfg), List.of(), Map.of(), port), admin, port);
    }

    /** Opens {@code n} QUIC connections (each refused), then waits for their records to be freed; returns the pool's line. */
    private static long[] refuseAndAwaitFreed(Refusing d, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            try (H3Client c = new H3Client(d.port(), 25, 5000)) {
                assertThat(c.closed.get(5, TimeUnit.SECONDS).error()).as("CONNECTION_REFUSED").isEqualTo(0x2);
            } catch (java.util.concurrent.ExecutionException e) {
                // refused before the client saw its handshake done: the record exists all the same
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            long[] line = PoolsTest.pools(d.admin()).get("quic_conn_c");
            boolean closing = AdminClient.run(d.admin(), "show quic all\n").contains(" CLOSE ");
            if (line != null && line[1] > 0 && !closing) {
                return line;
            }
            assertThat(System.nanoTime()).as("records freed").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    @Test
    void flushPoolsAnswersTheDumpThenEverySpareIsGone() throws Exception {
        try (Refusing d = start()) {
            long[] before = refuseAndAwaitFreed(d, 3);
            // [size, allocated, bytes, used, cached, ...]: the freed records wait in the loops' caches (counted as used), or
            // some of them in the shared cache when a loop's cache passed its share
            assertThat(before[0]).isEqualTo(96);
            assertThat(before[1]).isPositive();
            assertThat(before[4]).isPositive().isLessThanOrEqualTo(before[1]);

            assertThat(AdminClient.run(d.admin(), "user;flush pools\n")).contains("Permission denied");
            assertThat(PoolsTest.pools(d.admin()).get("quic_conn_c")[1]).isEqualTo(before[1]);

            String dump = AdminClient.run(d.admin(), "flush pools\n");
            assertThat(dump).startsWith("Dumping pools usage. Use SIGQUIT to flush them.\n")
                    // the split between the loops' caches and the shared one may move between the two reads (a loop whose
                    // cache passed its share gives records back): allocated, bytes and used may not
                    .containsPattern("\n  - Pool quic_conn_c \\(96 bytes\\) : " + before[1] + " allocated \\(" + before[2] + " bytes\\), "
                            + before[3] + " used \\(~\\d+ by thread caches\\)")
                    .containsPattern("\nTotal: \\d+ pools, \\d+ bytes allocated, \\d+ used \\(~\\d+ by thread caches\\)\\.\n\n$");
            long[] after = PoolsTest.pools(d.admin()).get("quic_conn_c");
            assertThat(after[1]).as("allocated").isZero();
            assertThat(after[3]).as("used").isZero();
            assertThat(after[4]).as("cached").isZero();
            // the pool serves again: new records come from the factory
            long[] again = refuseAndAwaitFreed(d, 1);
            assertThat(again[1]).isPositive();
        }
    }

    @Test
    void sigquitIsTheJvmsThreadDumpAndFlushesNothing() throws Exception {
        try (Refusing d = start()) {
            long[] before = refuseAndAwaitFreed(d, 2);
            assertThat(new ProcessBuilder(Program.KILL.require(), "-QUIT", Long.toString(d.sluice().pid())).start().waitFor()).isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!d.sluice().output().contains("Full thread dump")) {
                assertThat(System.nanoTime()).as("thread dump printed:\n" + d.sluice().output()).isLessThan(deadline);
                Thread.sleep(50);
            }
            assertThat(d.sluice().process().isAlive()).isTrue();
            long[] after = PoolsTest.pools(d.admin()).get("quic_conn_c");
            assertThat(after[1]).isEqualTo(before[1]);
            assertThat(AdminClient.run(d.admin(), "show info\n")).contains("Name: ");
        }
    }
}

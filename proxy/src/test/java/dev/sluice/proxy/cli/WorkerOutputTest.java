package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What the master sees of a worker's output while a reload in place runs: whether the worker printed a message itself. */
class WorkerOutputTest {

    @Test
    void aLineThatPassedWhileRecordingIsSeenAndOthersAreAwaitedInVain() throws Exception {
        WorkerOutput out = new WorkerOutput();
        PipedOutputStream worker = new PipedOutputStream();
        PipedInputStream pipe = new PipedInputStream(worker);
        Thread copier = Thread.ofPlatform().start(() -> out.copy(pipe));
        // before recording: not kept
        worker.write("[NOTICE] before\n".getBytes(StandardCharsets.UTF_8));
        worker.flush();
        Thread.sleep(100);
        out.record();
        assertThat(out.awaitLine("[NOTICE] before", 50)).isFalse();
        // a line that comes while the master waits, in two pieces
        Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(100);
                worker.write("x.cfg:1: error: bad\nFatal errors ".getBytes(StandardCharsets.UTF_8));
                worker.flush();
                Thread.sleep(50);
                worker.write("found in configuration.\n".getBytes(StandardCharsets.UTF_8));
                worker.flush();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertThat(out.awaitLine("Fatal errors found in configuration.", 5_000)).isTrue();
        assertThat(out.awaitLine("x.cfg:1: error: bad", 0)).isTrue();
        // a part of a line is not the line
        assertThat(out.awaitLine("errors found in configuration.", 50)).isFalse();
        out.stop();
        assertThat(out.awaitLine("x.cfg:1: error: bad", 0)).isFalse();
        worker.close();
        copier.join(5_000);
        assertThat(copier.isAlive()).isFalse();
    }
}

package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The master's side of a reload in place: the worker's answer read, and the exchange on a UNIX socket. */
class WorkerReloadTest {

    @TempDir
    Path dir;

    @Test
    void successAndFailureCarryTheDiagnostics() {
        assertThat(WorkerReload.read(7, "Success=1\n--\n\n")).isEqualTo(new WorkerReload.Done(true, List.of()));
        assertThat(WorkerReload.read(7, "Success=1\n--\n[WARNING] a.cfg:3: warning: x\n\n"))
                .isEqualTo(new WorkerReload.Done(true, List.of("[WARNING] a.cfg:3: warning: x")));
        assertThat(WorkerReload.read(7, "Success=0\n--\na.cfg:4: error: unknown keyword 'bogus'\nFatal errors found in configuration.\n\n"))
                .isEqualTo(new WorkerReload.Done(false, List.of("a.cfg:4: error: unknown keyword 'bogus'", "Fatal errors found in configuration.")));
        // HAProxy 2.7 leaves the separator out when there is nothing to say
        assertThat(WorkerReload.read(7, "Success=1\n\n")).isEqualTo(new WorkerReload.Done(true, List.of()));
    }

    @Test
    void anOlderWorkerIsToldByItsUnknownCommandAnswer() {
        assertThat(WorkerReload.read(7, "Unknown command, but maybe one of the following ones is a better match:\n  reload ...\n\n"))
                .isEqualTo(new WorkerReload.Unsupported("the worker (7) cannot reload in place"));
        assertThat(WorkerReload.read(7, "Unknown command. Please enter one of the following commands only:\n\n"))
                .isInstanceOf(WorkerReload.Unsupported.class);
    }

    @Test
    void aSettingOnlyANewWorkerAppliesIsUnsupportedInPlace() {
        assertThat(WorkerReload.read(7, "Restart=1\n--\nnbthread 2\ncpu-map\n\n"))
                .isEqualTo(new WorkerReload.Unsupported("the configuration changes nbthread 2, cpu-map, which only a new worker applies"));
        // a worker from before the argument existed
        assertThat(WorkerReload.read(7, "'reload' takes no argument.\n\n")).isInstanceOf(WorkerReload.Unsupported.class);
    }

    @Test
    void anyOtherAnswerIsAFailureWhoseOutcomeIsNotKnown() {
        assertThat(WorkerReload.read(7, "")).isEqualTo(new WorkerReload.Failed("the worker (7) ended its admin session without answering the reload"));
        assertThat(WorkerReload.read(7, "Permission denied\n\n")).isEqualTo(new WorkerReload.Failed("the worker (7) answered the reload with 'Permission denied'"));
    }

    /** A one-session admin socket that reads a line and answers {@code answer} after {@code delayMs}. */
    private CompletableFuture<String> worker(Path socket, String answer, long delayMs) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        return CompletableFuture.supplyAsync(() -> {
            try (server; SocketChannel ch = server.accept()) {
                ByteBuffer in = ByteBuffer.allocate(100);
                while (ch.read(in) >= 0) {
                    // up to the master's end of output
                }
                Thread.sleep(delayMs);
                ch.write(ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)));
                return new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
            } catch (IOException | InterruptedException e) {
                return e.toString();
            }
        });
    }

    @Test
    void theCommandGoesToTheWorkersSocketAndItsAnswerIsAwaited() throws Exception {
        Path socket = dir.resolve("w.sock");
        CompletableFuture<String> got = worker(socket, "Success=0\n--\nbad\n\n", 300);
        assertThat(WorkerReload.request(9, socket, 10_000)).isEqualTo(new WorkerReload.Done(false, List.of("bad")));
        assertThat(got.get()).isEqualTo("reload in-place-only\n");
    }

    @Test
    void aWorkerThatDoesNotAnswerInTimeIsAFailureAndOneThatCannotBeReachedCannotReloadInPlace() throws Exception {
        Path socket = dir.resolve("slow.sock");
        worker(socket, "Success=1\n\n", 2_000);
        assertThat(WorkerReload.request(9, socket, 200)).isEqualTo(new WorkerReload.Failed("the worker (9) did not answer the reload within 200 ms"));
        assertThat(WorkerReload.request(9, dir.resolve("none.sock"), 200)).isInstanceOf(WorkerReload.Unsupported.class);
    }
}

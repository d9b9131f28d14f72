package dev.sluice.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.StatsSocket.Level;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

/** A command answering with a {@link CliStream} ({@code show events -w}): chunks as they come, stopped by any key or the end of input. */
class CliStreamTest {
    /** A stream whose chunks the test hands out one by one. */
    private static final class Chunks implements CliStream {
        final LinkedBlockingQueue<CompletableFuture<String>> asked = new LinkedBlockingQueue<>();
        volatile boolean cancelled;

        @Override
        public CompletionStage<String> next() {
            CompletableFuture<String> f = new CompletableFuture<>();
            asked.add(f);
            return f;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private static EmbeddedChannel channel(Chunks chunks) {
        CliRegistry r = new CliRegistry();
        r.register(new CliCommand(List.of("follow"), Level.USER, "follow", "stream", req -> req.stream(chunks)));
        AdminSockets owner = new AdminSockets(List.of(), 10_000, r);
        return new EmbeddedChannel(new CliConnection(new CliSession(r, Level.ADMIN), owner));
    }

    private static String out(EmbeddedChannel ch) {
        ch.runPendingTasks();
        StringBuilder sb = new StringBuilder();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            sb.append(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return sb.toString();
    }

    @Test
    void chunksUntilAKey() throws Exception {
        Chunks c = new Chunks();
        EmbeddedChannel ch = channel(c);
        ch.writeInbound(Unpooled.copiedBuffer("follow\n", StandardCharsets.US_ASCII));
        c.asked.poll(5, java.util.concurrent.TimeUnit.SECONDS).complete("first\n");
        assertThat(out(ch)).isEqualTo("first\n");
        c.asked.poll(5, java.util.concurrent.TimeUnit.SECONDS).complete("");
        assertThat(out(ch)).isEmpty();
        c.asked.poll(5, java.util.concurrent.TimeUnit.SECONDS).complete("second\n");
        assertThat(out(ch)).isEqualTo("second\n");
        ch.writeInbound(Unpooled.copiedBuffer("\n", StandardCharsets.US_ASCII));
        assertThat(c.cancelled).isTrue();
        // the separator, then a non-interactive session ends
        assertThat(out(ch)).isEqualTo("\n");
        ch.finishAndReleaseAll();
    }

    @Test
    void theEndOfInputStopsTheStream() throws Exception {
        Chunks c = new Chunks();
        EmbeddedChannel ch = channel(c);
        ch.writeInbound(Unpooled.copiedBuffer("follow\n", StandardCharsets.US_ASCII));
        c.asked.poll(5, java.util.concurrent.TimeUnit.SECONDS).complete("dump\n");
        assertThat(out(ch)).isEqualTo("dump\n");
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertThat(c.cancelled).isTrue();
        assertThat(out(ch)).isEqualTo("\n");
        ch.finishAndReleaseAll();
    }

    @Test
    void anEndOfInputBeforeTheFirstChunkWaitsForIt() throws Exception {
        Chunks c = new Chunks();
        EmbeddedChannel ch = channel(c);
        ch.writeInbound(Unpooled.copiedBuffer("follow\n", StandardCharsets.US_ASCII));
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertThat(c.cancelled).isFalse();
        c.asked.poll(5, java.util.concurrent.TimeUnit.SECONDS).complete("what there was\n");
        assertThat(out(ch)).isEqualTo("what there was\n\n");
        assertThat(c.cancelled).isTrue();
        ch.finishAndReleaseAll();
    }
}

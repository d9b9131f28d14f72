package dev.sluice.proxy.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.IntFunction;

/**
 * The event loops of the process, each with a small index. Per-loop state (idle server connections,
 * for instance) lives in arrays indexed by it, so the request path finds its loop's state without a map,
 * a lock or a thread hop. Immutable after construction.
 */
public final class Workers {
    private final EventLoopGroup group;
    private final EventLoop[] loops;

    public Workers(EventLoopGroup group) {
        this.group = group;
        List<EventLoop> l = new ArrayList<>();
        for (EventExecutor e : group) {
            l.add((EventLoop) e);
        }
        this.loops = l.toArray(new EventLoop[0]);
    }

    /**
     * Runs {@code task} on every loop with the loop's index and gathers the results in loop order: how the
     * admin side reads or changes per-loop state (live streams, idle connections) without a lock.
     */
    public <T> CompletableFuture<List<T>> onEachLoop(IntFunction<T> task) {
        @SuppressWarnings("unchecked")
        CompletableFuture<T>[] parts = new CompletableFuture[loops.length];
        for (int i = 0; i < loops.length; i++) {
            int index = i;
            CompletableFuture<T> f = new CompletableFuture<>();
            parts[i] = f;
            try {
                loops[i].execute(() -> {
                    try {
                        f.complete(task.apply(index));
                    } catch (RuntimeException e) {
                        f.completeExceptionally(e);
                    }
                });
            } catch (RejectedExecutionException e) {
                f.completeExceptionally(e);
            }
        }
        return CompletableFuture.allOf(parts).thenApply(v -> {
            List<T> out = new ArrayList<>(parts.length);
            for (CompletableFuture<T> f : parts) {
                out.add(f.join());
            }
            return out;
        });
    }

    public EventLoopGroup group() {
        return group;
    }

    public int count() {
        return loops.length;
    }

    public EventLoop loop(int index) {
        return loops[index];
    }

    /** The index of the loop running the caller, or -1 when it runs on none. */
    public int currentIndex() {
        for (int i = 0; i < loops.length; i++) {
            if (loops[i].inEventLoop()) {
                return i;
            }
        }
        return -1;
    }

    /** The index of a loop of this group; called once per connection, not per request. */
    public int indexOf(EventLoop loop) {
        for (int i = 0; i < loops.length; i++) {
            if (loops[i] == loop) {
                return i;
            }
        }
        throw new IllegalArgumentException("event loop not in this group");
    }
}

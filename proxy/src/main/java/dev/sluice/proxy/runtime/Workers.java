package dev.sluice.proxy.runtime;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;

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

    public EventLoopGroup group() {
        return group;
    }

    public int count() {
        return loops.length;
    }

    public EventLoop loop(int index) {
        return loops[index];
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

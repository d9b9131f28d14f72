package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.stream.Termination.State;

/**
 * A stream in progress as the admin side sees it ({@code show sess}, {@code shutdown session}, {@code shutdown
 * sessions server}, the stats page's server kill): where it comes from and goes, where it is, and how to end it.
 * Registered in its frontend's {@link LiveStreams} while it runs, which keeps its place here (a class rather than an
 * interface, so that the place stays the stream package's). Used on the stream's event loop only.
 */
public abstract class Live {
    /** Position in its loop's {@link LiveStreams} (-1 when not registered); that class's to change. */
    int liveSlot = -1;
    private long id;
    private int epoch;

    /** Registers the stream in {@code live} on loop {@code loop}: it gets its id and epoch. */
    final void register(LiveStreams live, int loop) {
        id = live.add(this, loop);
        epoch = live.epoch();
    }

    /** The id {@code show sess} prints and {@code shutdown session} takes. */
    public final long id() {
        return id;
    }

    /** The {@code show sess} epoch this stream started in. */
    public final int epoch() {
        return epoch;
    }

    public abstract Frontend frontend();

    /** The backend, null until one was chosen. */
    public abstract Backend backend();

    /** The server, null until one was assigned. */
    public abstract Server server();

    /** The client connection's end of this stream. */
    public abstract ClientEnd client();

    /** Epoch milliseconds when the stream started (its request started to arrive). */
    public abstract long startDate();

    /** Where the stream is: the state it would end in now. */
    public abstract State phase();

    /** What {@code show sess} says the stream carries (the request line), or null. */
    public abstract String describe();

    /**
     * {@code shutdown session}: ends the stream at once, both connections closed, logged with HAProxy's "killed"
     * cause ({@code K}). Only on the stream's loop.
     */
    public final void kill() {
        kill(Termination.Cause.KILLED);
    }

    /**
     * Ends the stream at once, both connections closed, logged with {@code why}: {@code K} for the administrator, {@code D}
     * (its server went down) and {@code U} (a server of higher priority came up) for {@code on-marked-down} and
     * {@code on-marked-up}, as HAProxy's stream_shutdown. Only on the stream's loop.
     */
    public abstract void kill(Termination.Cause why);
}

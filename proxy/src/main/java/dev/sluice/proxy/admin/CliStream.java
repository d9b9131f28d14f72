package dev.sluice.proxy.admin;

import java.util.concurrent.CompletionStage;

/**
 * The output of a command that goes on until the client stops it ({@code show events <ring> -w}): the connection
 * writes each chunk as it comes and asks for the next, until a chunk is null, the client sends anything ("any key to
 * stop", as HAProxy) or leaves.
 */
public interface CliStream {
    /**
     * The next output (may be empty), completing on any thread when there is some; null ends the stream. The first one
     * should complete at once with what there is (a client whose input ended gets it, then the end).
     */
    CompletionStage<String> next();

    /** The client stopped the stream or left: no more {@link #next} is asked for. */
    void cancel();
}

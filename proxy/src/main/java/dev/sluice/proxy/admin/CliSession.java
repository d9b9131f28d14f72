package dev.sluice.proxy.admin;

import dev.sluice.config.model.StatsSocket.Level;
import java.util.List;

/**
 * The state of one admin session, apart from its bytes: its level (which may only go down), whether it
 * is interactive and shows a prompt, and whether it asked to quit. {@link #execute} runs one command line
 * and returns what to send back, the answer followed by HAProxy's separator (an empty line, or an empty
 * line and {@code "> "} in prompt mode). One session per connection, used by its event loop only.
 */
public final class CliSession {

    /** How the session reads: one line then close (the default), line after line, or with a prompt. */
    public enum Mode {
        NON_INTERACTIVE, INTERACTIVE, PROMPT
    }

    private final CliRegistry registry;
    private Level level;
    private Mode mode = Mode.NON_INTERACTIVE;
    private boolean quit;
    private boolean noNewline;
    private java.util.concurrent.CompletionStage<String> deferred;

    public CliSession(CliRegistry registry, Level level) {
        this.registry = registry;
        this.level = level;
    }

    public Level level() {
        return level;
    }

    void level(Level l) {
        level = l;
    }

    public Mode mode() {
        return mode;
    }

    void mode(Mode m) {
        mode = m;
    }

    CliRegistry registry() {
        return registry;
    }

    /** Whether the session asked to be closed ({@code quit}). */
    public boolean quit() {
        return quit;
    }

    void requestQuit() {
        quit = true;
    }

    /** {@code operator -} and {@code user -}: no separator after this answer. */
    void suppressNewline() {
        noNewline = true;
    }

    void defer(java.util.concurrent.CompletionStage<String> answer) {
        deferred = answer;
    }

    /**
     * Runs one command line; returns the answer and separator ("" after {@code quit}), or null when the
     * command answers later: {@link #pending} then gives the answer with its separator.
     */
    public String execute(String line) {
        List<String> args = CliLine.words(line);
        String out;
        CliCommand cmd = registry.find(args);
        deferred = null;
        if (cmd == null) {
            out = registry.usage(args, false);
        } else if (!level.allows(cmd.level())) {
            out = CliRequest.PERMISSION_DENIED;
        } else {
            try {
                out = cmd.handler().run(new CliRequest(args, this));
            } catch (RuntimeException e) {
                out = "Internal error.\n";
            }
            if (out == null && deferred != null) {
                return null;
            }
            if (out == null) {
                out = "Internal error.\n";
            }
        }
        return separate(out);
    }

    /** The answer of the command that answered later, with its separator; completes on any thread. */
    public java.util.concurrent.CompletionStage<String> pending() {
        java.util.concurrent.CompletionStage<String> d = deferred;
        deferred = null;
        return d.handle((out, e) -> separate(e != null || out == null ? "Internal error.\n" : out));
    }

    private String separate(String out) {
        if (quit) {
            return "";
        }
        if (mode == Mode.PROMPT) {
            return out + "\n> ";
        }
        if (noNewline) {
            noNewline = false;
            return out;
        }
        return out + "\n";
    }
}

package dev.sluice.proxy.admin;

import dev.sluice.config.model.StatsSocket.Level;
import java.util.List;
import java.util.concurrent.CompletionStage;

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

    /** The commands: read at each command (an in-process reload gives an open session the new configuration's). */
    private final java.util.function.Supplier<CliRegistry> registry;
    private final CliRouter router;
    private Object target;
    private Level level;
    private Mode mode = Mode.NON_INTERACTIVE;
    private boolean quit;
    private boolean noNewline;
    private CompletionStage<String> deferred;
    private CliStream stream;

    public CliSession(CliRegistry registry, Level level) {
        this(registry, level, null);
    }

    /** A session whose commands may be for other processes ({@code router}: the master CLI), else null. */
    public CliSession(CliRegistry registry, Level level, CliRouter router) {
        this(() -> registry, level, router);
    }

    /** A session whose commands are those {@code registry} gives when each command runs. */
    public CliSession(java.util.function.Supplier<CliRegistry> registry, Level level, CliRouter router) {
        this.registry = registry;
        this.level = level;
        this.router = router;
    }

    /** The process the session's commands go to (the router's business; null: this one). */
    public Object target() {
        return target;
    }

    public void target(Object t) {
        target = t;
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
        return registry.get();
    }

    /** Whether the session asked to be closed ({@code quit}). */
    public boolean quit() {
        return quit;
    }

    public void requestQuit() {
        quit = true;
    }

    /** {@code operator -} and {@code user -}: no separator after this answer. */
    void suppressNewline() {
        noNewline = true;
    }

    void defer(CompletionStage<String> answer) {
        deferred = answer;
    }

    void stream(CliStream s) {
        stream = s;
    }

    /** The stream the last command answers with (once), or null. */
    CliStream takeStream() {
        CliStream s = stream;
        stream = null;
        return s;
    }

    /** What follows a stream once it stopped: the separator (or nothing after quit). */
    String afterStream() {
        return separate("");
    }

    /**
     * Runs one command line; returns the answer and separator ("" after {@code quit}), or null when the
     * command answers later: {@link #pending} then gives the answer with its separator.
     */
    public String execute(String line) {
        List<String> args = CliLine.words(line);
        deferred = null;
        if (router != null) {
            CompletionStage<String> routed = router.route(this, line, args);
            if (routed != null) {
                noNewline = true;
                deferred = routed;
                return null;
            }
        }
        String out = run(args);
        return out == null ? null : separate(out);
    }

    /**
     * For a {@link CliRouter}: runs {@code line} in this process whatever the session's target; the answer followed
     * by its empty line, as another process's answer comes.
     */
    public String executeHere(String line) {
        String out = run(CliLine.words(line));
        return (out == null ? "Internal error.\n" : out) + (quit ? "" : "\n");
    }

    /** Runs a command: its answer without separator, or null when it answers later ({@link #pending}). */
    private String run(List<String> args) {
        CliRegistry registry = this.registry.get();
        CliCommand cmd = registry.find(args);
        if (cmd == null) {
            return registry.usage(args, false);
        }
        if (!level.allows(cmd.level())) {
            return CliRequest.PERMISSION_DENIED;
        }
        String out;
        try {
            out = cmd.handler().run(new CliRequest(args, this));
        } catch (RuntimeException e) {
            out = "Internal error.\n";
        }
        if (out == null && (deferred != null || stream != null)) {
            return null;
        }
        return out == null ? "Internal error.\n" : out;
    }

    /** The answer of the command that answered later, with its separator; completes on any thread. */
    public CompletionStage<String> pending() {
        CompletionStage<String> d = deferred;
        deferred = null;
        return d.handle((out, e) -> separate(e != null || out == null ? "Internal error.\n" : out));
    }

    private String separate(String out) {
        if (quit) {
            return "";
        }
        if (mode == Mode.PROMPT) {
            String prompt = (router == null ? "" : router.prompt(this)) + "> ";
            if (router != null && (noNewline || out.isEmpty())) {
                // the master CLI's commands that say nothing (prompt, @1) print the prompt alone, as HAProxy's
                noNewline = false;
                return out + prompt;
            }
            return out + "\n" + prompt;
        }
        if (noNewline) {
            noNewline = false;
            return out;
        }
        return out + "\n";
    }
}

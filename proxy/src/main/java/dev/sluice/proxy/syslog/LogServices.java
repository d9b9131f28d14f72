package dev.sluice.proxy.syslog;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.LogForward;
import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import dev.sluice.proxy.admin.CliStream;
import dev.sluice.proxy.log.LogWriter;
import dev.sluice.proxy.log.Ring;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The rings ({@code buf0} and the {@code ring} sections), their forwarders and the {@code log-forward} listeners of one
 * runtime, and {@code show events}. Built with the runtime, started and stopped beside its admin sockets: an in-process
 * reload builds new ones (the new rings start empty). Thread-safe once started.
 */
public final class LogServices {
    /** HAProxy 2.6's built-in ring, 1 MB, "timed" format (written by traces, which Sluice has not). */
    static final String BUF0 = "buf0";

    private final Map<String, Ring> rings = new LinkedHashMap<>();
    private final List<RingForwarder> forwarders = new ArrayList<>();
    private final List<LogForward> sections;
    private final List<LogForwardListener> listeners = new ArrayList<>();

    /** The rings and listeners of {@code config}; {@code show events} goes into {@code registry}. */
    public LogServices(Config config, CliRegistry registry) {
        this(config);
        register(registry);
    }

    public LogServices(Config config) {
        rings.put(BUF0, new Ring(BUF0, "in-memory ring buffer", LogTarget.Format.TIMED, 1048576, 1048576));
        for (dev.sluice.config.model.Ring r : config.rings()) {
            Ring ring = new Ring(r.name(), r.description(), r.format(), r.maxLen(), r.size());
            rings.put(r.name(), ring);
            for (dev.sluice.config.model.Ring.Server s : r.servers()) {
                forwarders.add(new RingForwarder(ring, s, r.connectTimeoutMs(), r.serverTimeoutMs()));
            }
        }
        this.sections = config.logForwards();
    }

    /** Messages received by the log-forward sections of the process ({@code CumRecvLogs}). */
    public static long received() {
        return LogForwardListener.RECEIVED.sum();
    }

    public Map<String, Ring> rings() {
        return rings;
    }

    /**
     * The runtime's log writer, made when it has none and log-forward sections need one, given the rings (its
     * {@code ring@} targets write there); null when there is none and none is needed.
     */
    public LogWriter writer(LogWriter current) {
        LogWriter w = current == null && !sections.isEmpty() ? new LogWriter() : current;
        if (w != null) {
            w.rings(rings);
        }
        return w;
    }

    /** Binds the log-forward listeners and starts the forwarders; a listener that cannot bind throws. */
    public void start(LogWriter writer) {
        try {
            bind(writer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * For the runtime of an in-process reload: starts beside {@code previous} (the sockets are bound with SO_REUSEPORT),
     * then stops it; a listener that cannot bind is an alert, not a failure.
     */
    public void replace(LogServices previous, LogWriter writer) {
        try {
            bind(writer);
        } catch (IOException e) {
            System.err.println("[ALERT] " + e.getMessage());
        }
        previous.stop();
    }

    private void bind(LogWriter writer) throws IOException {
        if (writer != null) {
            writer.rings(rings);
            for (LogForward f : sections) {
                LogForwardListener l = new LogForwardListener(f, writer);
                l.start();
                listeners.add(l);
            }
        }
        forwarders.forEach(RingForwarder::start);
    }

    public void stop() {
        listeners.forEach(LogForwardListener::stop);
        forwarders.forEach(RingForwarder::stop);
    }

    public void register(CliRegistry registry) {
        registry.register(new CliCommand(List.of("show", "events"), Level.USER, "show events [<sink>] [-w] [-n]",
                "show event sink state", this::showEvents));
    }

    private String showEvents(CliRequest req) {
        String name = req.arg(2);
        if (name.isEmpty()) {
            StringBuilder sb = new StringBuilder("Supported events sinks are listed below. Add -w(wait), -n(new). Any key to stop\n");
            sb.append(String.format("    %-10s : type=fd, %d dropped, %s\n", "stdout", 0, "standard output (fd#1)"));
            sb.append(String.format("    %-10s : type=fd, %d dropped, %s\n", "stderr", 0, "standard output (fd#2)"));
            for (Ring r : rings.values()) {
                sb.append(String.format("    %-10s : type=buffer, %d dropped, %s\n", r.name(), r.dropped(), r.description()));
            }
            return sb.toString();
        }
        if (!req.allowed(Level.OPERATOR)) {
            return CliRequest.PERMISSION_DENIED;
        }
        Ring ring = rings.get(name);
        if (ring == null) {
            if (name.equals("stdout") || name.equals("stderr")) {
                return "Nothing to report for this sink\n";
            }
            // HAProxy's cli_err: no empty line after it
            req.noSeparator();
            return "No such event sink\n";
        }
        boolean wait = false;
        boolean onlyNew = false;
        for (int i = 3; i < req.args().size(); i++) {
            switch (req.arg(i)) {
                case "-w" -> wait = true;
                case "-n" -> onlyNew = true;
                case "-nw", "-wn" -> {
                    wait = true;
                    onlyNew = true;
                }
                default -> {
                    req.noSeparator();
                    return "unknown option\n";
                }
            }
        }
        long from = onlyNew ? ring.next() : ring.oldest();
        if (!wait) {
            return dump(ring, from);
        }
        // -w: what is there, then what comes, until the client sends anything or leaves
        return req.stream(new Follow(ring, from));
    }

    /** {@code show events <ring> -w}: the ring's messages from a position on, as they come. */
    private static final class Follow implements CliStream {
        private final Ring ring;
        private volatile long next;
        private volatile boolean first = true;
        private volatile boolean cancelled;

        Follow(Ring ring, long from) {
            this.ring = ring;
            this.next = from;
        }

        @Override
        public CompletionStage<String> next() {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    // the first chunk is what there is now, even nothing
                    while (!first && !cancelled && !ring.await(ring.start(next), 1000)) {
                        // waiting, a second at a time, for a message or the end
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
                if (cancelled) {
                    return null;
                }
                first = false;
                long from = ring.start(next);
                StringBuilder sb = new StringBuilder();
                List<byte[]> batch = ring.read(from, 1024);
                for (byte[] m : batch) {
                    sb.append(new String(m, StandardCharsets.UTF_8)).append('\n');
                }
                next = from + batch.size();
                return sb.toString();
            }, r -> Thread.ofVirtual().start(r));
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private static String dump(Ring ring, long from) {
        StringBuilder sb = new StringBuilder();
        for (byte[] m : ring.read(from, Integer.MAX_VALUE)) {
            sb.append(new String(m, StandardCharsets.UTF_8)).append('\n');
        }
        return sb.toString();
    }
}

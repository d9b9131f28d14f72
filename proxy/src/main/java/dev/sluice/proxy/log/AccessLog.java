package dev.sluice.proxy.log;

import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.Logging;
import dev.sluice.config.model.Tune;
import dev.sluice.proxy.rules.Network;
import java.net.InetSocketAddress;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The access log of one frontend: its compiled line format, its targets and options. {@link #log} renders
 * on the calling event loop and queues the line. Set up before start, then immutable; shared by the frontend's connections.
 */
public final class AccessLog {
    /** Syslog levels used. */
    public static final int INFO = 6;
    public static final int ERR = 3;

    private final LogLine line;
    private final List<LogTarget> targets;
    private final String tag;
    private final boolean dontLogNull;
    private final boolean separateErrors;
    private final boolean dontLogNormal;
    private final LogWriter writer;
    private final boolean logAsap;
    /** The lines logged so far ({@code %lc}, HAProxy's log_count), counted only when the format shows them. */
    private final AtomicLong lines;
    /** {@code tune.http.logurilen} plus one: a request line is logged up to this minus one bytes. */
    private int requestLineRoom = Tune.DEFAULT_LOG_URI_LEN;

    public AccessLog(Logging logging, LogWriter writer) {
        this.line = logging.format() == null ? null : new LogLine(logging.format(), ZoneId.systemDefault());
        this.logAsap = logging.logAsap();
        this.lines = line != null && line.countsLines() ? new AtomicLong() : null;
        this.targets = logging.targets();
        this.tag = logging.tag();
        this.dontLogNull = logging.dontLogNull();
        this.separateErrors = logging.separateErrors();
        this.dontLogNormal = logging.dontLogNormal();
        this.writer = writer;
    }

    /** {@code tune.http.logurilen} as HAProxy keeps it (plus one for its final NUL); before start. */
    public AccessLog requestLineRoom(int room) {
        this.requestLineRoom = Math.max(1, room);
        return this;
    }

    /** The most bytes of a request line the log keeps ({@code tune.http.logurilen}, 1023 by default). */
    public int requestLineLimit() {
        return requestLineRoom - 1;
    }

    /** Whether request lines are logged (a format is set); otherwise only connections are. */
    public boolean logsRequests() {
        return line != null;
    }

    /** {@code option dontlognull}: a connection that carried no request is not logged. */
    public boolean dontLogNull() {
        return dontLogNull;
    }

    /** {@code option logasap}: log when the response head is sent. */
    public boolean logAsap() {
        return logAsap;
    }

    public void log(LogEvent e) {
        if (line == null) {
            return;
        }
        if (dontLogNormal && !e.error) {
            return;
        }
        int set = e.captures == null ? -1 : e.captures.level();
        if (set == LogCaptures.SILENT) {
            return;
        }
        if (lines != null) {
            e.logCounter = lines.getAndIncrement();
        }
        String msg = line.render(e);
        int level = set >= 0 ? set : separateErrors && e.error ? ERR : INFO;
        for (LogTarget t : targets) {
            writer.submit(t, tag, level, msg);
        }
    }

    /**
     * A connection that failed before carrying a request (a TLS handshake error), in HAProxy's form:
     * {@code 127.0.0.1:40000 [02/Dec/2026:14:50:11.329] fe/1: SSL handshake failure}. {@code empty}: the
     * client left without a byte or with an error, which {@code option dontlognull} does not log.
     */
    public void logConnectionError(InetSocketAddress client, long acceptDate, String frontend, String bind, String message,
            boolean empty) {
        if (empty && dontLogNull) {
            return;
        }
        StringBuilder sb = new StringBuilder(96);
        sb.append(Network.host(client)).append(':').append(client.getPort()).append(" [");
        LogLine.date(sb, acceptDate, ZoneId.systemDefault());
        sb.append("] ").append(frontend).append('/').append(bind).append(": ").append(message);
        String msg = sb.toString();
        int level = separateErrors ? ERR : INFO;
        for (LogTarget t : targets) {
            writer.submit(t, tag, level, msg);
        }
    }

    /**
     * HAProxy's default log line when no format is set: one line per accepted connection, naming the frontend's mode
     * ({@code http} false: {@code /TCP}).
     */
    public void logConnect(InetSocketAddress client, InetSocketAddress local, String frontend, boolean http) {
        if (line != null) {
            return;
        }
        // a client on a UNIX socket: only the listener is known (its id is the placeholder address's port)
        String msg = client.getAddress() == null ? "Connect to unix:" + client.getPort() + " (" + frontend + (http ? "/HTTP)" : "/TCP)")
                : "Connect from " + Network.host(client) + ":" + client.getPort() + " to "
                + Network.host(local) + ":" + local.getPort() + " (" + frontend + (http ? "/HTTP)" : "/TCP)");
        for (LogTarget t : targets) {
            writer.submit(t, tag, INFO, msg);
        }
    }
}

package dev.sluice.proxy.runtime;

import dev.sluice.config.model.LogTarget;
import dev.sluice.proxy.backend.ServerEvents;
import dev.sluice.proxy.check.EmailAlerts;
import dev.sluice.proxy.log.LogWriter;
import java.util.List;

/**
 * A backend's {@link ServerEvents}: its log targets ({@code log} lines, {@code log global}) and, unless the process
 * runs quiet, the console, where HAProxy prints transitions as warnings ({@code [WARNING]  (pid) : Server be/s1 is
 * DOWN...}) and the loss of every server as an alert. Both go through the log writer's queue, so an event loop never
 * waits for stderr; the transitions HAProxy mails go to the backend's {@link EmailAlerts} too. Immutable.
 */
final class ServerEventLog implements ServerEvents {
    /** The console: stderr, every level, raw (the prefix is written with the message). */
    private static final LogTarget CONSOLE = new LogTarget(null, LogTarget.Kind.STDERR, null, 0, 65536, LogTarget.Format.RAW, 16, 7, 0);
    private static final long PID = ProcessHandle.current().pid();

    private final LogWriter writer;
    private final List<LogTarget> targets;
    private final String tag;
    private final boolean console;
    /** The backend's {@code email-alert}s, null when none. */
    private final EmailAlerts mail;

    ServerEventLog(LogWriter writer, List<LogTarget> targets, String tag, boolean console, EmailAlerts mail) {
        this.writer = writer;
        this.targets = List.copyOf(targets);
        this.tag = tag;
        this.console = console;
        this.mail = mail;
    }

    /** The same without the console ({@code -q}). */
    ServerEventLog quiet() {
        return new ServerEventLog(writer, targets, tag, false, mail);
    }

    @Override
    public void report(int level, String message, String consoleMessage, int mailLevel) {
        report(level, message, consoleMessage);
        if (mail != null && mailLevel >= 0) {
            mail.send(mailLevel, message.endsWith(".") ? message.substring(0, message.length() - 1) : message);
        }
    }

    @Override
    public void logOnly(int level, String message) {
        for (LogTarget t : targets) {
            writer.submit(t, tag, level, message);
        }
    }

    @Override
    public void report(int level, String message, String consoleMessage) {
        for (LogTarget t : targets) {
            writer.submit(t, tag, level, message);
        }
        if (console) {
            String prefix = level == EMERG ? "[ALERT]    (" : "[WARNING]  (";
            writer.submit(CONSOLE, tag, level, prefix + PID + ") : " + (consoleMessage != null ? consoleMessage : message));
        }
    }
}

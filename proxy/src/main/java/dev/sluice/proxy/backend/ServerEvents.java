package dev.sluice.proxy.backend;

/**
 * Where a backend reports its servers' state changes and its own loss of every server: HAProxy's notices and alerts
 * ({@code Server be/s1 is DOWN, reason: ...}, {@code backend be has no server available!}), which go to the
 * backend's log targets and to the console. {@code console} is the console's wording when it differs (HAProxy quotes
 * the backend name there), else null. Implementations never block: they are called on event loops.
 */
public interface ServerEvents {
    /** Syslog levels used. */
    int EMERG = 0;
    int ALERT = 1;
    int WARNING = 4;
    int NOTICE = 5;
    int INFO = 6;

    ServerEvents NONE = (level, message, console) -> {
    };

    void report(int level, String message, String console);

    /**
     * A line HAProxy also mails (send_email_alert: a server DOWN, UP or entering drain, a check's line of
     * {@code option log-health-checks}): reported as {@link #report}, and mailed at {@code mailLevel} (the message
     * without its final period) when the proxy has email alerts at that level.
     */
    default void report(int level, String message, String console, int mailLevel) {
        report(level, message, console);
    }

    /** A line for the log targets only, not the console (HAProxy's send_log without ha_warning). */
    default void logOnly(int level, String message) {
        report(level, message, null);
    }

    /**
     * HAProxy's tail of a server transition: {@code . 1 active and 0 backup servers left. Running on backup. 0 sessions
     * active, 0 requeued, 0 remaining in queue} going down, {@code . 1 active and 0 backup servers online. 0 sessions
     * requeued, 0 total in queue} going up. Counts are taken now, after the change.
     */
    static String tail(Server s, boolean down, int requeued) {
        Backend be = s.backend();
        int act = 0;
        int bck = 0;
        for (Server o : be.servers()) {
            if (o.usable()) {
                if (o.backup()) {
                    bck++;
                } else {
                    act++;
                }
            }
        }
        String onBackup = bck > 0 && act == 0 ? " Running on backup." : "";
        if (down) {
            return ". " + act + " active and " + bck + " backup servers left." + onBackup + " " + s.currentSessions() + " sessions active, "
                    + requeued + " requeued, " + s.queue().length() + " remaining in queue";
        }
        return ". " + act + " active and " + bck + " backup servers online." + onBackup + " " + requeued + " sessions requeued, "
                + s.queue().length() + " total in queue";
    }

    /** {@code Server be/s} or {@code Backup Server be/s}, as HAProxy starts its transition lines. */
    static String name(Server s) {
        return (s.backup() ? "Backup " : "") + "Server " + s.backend().name() + "/" + s.name();
    }
}

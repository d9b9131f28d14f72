package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.Locale;

/**
 * One {@code stats socket} line of the global section: where the admin socket listens (a UNIX path, an
 * IP address and port, or an inherited file descriptor), the permission bits of a UNIX socket
 * ({@code mode}, -1 when not set), the owner to give it ({@code user}/{@code uid}, {@code group}/{@code gid},
 * null when not set; numeric for uid/gid), the access level of its sessions, and whether its sessions may take the
 * process's listening sockets ({@code expose-fd listeners}: the {@code _getsocks} command a new process started with
 * {@code -x} sends).
 */
public record StatsSocket(SourceRef where, ListenAddress address, int mode, Level level, String owner, String group, boolean exposeFd) {

    public StatsSocket(SourceRef where, ListenAddress address, int mode, Level level, String owner, String group) {
        this(where, address, mode, level, owner, group, false);
    }

    /** The socket address as written in the configuration. */
    public String describe() {
        return address instanceof ListenAddress.Unix u ? u.path() : address.toString();
    }

    /** HAProxy's CLI access levels, weakest first: a session may only lower its level. */
    public enum Level {
        USER, OPERATOR, ADMIN;

        public String keyword() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Whether this level may run a command needing {@code required}. */
        public boolean allows(Level required) {
            return compareTo(required) >= 0;
        }
    }
}

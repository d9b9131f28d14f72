package dev.sluice.config.model;

/**
 * The socket options of a TCP {@code bind} line: {@code name} (what logs and stats call the listener,
 * null: its number), {@code id} (-1: automatic), {@code backlog} (0: the frontend's), {@code defer-accept},
 * {@code tfo}, {@code transparent}, {@code v4v6}/{@code v6only} (an IPv6 socket that takes IPv4 too, or only
 * IPv6; both false: the system's default), {@code mss} and {@code tcp-ut} (0: unset), {@code interface}
 * (null: any); {@code unix}: the file mode and owner of a UNIX socket's file (its {@code mode}, {@code user}, {@code group},
 * {@code uid}, {@code gid}, with the global {@code unix-bind}'s as defaults).
 */
public record BindSocket(String name, int id, int backlog, boolean deferAccept, boolean fastOpen, boolean transparent, boolean v4v6,
        boolean v6only, int mss, long userTimeoutMs, String iface, UnixPerms unix) {

    public static final BindSocket DEFAULT = new BindSocket(null, -1, 0, false, false, false, false, false, 0, 0, null);

    public BindSocket(String name, int id, int backlog, boolean deferAccept, boolean fastOpen, boolean transparent, boolean v4v6,
            boolean v6only, int mss, long userTimeoutMs, String iface) {
        this(name, id, backlog, deferAccept, fastOpen, transparent, v4v6, v6only, mss, userTimeoutMs, iface, UnixPerms.NONE);
    }

    /** With the UNIX socket file's mode and owner replaced. */
    public BindSocket withUnix(UnixPerms u) {
        return new BindSocket(name, id, backlog, deferAccept, fastOpen, transparent, v4v6, v6only, mss, userTimeoutMs, iface, u);
    }

    /** Whether an option needs the epoll transport (setsockopt calls NIO does not offer). */
    public boolean needsEpoll() {
        return deferAccept || fastOpen || transparent || v4v6 || v6only || mss > 0 || userTimeoutMs > 0 || iface != null;
    }
}

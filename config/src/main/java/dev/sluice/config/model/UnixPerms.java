package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * What a listening UNIX socket's file is given after its bind, as HAProxy's {@code mode}, {@code uid}/{@code user} and
 * {@code gid}/{@code group} bind options (defaults from the global {@code unix-bind}): {@code mode} the permission bits
 * (0: left as the umask made them), {@code uid} and {@code gid} the owner (-1: unchanged). Abstract sockets have no file.
 * A {@code user} or {@code group} given by name is kept as written ({@code user}, {@code group}; null: none, or the
 * number was given last): the daemon resolves it with the C library (NSS: files, LDAP, systemd-userdb...) when it reads
 * the configuration, and reports an unknown name at its line.
 */
public record UnixPerms(int mode, int uid, int gid, Name user, Name group) {
    public static final UnixPerms NONE = new UnixPerms(0, -1, -1);

    /**
     * A user or group name as written, the line that gave it ({@code at}) and how HAProxy's messages name that line
     * when it is a bind ({@code bind}: {@code 'bind /run/a.sock' in section 'frontend'}; null: the global
     * {@code unix-bind}).
     */
    public record Name(String name, SourceRef at, String bind) {
    }

    public UnixPerms(int mode, int uid, int gid) {
        this(mode, uid, gid, null, null);
    }

    public UnixPerms withMode(int m) {
        return new UnixPerms(m, uid, gid, user, group);
    }

    /** A number given after a name replaces it, as a name given after a number. */
    public UnixPerms withUid(int u) {
        return new UnixPerms(mode, u, gid, null, group);
    }

    public UnixPerms withGid(int g) {
        return new UnixPerms(mode, uid, g, user, null);
    }

    public UnixPerms withUser(Name n) {
        return new UnixPerms(mode, -1, gid, n, group);
    }

    public UnixPerms withGroup(Name n) {
        return new UnixPerms(mode, uid, -1, user, n);
    }

    /** Whether a name is left to resolve. */
    public boolean hasNames() {
        return user != null || group != null;
    }

    /** With the names replaced by the ids they stand for. */
    public UnixPerms resolved(int userId, int groupId) {
        return new UnixPerms(mode, user != null ? userId : uid, group != null ? groupId : gid, null, null);
    }
}

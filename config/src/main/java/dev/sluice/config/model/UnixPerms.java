package dev.sluice.config.model;

/**
 * What a listening UNIX socket's file is given after its bind, as HAProxy's {@code mode}, {@code uid}/{@code user} and
 * {@code gid}/{@code group} bind options (defaults from the global {@code unix-bind}): {@code mode} the permission bits
 * (0: left as the umask made them), {@code uid} and {@code gid} the owner (-1: unchanged). Abstract sockets have no file.
 */
public record UnixPerms(int mode, int uid, int gid) {
    public static final UnixPerms NONE = new UnixPerms(0, -1, -1);

    public UnixPerms withMode(int m) {
        return new UnixPerms(m, uid, gid);
    }

    public UnixPerms withUid(int u) {
        return new UnixPerms(mode, u, gid);
    }

    public UnixPerms withGid(int g) {
        return new UnixPerms(mode, uid, g);
    }
}

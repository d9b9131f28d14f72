package dev.sluice.proxy.listener;

import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/** The {@code mode} of a UNIX socket file (octal in the configuration: binds and stats sockets) as permission bits. */
public final class UnixModes {
    private static final PosixFilePermission[] ORDER = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
        PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};

    private UnixModes() {
    }

    /** The permission bits of {@code mode}. */
    public static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> p = EnumSet.noneOf(PosixFilePermission.class);
        for (int i = 0; i < ORDER.length; i++) {
            if ((mode & (1 << i)) != 0) {
                p.add(ORDER[i]);
            }
        }
        return p;
    }
}

package dev.sluice.proxy.admin;

import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.proxy.listener.UnixModes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.UserPrincipalLookupService;

/**
 * The file of a UNIX stats socket, as HAProxy makes it: bound under a temporary name, given its {@code mode},
 * {@code user} and {@code group}, then renamed over the configured path, so a client never finds a socket with the
 * wrong rights. Used by the admin sockets (on Netty) and the master CLI (on the JDK's channels); no Netty here.
 */
public final class UnixSocketFiles {
    private UnixSocketFiles() {
    }

    /**
     * Gives the socket bound at {@code tmp} its mode and owner, then renames it over the configured path; on failure
     * runs {@code close} (the bound socket), removes the temporary name and throws HAProxy's message.
     */
    public static void publish(StatsSocket s, Path tmp, Runnable close) {
        Path path = Path.of(((ListenAddress.Unix) s.address()).path());
        try {
            if (s.mode() >= 0) {
                Files.setPosixFilePermissions(tmp, UnixModes.permissions(s.mode()));
            }
            if ((s.owner() != null || s.group() != null) && isRoot()) {
                UserPrincipalLookupService users = tmp.getFileSystem().getUserPrincipalLookupService();
                if (s.owner() != null) {
                    if (s.owner().chars().allMatch(Character::isDigit)) {
                        Files.setAttribute(tmp, "unix:uid", Integer.parseInt(s.owner()));
                    } else {
                        Files.setOwner(tmp, users.lookupPrincipalByName(s.owner()));
                    }
                }
                if (s.group() != null) {
                    if (s.group().chars().allMatch(Character::isDigit)) {
                        Files.setAttribute(tmp, "unix:gid", Integer.parseInt(s.group()));
                    } else {
                        Files.setAttribute(tmp, "posix:group", users.lookupPrincipalByGroupName(s.group()));
                    }
                }
            }
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            close.run();
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the bind already failed; the temporary name is left behind
            }
            throw new IllegalStateException("Binding [" + s.where() + "] for frontend GLOBAL: cannot set up UNIX socket (" + e.getMessage()
                    + ") [" + path + "]");
        }
    }

    /** Whether the process runs as root (user and group of a UNIX socket only apply then). */
    public static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}

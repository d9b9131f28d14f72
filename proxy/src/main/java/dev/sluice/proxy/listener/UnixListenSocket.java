package dev.sluice.proxy.listener;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.UnixPerms;
import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The listening socket of a {@code bind} on a UNIX socket, made as HAProxy 2.6's {@code sock_unix_bind_receiver} makes it.
 * A path is bound under a temporary name beside it ({@code <path>.<pid>.tmp}), given the bind's {@code mode} and owner,
 * then renamed over the path: a socket file left by an earlier process (or a reloading one's) is replaced at once, and
 * a client never finds the socket with the wrong rights. An abstract name ({@code abns@}) has no file: it is bound with
 * HAProxy's padded address ({@link dev.sluice.proxy.transport.AbstractSockets}). Stopping leaves the file, as HAProxy
 * does (a new process may own the path by then). One per start of a listener, on the starting thread.
 */
final class UnixListenSocket {
    private final Bind bind;
    private final String frontend;
    private final Transport transport;
    private final int backlog;
    private Path tmp;

    UnixListenSocket(Bind bind, String frontend, Transport transport, int backlog) {
        this.bind = bind;
        this.frontend = frontend;
        this.transport = transport;
        this.backlog = backlog;
    }

    /** Binds (or registers the bound abstract socket); the caller waits for the future. */
    ChannelFuture start(ServerBootstrap b) {
        if (bind.address() instanceof ListenAddress.Abstract a) {
            io.netty.channel.ServerChannel ch;
            try {
                ch = transport.listenAbstract(a.name(), backlog);
            } catch (IOException e) {
                throw failure(e);
            }
            b.channelFactory(() -> ch);
            return b.register();
        }
        String path = ((ListenAddress.Unix) bind.address()).path();
        tmp = Path.of(path + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            Files.deleteIfExists(tmp);
        } catch (IOException e) {
            throw new IllegalStateException(prefix() + "error when trying to unlink previous UNIX socket (" + reason(e) + ") [" + path + "]");
        }
        b.channelFactory(() -> (io.netty.channel.ServerChannel) transport.newDomainServerChannel());
        return b.bind(transport.domainAddress(tmp.toString()));
    }

    /** Gives the bound socket its mode and owner and renames it over the path (nothing for an abstract name). */
    void publish(Channel ch) {
        if (tmp == null) {
            return;
        }
        String path = ((ListenAddress.Unix) bind.address()).path();
        UnixPerms p = bind.socket().unix();
        String step = "cannot change UNIX socket ownership";
        try {
            if (p.uid() != -1 || p.gid() != -1) {
                if (p.uid() != -1) {
                    Files.setAttribute(tmp, "unix:uid", p.uid());
                }
                if (p.gid() != -1) {
                    Files.setAttribute(tmp, "unix:gid", p.gid());
                }
            }
            if (p.mode() != 0) {
                Files.setPosixFilePermissions(tmp, UnixModes.permissions(p.mode()));
            }
            step = "cannot switch final and temporary UNIX sockets";
            Files.move(tmp, Path.of(path), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            ch.close().awaitUninterruptibly();
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the bind failed already; the temporary name stays
            }
            throw new IllegalStateException(prefix() + step + " (" + reason(e) + ") [" + path + "]");
        }
    }

    /** HAProxy's message for a socket that could not be bound. */
    IllegalStateException failure(Throwable cause) {
        String why = reason(cause);
        if (why.contains("Address already in use")) {
            why = "already in use";
        }
        String where = bind.address() instanceof ListenAddress.Unix u ? u.path() : "";
        return new IllegalStateException(prefix() + "cannot bind UNIX socket (" + why + ") [" + where + "]");
    }

    private String prefix() {
        return "Binding [" + bind.where() + "] for frontend " + frontend + ": ";
    }

    /** The system's words: native errors read "bind(..) failed with error(-2): No such file or directory". */
    private static String reason(Throwable e) {
        String why = e == null || e.getMessage() == null ? "unknown error" : e.getMessage();
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            // "Operation not permitted" for a chown by a user other than root, as strerror says it
            return f.getReason();
        }
        if (why.contains("failed") && why.lastIndexOf(": ") >= 0) {
            why = why.substring(why.lastIndexOf(": ") + 2);
        }
        return why;
    }

}

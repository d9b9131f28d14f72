package dev.sluice.proxy.cli;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.proxy.admin.CliSession;
import dev.sluice.proxy.admin.UnixSocketFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * The master CLI's listening socket on the JDK's own channels: the master runs no Netty (no event loop, native
 * transport or buffer pool) for a socket that sees a few commands a day. Bound as the workers' {@code AdminSockets}
 * binds a {@code stats socket} (a UNIX socket under a temporary name, given its mode and owner, then renamed over its
 * path; an IP address with {@code SO_REUSEADDR}), with the same messages when it cannot be. One thread accepts; each
 * session runs on a thread of its own ({@link MasterCliSession}). An inherited socket ({@code fd@<n>}), which the JDK
 * cannot adopt, is not served here (see {@link MasterCli}).
 */
final class MasterCliSocket {
    private final ServerSocketChannel server;
    private final Thread acceptor;

    private MasterCliSocket(ServerSocketChannel server, Supplier<CliSession> sessions, long timeoutMs) {
        this.server = server;
        this.acceptor = Thread.ofPlatform().daemon().stackSize(Master.STACK).name("sluice-master-cli").unstarted(() -> accept(sessions, timeoutMs));
    }

    /** Binds {@code s} (a UNIX path or an IP address); throws {@link IllegalStateException} in HAProxy's words when it cannot. */
    static MasterCliSocket bind(StatsSocket s, Supplier<CliSession> sessions, long timeoutMs) {
        String what = "Binding [" + s.where() + "] for frontend GLOBAL: ";
        ServerSocketChannel server = null;
        Path tmp = null;
        try {
            if (s.address() instanceof ListenAddress.Unix) {
                tmp = Path.of(((ListenAddress.Unix) s.address()).path() + "." + ProcessHandle.current().pid() + ".tmp");
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    throw new IllegalStateException(what + "cannot remove the stale temporary socket (" + e.getMessage() + ") [" + tmp + "]");
                }
                server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                server.bind(UnixDomainSocketAddress.of(tmp));
            } else {
                ListenAddress.Inet inet = (ListenAddress.Inet) s.address();
                InetSocketAddress sa = inet.host().isEmpty() ? new InetSocketAddress(inet.port())
                        : new InetSocketAddress(Addresses.literal(inet.host()), inet.port());
                server = ServerSocketChannel.open();
                server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                server.bind(sa);
            }
        } catch (IOException | RuntimeException e) {
            close(server);
            if (e instanceof IllegalStateException ise) {
                throw ise;
            }
            String why = e.getMessage() == null ? "unknown error" : e.getMessage();
            String kind = s.address() instanceof ListenAddress.Unix ? "UNIX socket" : "socket";
            throw new IllegalStateException(what + "cannot bind " + kind + " (" + why + ") [" + s.describe() + "]");
        }
        if (tmp != null) {
            ServerSocketChannel bound = server;
            UnixSocketFiles.publish(s, tmp, () -> close(bound));
        }
        MasterCliSocket m = new MasterCliSocket(server, sessions, timeoutMs);
        m.acceptor.start();
        return m;
    }

    private void accept(Supplier<CliSession> sessions, long timeoutMs) {
        while (true) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                // out of file descriptors and the like: the next one may do
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    return;
                }
                continue;
            }
            Thread.ofPlatform().daemon().stackSize(Master.STACK).name("sluice-master-cli-session")
                    .start(new MasterCliSession(ch, sessions.get(), timeoutMs));
        }
    }

    private static void close(ServerSocketChannel server) {
        if (server != null) {
            try {
                server.close();
            } catch (IOException e) {
                // closing a socket that failed
            }
        }
    }

    /** Stops accepting; open sessions end by themselves. The UNIX path stays (a new master may own it). */
    void close() {
        close(server);
    }
}

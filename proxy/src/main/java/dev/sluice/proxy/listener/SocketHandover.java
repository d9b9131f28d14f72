package dev.sluice.proxy.listener;

import dev.sluice.config.model.ListenAddress;
import io.netty.channel.Channel;
import io.netty.channel.unix.UnixChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * Listening sockets passed from an old process to a new one, as HAProxy 2.6 does it: the new process ({@code -x
 * <socket>}) connects to the old one's admin socket, sends {@code _getsocks}, and receives every listening socket's
 * descriptor ({@code SCM_RIGHTS}) with the names of its interface and namespace ({@link GetsocksFormat}); a listener
 * whose {@code bind} matches one accepts from it instead of binding its own ({@link Listener#useReceivedSocket}). The
 * old process then closes its copy when it stops: the socket, and the connections waiting in its accept queue, live
 * on in the new process, where a socket bound beside it would have left them to be reset. Either side may be HAProxy
 * 2.6. The calls block: {@link #fetch} runs on the main thread at start-up, each wait bounded by {@link #FETCH_TIMEOUT_MS};
 * {@link #send} on a thread of its own, the admin connection taken off its event loop (two {@code sendmsg} calls for up to
 * 252 listeners, a wait of at most {@link #TIMEOUT_MS} for an acknowledgement after each 252, as HAProxy's).
 */
public final class SocketHandover {
    private SocketHandover() {
    }

    /** HAProxy's receive timeout on both sides; the sender's here. */
    public static final long TIMEOUT_MS = 1000;
    /**
     * How long the new process waits for each answer of the old one. HAProxy's second was too short for a loaded old
     * process on a loaded machine (2 cores, a churn of connections and a JVM starting beside it: the answer came after
     * more than a second, and the new process gave up); a busy process answers, a hung one costs a reload 5 s more.
     */
    public static final long FETCH_TIMEOUT_MS = 5000;
    private static final byte[] COMMAND = "_getsocks\n".getBytes(StandardCharsets.US_ASCII);

    /** Why the sockets could not be passed, in HAProxy's words. */
    public static final class Failure extends Exception {
        Failure(String message) {
            super(message);
        }
    }

    /** A socket this process offers: its descriptor and the names sent beside it (empty: none). */
    public record Exported(int fd, String namespace, String iface) {
    }

    /** The listeners of the process's running configuration, for {@code _getsocks}; null: none offered. */
    private static volatile Supplier<List<Listener>> processListeners;

    /**
     * Where the process's admin sockets find the listeners to offer ({@code _getsocks}): those of the configuration
     * running when the command comes, an in-process reload having perhaps replaced the first. Set once, at start-up.
     */
    public static void offer(Supplier<List<Listener>> listeners) {
        processListeners = listeners;
    }

    /** What {@link #offer} set: the sockets to send now ({@link #exportable}), null when nothing was set. */
    public static List<Exported> offered() {
        Supplier<List<Listener>> s = processListeners;
        return s == null ? null : exportable(s.get());
    }

    /**
     * The frontends' listening sockets this process can hand over: open epoll sockets it bound or received, not those
     * inherited from its parent ({@code fd@<n>}: a new process inherits them the same way), as HAProxy exports them.
     */
    public static List<Exported> exportable(List<Listener> listeners) {
        List<Exported> out = new ArrayList<>();
        for (Listener l : listeners) {
            Channel ch = l.channel();
            if (ch instanceof UnixChannel u && ch.isOpen() && !(l.bind().address() instanceof ListenAddress.InheritedFd)) {
                String iface = l.bind().socket().iface();
                out.add(new Exported(u.fd().intValue(), "", iface == null ? "" : iface));
            }
        }
        return out;
    }

    /** Links what {@link #fetch} calls ahead of time, from a thread of its own while the configuration is read. */
    public static void prepareFetch() {
        PassingCalls.prepareFetch();
    }

    /**
     * Links what {@link #send} calls ahead of time, from a thread of its own: a process that may be asked answers at
     * once (the first answer took 0.2 s more without: the time the next process waits).
     */
    public static void prepareSend() {
        PassingCalls.prepareSend();
    }

    /** The descriptor of a connection's socket, -1 when its transport does not expose one (NIO). */
    public static int descriptor(Channel ch) {
        return ch instanceof UnixChannel u && ch.isOpen() ? u.fd().intValue() : -1;
    }

    /** Asks the process behind the UNIX socket {@code path} for its listening sockets ({@code _getsocks}). */
    public static ReceivedSockets fetch(String path) throws Failure {
        int sock;
        try {
            sock = PassingCalls.connectUnix(path, FETCH_TIMEOUT_MS);
        } catch (PassingCalls.Failure e) {
            throw new Failure("Failed to connect to the old process socket '" + path + "'");
        }
        List<Integer> fds = new ArrayList<>();
        boolean ok = false;
        try {
            int n = count(sock);
            if (n == 0) {
                ok = true;
                return new ReceivedSockets(List.of());
            }
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            while (fds.size() < n) {
                PassingCalls.Received m;
                try {
                    m = PassingCalls.receive(sock, GetsocksFormat.MAX_FDS * GetsocksFormat.MAX_ENTRY, GetsocksFormat.MAX_FDS + 1, false);
                } catch (PassingCalls.Failure e) {
                    // a timeout or a reset: counted below
                    break;
                }
                Arrays.stream(m.fds()).forEach(fds::add);
                if (m.data().length == 0) {
                    break;
                }
                try {
                    // the sender waits for it after each full message
                    PassingCalls.sendAll(sock, GetsocksFormat.count(fds.size()));
                } catch (PassingCalls.Failure e) {
                    // the sender closed after its last message: nothing more to acknowledge
                }
                if (fds.size() > n) {
                    throw new Failure("Got to many sockets !");
                }
                data.writeBytes(m.data());
            }
            if (fds.size() != n) {
                throw new Failure("We didn't get the expected number of sockets (expecting " + n + " got " + fds.size() + ")");
            }
            List<GetsocksFormat.Names> names;
            try {
                names = GetsocksFormat.parse(data.toByteArray(), n);
            } catch (IllegalArgumentException e) {
                throw new Failure(e.getMessage());
            }
            List<ReceivedSocket> sockets = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int fd = fds.get(i);
                try {
                    sockets.add(PassingCalls.describe(fd, names.get(i).namespace(), names.get(i).iface()));
                } catch (PassingCalls.Failure e) {
                    // HAProxy skips it too ("Failed to get socket address")
                    PassingCalls.close(fd);
                }
            }
            ok = true;
            return new ReceivedSockets(sockets);
        } finally {
            PassingCalls.close(sock);
            if (!ok) {
                fds.forEach(PassingCalls::close);
            }
        }
    }

    /** Sends the command and reads the number of sockets to come. */
    private static int count(int sock) throws Failure {
        String failed = "Failed to get the number of sockets to be transferred !";
        try {
            PassingCalls.sendAll(sock, COMMAND);
            PassingCalls.Received r = PassingCalls.receive(sock, 4, 1, true);
            Arrays.stream(r.fds()).forEach(PassingCalls::close);
            if (r.data().length != 4) {
                // an old process without 'expose-fd listeners' on that socket closes the connection without a word
                throw new Failure(failed);
            }
            int n = GetsocksFormat.count(r.data());
            if (n < 0 || n > 1 << 20) {
                throw new Failure(failed);
            }
            return n;
        } catch (PassingCalls.Failure e) {
            throw new Failure(failed);
        }
    }

    /**
     * Answers {@code _getsocks} on the connection socket {@code conn}, made blocking for the time of the call: the count,
     * then the sockets. Nothing is sent when there is none, as HAProxy (the new process reads the end of the stream).
     */
    public static void send(int conn, List<Exported> sockets) throws Failure {
        if (sockets.isEmpty()) {
            return;
        }
        int flags;
        try {
            flags = PassingCalls.blocking(conn, true);
        } catch (PassingCalls.Failure e) {
            throw new Failure("Cannot make the unix socket blocking");
        }
        try {
            PassingCalls.timeouts(conn, TIMEOUT_MS, true);
            if (PassingCalls.sendWithFds(conn, GetsocksFormat.count(sockets.size()), new int[0]) != 4) {
                throw new Failure("Failed to send the number of sockets to send");
            }
            for (int from = 0; from < sockets.size(); from += GetsocksFormat.MAX_FDS) {
                List<Exported> batch = sockets.subList(from, Math.min(sockets.size(), from + GetsocksFormat.MAX_FDS));
                byte[] entries = GetsocksFormat.entries(batch.stream().map(e -> new GetsocksFormat.Names(e.namespace(), e.iface())).toList());
                int[] fds = batch.stream().mapToInt(Exported::fd).toArray();
                if (PassingCalls.sendWithFds(conn, entries, fds) != entries.length) {
                    throw new Failure("Failed to transfer sockets");
                }
                if (batch.size() == GetsocksFormat.MAX_FDS && PassingCalls.recv(conn, new byte[4], true) <= 0) {
                    throw new Failure("Unexpected error while transferring sockets");
                }
            }
        } catch (PassingCalls.Failure e) {
            throw new Failure("Failed to transfer sockets (" + e.getMessage() + ")");
        } finally {
            try {
                PassingCalls.restoreFlags(conn, flags);
            } catch (PassingCalls.Failure e) {
                // the connection closes next
            }
        }
    }
}

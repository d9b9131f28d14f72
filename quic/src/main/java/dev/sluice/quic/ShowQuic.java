package dev.sluice.quic;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionAddress;
import io.netty.handler.codec.quic.QuicConnectionPathStats;
import io.netty.handler.codec.quic.QuicConnectionStats;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code show quic [oneline|full] [all]}: the QUIC connections of every bind, in HAProxy's layouts. Live
 * connections are listed by default; {@code all} adds the closing records (state {@code CLOSE}), whose CID
 * is only known by its prefix (the rest printed as dots). Each socket is read on its own event loop; the
 * command waits for them (at most {@link #WAIT_MS}), one dump at a time. Stateless apart from that lock.
 */
public final class ShowQuic {
    private ShowQuic() {
    }

    static final long WAIT_MS = 2000;
    private static final ReentrantLock ONE_AT_A_TIME = new ReentrantLock();

    /** Runs the command over {@code listeners}; {@code args} are the words after {@code show quic}. */
    public static String run(List<QuicListener> listeners, List<String> args) {
        boolean full = false;
        boolean all = false;
        for (String a : args) {
            switch (a) {
                case "oneline" -> full = false;
                case "full" -> full = true;
                case "all" -> all = true;
                case "help" -> {
                    return "Usage: show quic [oneline|full] [all]\n"
                            + "  oneline  one line per connection (default)\n"
                            + "  full     several lines per connection\n"
                            + "  all      also list closing connections\n";
                }
                default -> {
                    return "Invalid argument, use 'help' for more options.\n";
                }
            }
        }
        // an admin session runs on an event loop and waits for the others: two dumps waiting for each
        // other's loops would both time out, so a second one is turned away instead
        if (!ONE_AT_A_TIME.tryLock()) {
            return "Another 'show quic' is running, retry.\n";
        }
        try {
            StringBuilder out = new StringBuilder();
            if (!full) {
                out.append("# conn/frontend                     state   in_flight infl_p lost_p         Local Address           Foreign Address      local & remote CIDs\n");
            }
            boolean f = full;
            boolean a = all;
            List<CompletableFuture<List<String>>> parts = new ArrayList<>();
            for (QuicListener l : listeners) {
                parts.add(l.perSocket(s -> lines(l, s, f, a)).thenApply(ll -> {
                    List<String> flat = new ArrayList<>();
                    ll.forEach(flat::addAll);
                    return flat;
                }));
            }
            for (CompletableFuture<List<String>> p : parts) {
                try {
                    for (String line : p.get(WAIT_MS, TimeUnit.MILLISECONDS)) {
                        out.append(line);
                    }
                } catch (TimeoutException e) {
                    out.append("# (a socket did not answer within ").append(WAIT_MS).append(" ms)\n");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (ExecutionException e) {
                    out.append("# (error: ").append(e.getCause()).append(")\n");
                }
            }
            return out.toString();
        } finally {
            ONE_AT_A_TIME.unlock();
        }
    }

    /** The lines of one socket, on its loop. */
    private static List<String> lines(QuicListener l, QuicSocket s, boolean full, boolean all) {
        List<String> out = new ArrayList<>();
        InetSocketAddress local = (InetSocketAddress) s.channel.localAddress();
        for (ConnectionTracker t : s.live) {
            out.add(full ? liveFull(l, s, t, local) : liveOneline(l, s, t, local));
        }
        if (all) {
            long now = System.nanoTime();
            for (ClosingConnection r : s.closing.records()) {
                out.add(full ? closingFull(s, r, local, now) : closingOneline(l, s, r, local));
            }
        }
        return out;
    }

    private static String head(QuicListener l, QuicSocket s, Object id) {
        String h = String.format("0x%08x[%02d]/%.12s ", System.identityHashCode(id), s.index, l.frontend());
        return h.length() < 36 ? h + " ".repeat(36 - h.length()) : h;
    }

    private static String addresses(InetSocketAddress local, InetSocketAddress peer) {
        return String.format("%15s:%-5s   %15s:%-5s ", host(local), local == null ? "" : local.getPort(), host(peer),
                peer == null ? "" : peer.getPort());
    }

    private static String host(InetSocketAddress a) {
        return a == null ? "-" : a.getAddress().getHostAddress();
    }

    private static String hex(QuicConnectionAddress a) {
        return a == null ? "-" : ByteBufUtil.hexDump(Cids.bytes(a));
    }

    private static String liveOneline(QuicListener l, QuicSocket s, ConnectionTracker t, InetSocketAddress local) {
        QuicChannel ch = t.channel();
        QuicConnectionStats st = ch.collectStats().getNow();
        return head(l, s, t) + (t.established() ? "ESTAB   " : "HDSHK   ")
                + String.format("%9d %6d %6d   ", 0, 0, st == null ? 0 : st.lost())
                + addresses(local, (InetSocketAddress) ch.remoteSocketAddress())
                + hex(ch.localAddress()) + " " + hex(ch.remoteAddress()) + "\n";
    }

    private static String closingOneline(QuicListener l, QuicSocket s, ClosingConnection r, InetSocketAddress local) {
        return head(l, s, r) + "CLOSE   " + String.format("%9d %6d %6d   ", 0, 0, 0) + addresses(local, r.peer())
                + Cids.hex(r.prefix) + "................ -\n";
    }

    private static String liveFull(QuicListener l, QuicSocket s, ConnectionTracker t, InetSocketAddress local) {
        QuicChannel ch = t.channel();
        QuicConnectionStats st = ch.collectStats().getNow();
        QuicConnectionPathStats ps = ch.collectPathStats(0).getNow();
        InetSocketAddress peer = (InetSocketAddress) ch.remoteSocketAddress();
        StringBuilder b = new StringBuilder();
        b.append(String.format("* 0x%08x[%02d]: scid=%s dcid=%s%n", System.identityHashCode(t), s.index, pad(hex(ch.localAddress())),
                pad(hex(ch.remoteAddress()))));
        b.append(t.established() ? "  st=opened           " : "  st=handshake        ").append("mux=ready").append('\n');
        b.append(String.format("  fd=%-4s              local_addr=%s:%d foreign_addr=%s:%d%n", "-", host(local), local.getPort(), host(peer),
                peer == null ? 0 : peer.getPort()));
        if (ps != null) {
            b.append(String.format("  srtt=%-4d  rttvar=%-4s rttmin=%-4s ptoc=%-4s%n", TimeUnit.NANOSECONDS.toMillis(ps.rtt()), "-", "-", "-"));
            b.append(String.format("  cwnd=%-6d            mcwnd=%-6s%n", ps.cwnd(), "-"));
        }
        if (st != null) {
            b.append(String.format("  sentbytes=%-12d sentbytesgso=%-12d sentpkts=%-6d%n", st.sentBytes(), 0, st.sent()));
            b.append(String.format("  lostpkts=%-6d        reorderedpkts=%-6d%n", st.lost(), 0));
            b.append(String.format("  recvbytes=%-12d recvpkts=%-6d%n", st.recvBytes(), st.recv()));
        }
        return b.append('\n').toString();
    }

    private static String closingFull(QuicSocket s, ClosingConnection r, InetSocketAddress local, long now) {
        InetSocketAddress peer = r.peer();
        long left = Math.max(0, r.deadline - now);
        StringBuilder b = new StringBuilder();
        b.append(String.format("* 0x%08x[%02d]: scid=%s................%s dcid=-%n", System.identityHashCode(r), s.index, Cids.hex(r.prefix),
                "..".repeat(20 - Cids.LENGTH)));
        b.append(String.format("  st=closing          mux=released                                  expire=%02ds%n",
                TimeUnit.NANOSECONDS.toSeconds(left)));
        b.append(String.format("  fd=%-4s              local_addr=%s:%d foreign_addr=%s:%d%n", "-", host(local), local.getPort(), host(peer),
                peer.getPort()));
        b.append(String.format("  cc_dgram_len=%-5d    resent=%-6d rx=%-10d tx=%-10d validated=%d expire_ms=%d%n", r.datagramLength(),
                r.resends, r.rx, r.tx, r.validated ? 1 : 0, TimeUnit.NANOSECONDS.toMillis(left)));
        return b.append('\n').toString();
    }

    private static String pad(String hex) {
        return hex.length() >= 40 ? hex : hex + "..".repeat((40 - hex.length()) / 2);
    }
}

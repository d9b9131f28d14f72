package dev.sluice.peers;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;

/**
 * {@code show peers [<section>]} in HAProxy 2.6's layout (peers_dump_head, peers_dump_peer): per section its flags and
 * resync timer, per peer (in HAProxy's order: the last declared first) its session, last status, timers, counters, flags
 * and per table the positions. Pointers are identity hashes; the session's {@code st0} is HAProxy's state number.
 */
public final class ShowPeers {
    private ShowPeers() {
    }

    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    /** The dump, or HAProxy's error for an unknown section (null section: all). */
    public static String render(List<PeersSync> sections, String section, long startedAtMillis) {
        return render(sections, section, startedAtMillis, false);
    }

    /** The same, with the dictionaries of server keys when {@code dict} ({@code show peers dict}). */
    public static String render(List<PeersSync> sections, String section, long startedAtMillis, boolean dict) {
        StringBuilder sb = new StringBuilder();
        boolean found = false;
        // HAProxy keeps its sections in a list the last declared first
        for (PeersSync s : sections.reversed()) {
            if (section != null && !section.equals(s.section())) {
                continue;
            }
            found = true;
            head(sb, s, startedAtMillis);
            List<Peer> peers = s.peers();
            for (int i = peers.size() - 1; i >= 0; i--) {
                peer(sb, s, peers.get(i), dict);
            }
        }
        if (section != null && !found) {
            return "No such peers\n";
        }
        return sb.toString();
    }

    private static String ptr(Object o) {
        return "0x" + Integer.toHexString(System.identityHashCode(o));
    }

    private static String timer(long at, long now) {
        if (at == Long.MAX_VALUE || at == Long.MIN_VALUE) {
            return "<NEVER>";
        }
        return at - now <= 0 ? "<PAST>" : humanTime((at - now) / 1000);
    }

    /** HAProxy's TX and RX dictionary caches: the TX slots in use, every RX slot ("-" when empty), four a line. */
    private static void dictionaries(StringBuilder sb, PeerSession session) {
        sb.append("\n        TX dictionary cache:");
        int count = 0;
        for (int i = 0; i < Wire.DICT_ENTRIES; i++) {
            String v = session == null ? null : session.dictTx().slot(i);
            if (v == null) {
                break;
            }
            if (count++ == 0) {
                sb.append("\n        ");
            }
            sb.append(String.format(Locale.ROOT, "  %3d -> %s", i, v));
            count &= 0x3;
        }
        sb.append("\n        RX dictionary cache:");
        count = 0;
        for (int i = 0; i < Wire.DICT_ENTRIES; i++) {
            String v = session == null ? null : session.dictRx().slot(i);
            if (count++ == 0) {
                sb.append("\n        ");
            }
            sb.append(String.format(Locale.ROOT, "  %3d -> %s", i, v == null ? "-" : v));
            count &= 0x3;
        }
    }

    static String humanTime(long sec) {
        if (sec < 60) {
            return sec + "s";
        }
        if (sec < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", sec / 60, sec % 60);
        }
        if (sec < 86400) {
            return String.format(Locale.ROOT, "%dh%02dm", sec / 3600, sec / 60 % 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", sec / 86400, sec / 3600 % 24);
    }

    private static void head(StringBuilder sb, PeersSync s, long startedAtMillis) {
        ZonedDateTime t = Instant.ofEpochMilli(startedAtMillis).atZone(ZoneId.systemDefault());
        sb.append(ptr(s)).append(": [").append(String.format(Locale.ROOT, "%02d/%s/%04d:%02d:%02d:%02d", t.getDayOfMonth(),
                MONTHS[t.getMonthValue() - 1], t.getYear(), t.getHour(), t.getMinute(), t.getSecond()))
                .append("] id=").append(s.section()).append(" disabled=0 flags=0x").append(Integer.toHexString(s.flags()))
                .append(" resync_timeout=").append(timer(s.resyncTimeout(), s.now())).append(" task_calls=").append(s.taskCalls())
                .append('\n');
    }

    private static void peer(StringBuilder sb, PeersSync s, Peer p, boolean dict) {
        long now = s.now();
        PeerSession session = p.session();
        sb.append("  ").append(ptr(p)).append(": id=").append(p.name()).append('(').append(p.local() ? "local" : "remote").append(',')
                .append(session != null ? "active" : "inactive").append(") addr=").append(p.host() == null ? "0.0.0.0" : p.host())
                .append(':').append(p.port()).append(" last_status=").append(Wire.statusName(p.statusCode()))
                .append(" last_hdshk=").append(p.lastHandshake() == 0 ? "<NEVER>" : humanTime((now - p.lastHandshake()) / 1000))
                .append('\n');
        sb.append("        reconnect=").append(p.newConn() == 0 && p.statusCode() == 0 ? "<NEVER>" : timer(p.reconnectAt(), now))
                .append(" heartbeat=").append(timer(p.heartbeatAt(), now))
                .append(" confirm=").append(p.confirm()).append(" tx_hbt=").append(p.txHbt()).append(" rx_hbt=").append(p.rxHbt())
                .append(" no_hbt=").append(p.noHbt()).append(" new_conn=").append(p.newConn()).append(" proto_err=").append(p.protoErr())
                .append(" coll=").append(p.coll()).append('\n');
        sb.append("        flags=0x").append(Integer.toHexString(p.flags()));
        if (session != null) {
            sb.append(" appctx:").append(ptr(session)).append(" st0=").append(session.st0()).append(" st1=0 task_calls=")
                    .append(session.calls()).append(" state=").append(session.established() ? "EST" : "CON");
            if (session.remoteAddress() != null) {
                sb.append("\n        xprt=").append(session.xprt()).append(" src=").append(session.remoteAddress()).append(" addr=").append(session.localAddress());
            }
        }
        if (session != null && session.remoteTable() != null) {
            SharedTable rt = session.remoteTable();
            sb.append("\n        remote_table:").append(ptr(rt)).append(" id=").append(rt.table().name()).append(" local_id=")
                    .append(rt.id()).append(" remote_id=").append(rt.remoteId());
        }
        SharedTable lt = p.lastLocalTable;
        if (lt != null) {
            sb.append("\n        last_local_table:").append(ptr(lt)).append(" id=").append(lt.table().name()).append(" local_id=")
                    .append(lt.id()).append(" remote_id=").append(lt.remoteId());
        }
        if (!p.tables().isEmpty()) {
            sb.append("\n        shared tables:");
            for (int i = p.tables().size() - 1; i >= 0; i--) {
                SharedTable t = p.tables().get(i);
                var log = t.table().updateLog();
                long update = log == null ? 0 : log.lastUpdate();
                long local = log == null ? 0 : log.localUpdate();
                sb.append("\n          ").append(ptr(t)).append(" local_id=").append(t.id()).append(" remote_id=").append(t.remoteId())
                        .append(" flags=0x0 remote_data=0x").append(Long.toHexString(t.remoteData()));
                sb.append("\n              last_acked=").append(Integer.toUnsignedString(t.lastAcked())).append(" last_pushed=")
                        .append(t.lastPushed() & 0xFFFF_FFFFL).append(" last_get=").append(Integer.toUnsignedString(t.lastGet()))
                        .append(" teaching_origin=").append(t.teachingOrigin() & 0xFFFF_FFFFL).append(" update=")
                        .append(t.acked() & 0xFFFF_FFFFL);
                sb.append("\n              table:").append(ptr(t.table())).append(" id=").append(t.table().name()).append(" update=")
                        .append(update & 0xFFFF_FFFFL).append(" localupdate=").append(local & 0xFFFF_FFFFL).append(" commitupdate=")
                        .append(local & 0xFFFF_FFFFL).append(" refcnt=1");
                if (dict) {
                    dictionaries(sb, session);
                } else {
                    sb.append("\n        Dictionary cache not dumped (use \"show peers dict\")");
                }
            }
        }
        sb.append('\n');
    }
}

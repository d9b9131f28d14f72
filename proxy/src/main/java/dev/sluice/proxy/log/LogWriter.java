package dev.sluice.proxy.log;

import dev.sluice.config.model.LogTarget;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.MpscArrayQueue;

/**
 * The process's log writer: event loops {@link #submit} finished messages into a bounded lock-free queue;
 * one background thread adds the syslog header for each target's format and writes it. A full queue
 * drops the line and counts it ({@code DroppedLogs} in {@code show info}), so an event loop never waits
 * for a log destination. Thread-safe.
 */
public final class LogWriter implements AutoCloseable {
    public static final LongAdder DROPPED = new LongAdder();

    /** {@code fields}: those of a forwarded message (then {@code facility} is its own), null for a local log line. */
    private record Entry(LogTarget target, String tag, int level, int facility, long date, String message, SyslogMessage.Fields fields) {
    }

    private static final DateTimeFormatter RFC5424_DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSxxx", Locale.ROOT);
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    private static final String PID = Long.toString(ProcessHandle.current().pid());

    private final MpscArrayQueue<Entry> queue = new MpscArrayQueue<>(65536);
    private final Map<LogTarget, LogSink> sinks = new HashMap<>();
    private final Thread thread;
    private final ZoneId zone = ZoneId.systemDefault();
    private volatile boolean running = true;
    private volatile boolean parked;
    /** The rings {@code ring@<name>} targets write to, by name (set before the targets are used). */
    private volatile Map<String, Ring> rings = Map.of();

    public LogWriter() {
        thread = new Thread(this::run, "sluice-log");
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a message for a target (called on event loops; never blocks). */
    public void submit(LogTarget target, String tag, int level, String message) {
        if (level > target.level() || level < target.minLevel()) {
            return;
        }
        offer(new Entry(target, tag, level, target.facility(), System.currentTimeMillis(), message, null));
    }

    /**
     * Queues a message a log-forward section received for a target, as HAProxy's process_send_log sends it: a level above
     * the target's is not sent, one below its minimum is raised to it, a message without priority takes the target's
     * facility. Never blocks.
     */
    public void forward(LogTarget target, SyslogMessage m) {
        if (m.level() > target.level()) {
            return;
        }
        int level = Math.max(m.level(), target.minLevel());
        int facility = m.facility() == -1 ? target.facility() : m.facility();
        offer(new Entry(target, null, level, facility, System.currentTimeMillis(), m.message(),
                m.fields() != null ? m.fields() : SyslogMessage.Fields.NONE));
    }

    private void offer(Entry e) {
        if (!queue.offer(e)) {
            DROPPED.increment();
            return;
        }
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    /** The rings of the configuration, by name (before the log targets are used). */
    public void rings(Map<String, Ring> byName) {
        this.rings = Map.copyOf(byName);
    }

    private void run() {
        byte[] buf = new byte[65536 + 256];
        while (running || !queue.isEmpty()) {
            Entry e = queue.poll();
            if (e == null) {
                parked = true;
                if (queue.isEmpty() && running) {
                    LockSupport.parkNanos(50_000_000L);
                }
                parked = false;
                continue;
            }
            write(e, buf);
        }
        for (LogSink s : sinks.values()) {
            s.close();
        }
    }

    private void write(Entry e, byte[] buf) {
        if (e.target().kind() == LogTarget.Kind.RING) {
            writeRing(e);
            return;
        }
        LogSink sink = sinks.get(e.target());
        if (sink == null) {
            try {
                sink = LogSink.open(e.target());
            } catch (IOException | RuntimeException ex) {
                DROPPED.increment();
                return;
            }
            sinks.put(e.target(), sink);
        }
        String line = (e.fields() != null ? SyslogHeader.build(e.target().format(), e.level(), e.facility(), e.fields(), micros(e),
                zone) : header(e)) + e.message();
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        int len = Math.min(b.length, e.target().maxLength());
        System.arraycopy(b, 0, buf, 0, len);
        // HAProxy ends every message with a line feed, datagrams included
        buf[len++] = '\n';
        try {
            sink.write(buf, len);
        } catch (IOException ex) {
            DROPPED.increment();
        }
    }

    /**
     * A ring target: the message cut at the target's {@code len}, headed in the ring's format (HAProxy's sink_write: the
     * local host is named {@code localhost} in RFC 3164, as HAProxy names it without log-send-hostname), cut at the
     * ring's {@code maxlen}.
     */
    private void writeRing(Entry e) {
        Ring r = rings.get(e.target().address());
        if (r == null) {
            DROPPED.increment();
            return;
        }
        SyslogMessage.Fields f = e.fields() != null ? e.fields() : SyslogMessage.Fields.local(e.tag(), PID);
        long dropped = r.dropped();
        if (dropped > 0) {
            // as HAProxy's sink_announce_dropped: first a notice of what the ring refused, with this message's fields
            SyslogMessage.Fields a = new SyslogMessage.Fields(f.time(), f.host(), f.tag() != null ? f.tag() : e.tag() != null ? e.tag()
                    : "haproxy", f.pid() != null ? f.pid() : PID, f.msgId(), f.structuredData());
            String notice = dropped + " event" + (dropped > 1 ? "s" : "") + " dropped";
            if (!r.write(ringMessage(r, 5, e.facility(), a, micros(e), notice, Integer.MAX_VALUE))) {
                r.dropped(dropped + 1);
                return;
            }
            r.dropped(r.dropped() - dropped);
        }
        if (!r.write(ringMessage(r, e.level(), e.facility(), f, micros(e), e.message(), e.target().maxLength()))) {
            r.dropped(r.dropped() + 1);
        }
    }

    /** A ring's message: {@code message} cut at {@code len}, headed in the ring's format, cut at the ring's maxlen. */
    private byte[] ringMessage(Ring r, int level, int facility, SyslogMessage.Fields f, long micros, String message, int len) {
        byte[] msg = message.getBytes(StandardCharsets.UTF_8);
        int msgLen = Math.min(msg.length, len);
        byte[] head = r.format() == LogTarget.Format.RAW ? new byte[0]
                : SyslogHeader.build(r.format(), level, facility, f, micros, zone).getBytes(StandardCharsets.UTF_8);
        int total = Math.min(head.length + msgLen, r.maxLen());
        byte[] out = new byte[total];
        System.arraycopy(head, 0, out, 0, Math.min(head.length, total));
        if (total > head.length) {
            System.arraycopy(msg, 0, out, head.length, total - head.length);
        }
        return out;
    }

    private static long micros(Entry e) {
        return e.date() * 1000;
    }

    private String header(Entry e) {
        int pri = e.target().facility() * 8 + e.level();
        ZonedDateTime t = Instant.ofEpochMilli(e.date()).atZone(zone);
        return switch (e.target().format()) {
            case RAW -> "";
            case SHORT, PRIORITY -> "<" + pri + ">";
            // HAProxy's: microseconds and a numeric offset, "-" for the host name (it is sent with log-send-hostname only)
            case RFC5424 -> "<" + pri + ">1 " + t.format(RFC5424_DATE) + " - " + e.tag() + " " + PID + " - - ";
            case ISO -> t.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + " ";
            case TIMED -> "<" + pri + ">" + rfc3164Date(t) + " ";
            case RFC3164, LOCAL -> "<" + pri + ">" + rfc3164Date(t) + " " + e.tag() + "[" + PID + "]: ";
        };
    }

    private static String rfc3164Date(ZonedDateTime t) {
        return String.format(Locale.ROOT, "%s %2d %02d:%02d:%02d", MONTHS[t.getMonthValue() - 1], t.getDayOfMonth(), t.getHour(),
                t.getMinute(), t.getSecond());
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.sluice.proxy.dns;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * HAProxy's resolv_resolution: one name and record type asked periodically for the servers that follow it (its
 * requesters, in the order they joined), with the answer records kept between runs and the state of the run in
 * progress. Confined to its section's event loop.
 */
final class Resolution {
    /** HAProxy's RSLV_STATUS_*. */
    enum Status {
        NONE, VALID, INVALID, ERROR, NX, REFUSED, TIMEOUT, OTHER
    }

    /** An answer record kept between runs, with the servers that took it. */
    static final class Record {
        final int type;
        final InetAddress ip;
        final String target;
        final int port;
        int weight;
        /** For an SRV record: the address of its additional record, null when none. */
        InetAddress additional;
        long lastSeen;
        final List<Requester> attached = new ArrayList<>(1);
        /**
         * HAProxy's key of the record in its answer tree (XXH32 of the address bytes, or of an SRV target in DNS label
         * form, seeded with the type): records are kept in its unsigned order, the order HAProxy hands them out in.
         */
        final int key;

        Record(DnsAnswer.Item item, long now) {
            this.type = item.type();
            this.ip = item.ip();
            this.target = item.target();
            this.port = item.port();
            this.weight = item.weight();
            this.additional = item.type() == DnsAnswer.SRV ? item.ip() : null;
            this.lastSeen = now;
            this.key = dev.sluice.proxy.rules.XxHash.xxh32(type == DnsAnswer.SRV ? labels(target) : ip.getAddress(), type);
        }

        /** {@code one.test} as {@code \3one\4test}, without the root label. */
        private static byte[] labels(String name) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            for (String l : name.split("\\.")) {
                byte[] b = l.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
                out.write(b.length);
                out.writeBytes(b);
            }
            return out.toByteArray();
        }

        /** What identifies the record among those of a resolution: its address, or an SRV record's target and port. */
        Object identity() {
            return identity(type, ip, target, port);
        }

        static Object identity(DnsAnswer.Item item) {
            return identity(item.type(), item.ip(), item.target(), item.port());
        }

        private static Object identity(int type, InetAddress ip, String target, int port) {
            return type == DnsAnswer.SRV ? target.toLowerCase(java.util.Locale.ROOT) + ":" + port : ip;
        }
    }

    final String name;
    /** The type asked first (A, AAAA or SRV); {@link #queryType} is the one asked now (the other family after a failure). */
    final int preferred;
    int queryType;
    final List<Requester> requesters = new ArrayList<>();
    /** The records kept, in HAProxy's order (unsigned {@link Record#key}), and by {@link Record#identity}. */
    final List<Record> records = new ArrayList<>();
    final java.util.Map<Object, Record> index = new java.util.HashMap<>();
    Status status = Status.NONE;
    /** Milliseconds (the section's clock) of the last valid answer; its creation before any. */
    long lastValid;
    /** When the last run ended; -1: run at the next tick. */
    long lastResolution = -1;
    long lastQuery;
    boolean running;
    int tries;
    /** Incremented at each send: answers to an older one are outdated. */
    int generation;
    int queries;
    int responses;

    Resolution(String name, int preferred, long now) {
        this.name = name;
        this.preferred = preferred;
        this.queryType = preferred;
        this.lastValid = now;
    }
}

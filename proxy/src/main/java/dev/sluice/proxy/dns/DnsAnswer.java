package dev.sluice.proxy.dns;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.dns.DefaultDnsRecordDecoder;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a DNS response says, read from Netty's decoded message into plain values (so the message can be released at
 * once), with HAProxy 2.6's verdicts (resolv_validate_dns_response): the answer records of the type asked for at the end
 * of the CNAME chain that starts at the name asked for, and for SRV records the address the additional section gives
 * their target. Immutable.
 */
record DnsAnswer(Verdict verdict, List<Item> items) {

    /** HAProxy's RSLV_RESP_* codes, each with the counter it increments. */
    enum Verdict {
        VALID, INVALID, NX_DOMAIN, REFUSED, ANCOUNT_ZERO, CNAME_ERROR, TRUNCATED, NO_EXPECTED_RECORD, ERROR
    }

    /**
     * An answer record: an address (A or AAAA, {@code ip}), or an SRV record ({@code target} without the final dot,
     * {@code port}, {@code weight}; {@code ip} is its additional record's address, null when none).
     */
    record Item(int type, InetAddress ip, String target, int port, int weight) {
        boolean address() {
            return type == A || type == AAAA;
        }
    }

    static final int A = 1;
    static final int AAAA = 28;
    static final int SRV = 33;
    private static final int CNAME = 5;

    /** Reads {@code r}, the answer to {@code q}. Never keeps a reference to the message. */
    static DnsAnswer of(DnsResponse r, DnsQuestion q) {
        if (r.isTruncated()) {
            return new DnsAnswer(Verdict.TRUNCATED, List.of());
        }
        DnsResponseCode code = r.code();
        if (code.equals(DnsResponseCode.NXDOMAIN)) {
            return new DnsAnswer(Verdict.NX_DOMAIN, List.of());
        }
        if (code.equals(DnsResponseCode.REFUSED)) {
            return new DnsAnswer(Verdict.REFUSED, List.of());
        }
        if (!code.equals(DnsResponseCode.NOERROR)) {
            return new DnsAnswer(Verdict.ERROR, List.of());
        }
        if (r.count(DnsSection.QUESTION) != 1) {
            return new DnsAnswer(Verdict.INVALID, List.of());
        }
        DnsRecord asked = r.recordAt(DnsSection.QUESTION);
        if (!sameName(asked.name(), q.name()) || asked.type().intValue() != q.type().intValue()) {
            return new DnsAnswer(Verdict.INVALID, List.of());
        }
        int n = r.count(DnsSection.ANSWER);
        if (n == 0) {
            return new DnsAnswer(Verdict.ANCOUNT_ZERO, List.of());
        }
        int type = q.type().intValue();
        String expected = q.name();
        boolean cname = false;
        List<Item> items = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                DnsRecord rec = r.recordAt(DnsSection.ANSWER, i);
                int t = rec.type().intValue();
                if (!sameName(rec.name(), expected) || !(rec instanceof DnsRawRecord raw)) {
                    continue;
                }
                ByteBuf c = raw.content();
                if (t == CNAME) {
                    // Netty's decoder gives the CNAME's target decompressed
                    expected = DefaultDnsRecordDecoder.decodeName(c.duplicate());
                    cname = true;
                } else if (t == type && (t == A || t == AAAA)) {
                    int len = t == A ? 4 : 16;
                    if (c.readableBytes() != len) {
                        return new DnsAnswer(Verdict.INVALID, List.of());
                    }
                    byte[] b = new byte[len];
                    c.getBytes(c.readerIndex(), b);
                    items.add(new Item(t, InetAddress.getByAddress(b), null, 0, 0));
                } else if (t == type && t == SRV) {
                    ByteBuf d = c.duplicate();
                    if (d.readableBytes() < 7) {
                        return new DnsAnswer(Verdict.INVALID, List.of());
                    }
                    d.readUnsignedShort();
                    int weight = d.readUnsignedShort();
                    int port = d.readUnsignedShort();
                    String target = strip(DefaultDnsRecordDecoder.decodeName(d));
                    items.add(new Item(SRV, additional(r, target), target, port, weight));
                }
            }
        } catch (UnknownHostException | RuntimeException e) {
            return new DnsAnswer(Verdict.INVALID, List.of());
        }
        if (items.isEmpty()) {
            return new DnsAnswer(cname ? Verdict.CNAME_ERROR : Verdict.NO_EXPECTED_RECORD, List.of());
        }
        return new DnsAnswer(Verdict.VALID, List.copyOf(items));
    }

    /** The address an additional record gives {@code target} (the first A or AAAA), null when none. */
    private static InetAddress additional(DnsResponse r, String target) throws UnknownHostException {
        int n = r.count(DnsSection.ADDITIONAL);
        for (int i = 0; i < n; i++) {
            DnsRecord rec = r.recordAt(DnsSection.ADDITIONAL, i);
            int t = rec.type().intValue();
            if ((t == A || t == AAAA) && sameName(rec.name(), target) && rec instanceof DnsRawRecord raw
                    && raw.content().readableBytes() == (t == A ? 4 : 16)) {
                byte[] b = new byte[t == A ? 4 : 16];
                raw.content().getBytes(raw.content().readerIndex(), b);
                return InetAddress.getByAddress(b);
            }
        }
        return null;
    }

    private static boolean sameName(String a, String b) {
        return strip(a).toLowerCase(Locale.ROOT).equals(strip(b).toLowerCase(Locale.ROOT));
    }

    static String strip(String name) {
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    /** The record type asked for a name: SRV for {@code _service._proto.name}, else A or AAAA. */
    static DnsRecordType type(int t) {
        return t == SRV ? DnsRecordType.SRV : t == AAAA ? DnsRecordType.AAAA : DnsRecordType.A;
    }
}

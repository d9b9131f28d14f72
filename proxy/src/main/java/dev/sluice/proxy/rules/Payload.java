package dev.sluice.proxy.rules;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * The layer-6 fetches: what a TCP stream holds of the client's ({@code req.*}) or the server's ({@code res.*}) bytes
 * during content inspection ({@link Txn#requestPayload()}, {@link Txn#responsePayload()}), read as HAProxy 2.6's
 * payload.c reads them, and {@code wait_end}. Samples are views of the held bytes ({@link ByteBufChars}).
 * <p>
 * Each reports {@link Txn#mayChange()} where HAProxy sets SMP_F_MAY_CHANGE: {@code req.len} always; a payload, a
 * length-value not all there yet; {@code wait_end} until the content is final. A payload that could never
 * fit in {@code tune.bufsize} is no sample at once. Without held bytes (HTTP
 * proxies) there is no sample.
 */
final class Payload {
    private Payload() {
    }

    /** Declares the fetches. */
    static void register() {
        for (String n : new String[] {"req.len", "req_len"}) {
            Fetches.defContent(n, 0, 0, Match.INT, false, true, a -> new Len(false));
        }
        Fetches.defContent("res.len", 0, 0, Match.INT, true, true, a -> new Len(true));
        Fetches.defContent("req.payload", 2, 2, null, false, true, a -> fixed(false, a));
        Fetches.defContent("res.payload", 2, 2, null, true, true, a -> fixed(true, a));
        Fetches.defContent("req.payload_lv", 2, 3, null, false, true, a -> lengthValue(false, a, "req.payload_lv"));
        Fetches.defContent("res.payload_lv", 2, 3, null, true, true, a -> lengthValue(true, a, "res.payload_lv"));
        Fetches.defContent("wait_end", 0, 0, Match.BOOL, false, false, a -> WAIT_END);
    }

    private static ByteBuf held(Txn t, boolean response) {
        return response ? t.responsePayload() : t.requestPayload();
    }

    /** {@code wait_end}: no sample (and "may change") until the content is final, then true. */
    private static final Fetch WAIT_END = t -> {
        if (!t.contentFinal()) {
            t.mayChange();
            return null;
        }
        return Boolean.TRUE;
    };

    /** {@code req.len}/{@code res.len}: how many bytes are held; always subject to change. */
    private record Len(boolean response) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = held(t, response);
            if (b == null) {
                return null;
            }
            t.mayChange();
            return (long) b.readableBytes();
        }
    }

    private static long integer(String fetch, List<String> a, int i) {
        try {
            return Long.parseLong(a.get(i).strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fetch method '" + fetch + "' : failed to parse '" + a.get(i) + "' as type 'integer' at position "
                    + (i + 1));
        }
    }

    private static Fetch fixed(boolean response, List<String> a) {
        String name = response ? "res.payload" : "req.payload";
        return new Fixed(response, integer(name, a, 0), integer(name, a, 1));
    }

    /**
     * {@code req.payload(<offset>,<length>)}: {@code length} bytes from {@code offset}, or all from there when
     * {@code length} is 0 (then subject to change). Negative numbers are huge ones for HAProxy: never a sample.
     */
    private record Fixed(boolean response, long offset, long length) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = held(t, response);
            if (b == null) {
                return null;
            }
            long max = t.tune().bufsize();
            if (offset < 0 || length < 0 || length > max || offset + length > max) {
                return null;
            }
            int n = b.readableBytes();
            if (offset + length > n) {
                t.mayChange();
                return null;
            }
            if (length == 0) {
                t.mayChange();
                return ByteBufChars.of(b, (int) offset, n - (int) offset);
            }
            return ByteBufChars.of(b, (int) offset, (int) length);
        }
    }

    private static Fetch lengthValue(boolean response, List<String> a, String name) {
        long offset = integer(name, a, 0);
        long size = integer(name, a, 1);
        String bad = "invalid args in fetch method '" + name + "' : ";
        if (offset < 0) {
            throw new IllegalArgumentException(bad + "payload offset1 must be positive");
        }
        if (size == 0) {
            throw new IllegalArgumentException(bad + "payload length must be > 0");
        }
        Long offset2 = null;
        boolean relative = false;
        if (a.size() > 2 && !a.get(2).isEmpty()) {
            String s = a.get(2);
            relative = s.charAt(0) == '+' || s.charAt(0) == '-';
            try {
                offset2 = Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(bad + "payload offset2 is not a number");
            }
            if (offset + size + offset2 < 0) {
                throw new IllegalArgumentException(bad + "payload offset2 too negative");
            }
        }
        return new LengthValue(response, offset, size, offset2, relative);
    }

    /**
     * {@code req.payload_lv(<offset1>,<length>[,<offset2>])}: the bytes whose count is the big-endian number of
     * {@code length} bytes at {@code offset1}, found right after that number, at {@code offset2}, or {@code offset2}
     * bytes after it when signed. A count of 0, or bytes that could never fit in {@code tune.bufsize}, are no sample.
     */
    private record LengthValue(boolean response, long offset, long size, Long offset2, boolean relative) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = held(t, response);
            if (b == null) {
                return null;
            }
            int n = b.readableBytes();
            if (size < 0 || offset + size > n) {
                // a negative size is a huge one for HAProxy: it never arrives
                t.mayChange();
                return null;
            }
            long count = 0;
            int at = b.readerIndex() + (int) offset;
            for (int i = 0; i < size; i++) {
                count = (count << 8 | b.getUnsignedByte(at + i)) & 0xffffffffL;
            }
            long start = offset + size;
            if (offset2 != null) {
                start = relative ? start + offset2 : offset2;
            }
            long max = t.tune().bufsize();
            if (count == 0 || count > max || start < 0 || start + count > max) {
                return null;
            }
            if (start + count > n) {
                t.mayChange();
                return null;
            }
            return ByteBufChars.of(b, (int) start, (int) count);
        }
    }
}

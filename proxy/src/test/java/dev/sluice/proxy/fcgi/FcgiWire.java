package dev.sluice.proxy.fcgi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test helper: FastCGI records written and read by hand, from the specification, independently of the code under test.
 */
final class FcgiWire {
    private FcgiWire() {
    }

    record Record(int type, int id, byte[] content) {
        String text() {
            return new String(content, StandardCharsets.ISO_8859_1);
        }
    }

    /** A record with {@code padding} zero bytes after its content. */
    static byte[] record(int type, int id, byte[] content, int padding) {
        byte[] out = new byte[8 + content.length + padding];
        out[0] = 1;
        out[1] = (byte) type;
        out[2] = (byte) (id >> 8);
        out[3] = (byte) id;
        out[4] = (byte) (content.length >> 8);
        out[5] = (byte) content.length;
        out[6] = (byte) padding;
        System.arraycopy(content, 0, out, 8, content.length);
        return out;
    }

    static byte[] record(int type, int id, String content) {
        return record(type, id, content.getBytes(StandardCharsets.ISO_8859_1), 0);
    }

    static byte[] endRequest(int id, int protocolStatus) {
        return record(3, id, new byte[] {0, 0, 0, 0, (byte) protocolStatus, 0, 0, 0}, 0);
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int o = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, o, p.length);
            o += p.length;
        }
        return out;
    }

    /** The records in {@code in} (released), padding skipped; fails on a truncated one. */
    static List<Record> records(ByteBuf in) {
        try {
            List<Record> out = new ArrayList<>();
            while (in.isReadable()) {
                if (in.readableBytes() < 8) {
                    throw new AssertionError("truncated record header");
                }
                int version = in.readUnsignedByte();
                if (version != 1) {
                    throw new AssertionError("version " + version);
                }
                int type = in.readUnsignedByte();
                int id = in.readUnsignedShort();
                int len = in.readUnsignedShort();
                int pad = in.readUnsignedByte();
                in.skipBytes(1);
                byte[] c = new byte[len];
                in.readBytes(c);
                in.skipBytes(pad);
                out.add(new Record(type, id, c));
            }
            return out;
        } finally {
            in.release();
        }
    }

    /** The name-value pairs of PARAMS contents put together. */
    static Map<String, String> pairs(List<Record> records) {
        ByteBuf all = Unpooled.buffer();
        for (Record r : records) {
            if (r.type() == 4) {
                all.writeBytes(r.content());
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        while (all.isReadable()) {
            int n = len(all);
            int v = len(all);
            out.put(all.readCharSequence(n, StandardCharsets.ISO_8859_1).toString(), all.readCharSequence(v, StandardCharsets.ISO_8859_1).toString());
        }
        all.release();
        return out;
    }

    private static int len(ByteBuf b) {
        int first = b.getUnsignedByte(b.readerIndex());
        return first < 128 ? b.readUnsignedByte() : b.readInt() & 0x7fffffff;
    }
}

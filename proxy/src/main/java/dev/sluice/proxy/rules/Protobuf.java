package dev.sluice.proxy.rules;

import java.util.List;

/**
 * {@code protobuf(<field_number>[,<field_type>])} and {@code ungrpc(<field_number>[,<field_type>])}, HAProxy 2.6's
 * protobuf.h ported: the value of a field of a Protocol Buffers message (for {@code ungrpc}, of the messages of a gRPC
 * body, each after its 5-byte header), the field given by its numbers in dotted notation ({@code 1.2.3}: field 3 of the
 * message in field 2 of the message in field 1). Without a type the field's bytes (binary); with one, an integer:
 * {@code int32}, {@code uint32}, {@code int64}, {@code uint64}, {@code bool}, {@code enum} (the varint as it is),
 * {@code sint32}, {@code sint64} (zigzag-decoded), {@code fixed32}, {@code sfixed32}, {@code fixed64}, {@code sfixed64},
 * and {@code float}, {@code double} (their integer part, as HAProxy converts them). HAProxy's walk is kept as it is,
 * its quirks included (after a nested message that lacks the field, the search starts again from the first number).
 */
final class Protobuf {
    private Protobuf() {
    }

    private static final int VARINT = 0;
    private static final int BIT64 = 1;
    private static final int DELIMITED = 2;
    private static final int BIT32 = 5;

    /** The requested types (0: binary), as protobuf-t.h groups them. */
    private static final List<String> VARINTS = List.of("int32", "uint32", "int64", "uint64", "bool", "enum");
    private static final List<String> ZIGZAG = List.of("sint32", "sint64");

    static void register() {
        Converters.def("protobuf", 1, 2, a -> {
            int[] ids = fieldNumbers(a.get(0));
            String type = type(a);
            return (t, v) -> {
                byte[] b = Samples.bytes(v);
                return lookup(ids, type, b);
            };
        });
        Converters.def("ungrpc", 1, 2, a -> {
            int[] ids = fieldNumbers(a.get(0));
            String type = type(a);
            return (t, v) -> ungrpc(ids, type, Samples.bytes(v));
        });
    }

    private static String type(List<String> a) {
        if (a.size() < 2 || a.get(1).isEmpty()) {
            return null;
        }
        String t = a.get(1);
        if (!VARINTS.contains(t) && !ZIGZAG.contains(t) && !List.of("fixed32", "sfixed32", "float", "fixed64", "sfixed64", "double").contains(t)) {
            throw new IllegalArgumentException("Wrong protocol buffer type '" + t + "'");
        }
        return t;
    }

    /** parse_dotted_uints: numbers separated by single dots, none empty, no dot last. */
    static int[] fieldNumbers(String s) {
        if (s.isEmpty() || !s.matches("\\d+(\\.\\d+)*")) {
            throw new IllegalArgumentException("failed to parse '" + s + "' as type 'Protocol buffers field number' at position 1");
        }
        String[] parts = s.split("\\.");
        int[] ids = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            // read_uint: an unsigned int that saturates
            ids[i] = (int) Math.min(Long.parseLong(parts[i].length() > 11 ? "4294967295" : parts[i]), 0xffffffffL);
        }
        return ids;
    }

    /** sample_conv_ungrpc: the field in each gRPC message in turn, the first found. */
    static Object ungrpc(int[] ids, String type, byte[] b) {
        Cursor c = new Cursor(0, 0);
        long left = b.length;
        while (left > 5) {
            int p = c.pos;
            long msgLen = (b[p + 1] & 0xffL) << 24 | (b[p + 2] & 0xff) << 16 | (b[p + 3] & 0xff) << 8 | b[p + 4] & 0xff;
            c.pos += 5;
            left -= 5;
            if (left < msgLen) {
                return null;
            }
            // HAProxy goes on from where the walk of the message left its pointer
            c.left = (int) msgLen;
            Object found = lookup(ids, type, b, c);
            if (found != null) {
                return found;
            }
            left -= msgLen;
        }
        return null;
    }

    /** HAProxy's pointer and length into the bytes, moved as its walk moves them. */
    static final class Cursor {
        int pos;
        int left;

        Cursor(int pos, int left) {
            this.pos = pos;
            this.left = left;
        }
    }

    /** protobuf_field_lookup from {@code c}: the field's value, or null. */
    static Object lookup(int[] ids, String type, byte[] b) {
        return lookup(ids, type, b, new Cursor(0, b.length));
    }

    private static Object lookup(int[] ids, String type, byte[] b, Cursor c) {
        long elen = 0;
        int field = 0;
        while (field < ids.length) {
            if (c.left <= 0) {
                return null;
            }
            long sleft = c.left;
            long key = varint(b, c);
            if (key == FAILED) {
                return null;
            }
            int wire = (int) (key & 7);
            boolean found = key >>> 3 == (ids[field] & 0xffffffffL);
            switch (wire) {
                case VARINT -> {
                    if (!found && varint(b, c) == FAILED) {
                        return null;
                    }
                }
                case BIT32, BIT64 -> {
                    int n = wire == BIT32 ? 4 : 8;
                    if (!found) {
                        if (c.left < n) {
                            return null;
                        }
                        c.pos += n;
                        c.left -= n;
                    }
                }
                case DELIMITED -> {
                    elen = varint(b, c);
                    if (elen == FAILED || Long.compareUnsigned(elen, c.left) > 0) {
                        return null;
                    }
                    sleft = c.left;
                    if (!found) {
                        c.pos += (int) elen;
                        c.left -= (int) elen;
                    }
                }
                default -> {
                    return null;
                }
            }
            if (found && field == ids.length - 1) {
                return store(wire, type, b, c.pos, c.left, elen);
            }
            if (elen > 0) {
                elen -= sleft - c.left;
            }
            if (found) {
                field++;
            } else if (elen <= 0) {
                field = 0;
            }
        }
        return null;
    }

    /** What {@link #varint} answers for bytes that end inside a varint, or a varint past 64 bits. */
    private static final long FAILED = Long.MIN_VALUE + 0x5eed;

    /** protobuf_decode_varint at {@code c}, moving it (the value as 64 unsigned bits), or {@link #FAILED}. */
    private static long varint(byte[] b, Cursor c) {
        long v = 0;
        int shift = 0;
        while (c.left > 0) {
            int x = b[c.pos] & 0xff;
            v |= (long) (x & 0x7f) << shift;
            c.pos++;
            c.left--;
            if ((x & 0x80) == 0) {
                break;
            } else if (c.left == 0) {
                return FAILED;
            }
            shift += 7;
            if (shift > 63) {
                return FAILED;
            }
        }
        return v;
    }

    /** The smp_store functions: the field at {@code pos} ({@code len} bytes left, {@code elen} its length if delimited). */
    private static Object store(int wire, String type, byte[] b, int pos, int len, long elen) {
        switch (wire) {
            case VARINT -> {
                if (type == null) {
                    // protobuf_varint_getlen: the varint's own bytes
                    Cursor c = new Cursor(pos, len);
                    return varint(b, c) == FAILED ? null : java.util.Arrays.copyOfRange(b, pos, c.pos);
                }
                long v = varint(b, new Cursor(pos, len));
                if (v == FAILED) {
                    return null;
                }
                if (VARINTS.contains(type)) {
                    return v;
                }
                return ZIGZAG.contains(type) ? (Object) ((v >>> 1) ^ -(v & 1)) : null;
            }
            case BIT64 -> {
                if (len < 8) {
                    return null;
                }
                if (type == null) {
                    return java.util.Arrays.copyOfRange(b, pos, pos + 8);
                }
                long raw = le(b, pos, 8);
                return switch (type) {
                    case "fixed64", "sfixed64" -> raw;
                    // (uint64_t) of the double, as x86-64 converts it (through a signed 64-bit conversion)
                    case "double" -> (long) Double.longBitsToDouble(raw);
                    default -> null;
                };
            }
            case DELIMITED -> {
                return len < elen || type != null ? null : java.util.Arrays.copyOfRange(b, pos, pos + (int) elen);
            }
            default -> {
                if (len < 4) {
                    return null;
                }
                if (type == null) {
                    return java.util.Arrays.copyOfRange(b, pos, pos + 4);
                }
                long raw = le(b, pos, 4);
                return switch (type) {
                    case "fixed32" -> raw;
                    case "sfixed32" -> (long) (int) raw;
                    // (uint32_t) of the float, kept as an unsigned 32-bit value
                    case "float" -> ((long) Float.intBitsToFloat((int) raw)) & 0xffffffffL;
                    default -> null;
                };
            }
        }
    }

    private static long le(byte[] b, int pos, int n) {
        long v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = v << 8 | b[pos + i] & 0xff;
        }
        return v;
    }
}

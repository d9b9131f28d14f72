package dev.sluice.proxy.rules;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Bytes of a {@link ByteBuf} read as ISO-8859-1 characters, without copying them: the samples of the payload and TLS
 * hello fetches (a string or binary sample of HAProxy). A view: it is valid while the buffer holds those bytes,
 * that is during the evaluation of a rule; {@link #toString()} copies ({@code set-var} keeps a string).
 */
final class ByteBufChars implements CharSequence {
    private final ByteBuf buf;
    /** The absolute index of the first byte in {@link #buf}. */
    private final int start;
    private final int length;

    ByteBufChars(ByteBuf buf, int start, int length) {
        this.buf = buf;
        this.start = start;
        this.length = length;
    }

    /** The bytes {@code [offset, offset + length)} counted from the buffer's reader index. */
    static ByteBufChars of(ByteBuf buf, int offset, int length) {
        return new ByteBufChars(buf, buf.readerIndex() + offset, length);
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public char charAt(int index) {
        if (index < 0 || index >= length) {
            throw new IndexOutOfBoundsException(index);
        }
        return (char) buf.getUnsignedByte(start + index);
    }

    @Override
    public CharSequence subSequence(int from, int to) {
        if (from < 0 || to > length || from > to) {
            throw new IndexOutOfBoundsException("[" + from + ", " + to + ") of " + length);
        }
        return new ByteBufChars(buf, start + from, to - from);
    }

    /** Whether these bytes are exactly {@code b}. */
    boolean contentEquals(byte[] b) {
        if (b.length != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (buf.getByte(start + i) != b[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return buf.toString(start, length, StandardCharsets.ISO_8859_1);
    }
}

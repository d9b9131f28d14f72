package dev.sluice.proxy.http;

import io.netty.util.AsciiString;
import java.util.Arrays;
import java.util.Locale;

/**
 * The header fields of one message, in order, names lower-cased (HAProxy normalises names the same way,
 * and HTTP/2 requires it). Names and values are {@link AsciiString} views, usually over the bytes of the
 * received head, so parsing copies nothing per field. Owned by one stream on one event loop.
 */
public final class HttpFields {
    private AsciiString[] names;
    private AsciiString[] values;
    private int size;

    public HttpFields() {
        this(16);
    }

    public HttpFields(int capacity) {
        names = new AsciiString[capacity];
        values = new AsciiString[capacity];
    }

    public int size() {
        return size;
    }

    public AsciiString name(int i) {
        return names[i];
    }

    public AsciiString value(int i) {
        return values[i];
    }

    /** Appends a field; {@code name} must already be lower-case. */
    public void add(AsciiString name, AsciiString value) {
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        names[size] = name;
        values[size] = value;
        size++;
    }

    public void add(String name, String value) {
        add(AsciiString.of(name.toLowerCase(Locale.ROOT)), new AsciiString(value));
    }

    public void setValue(int i, AsciiString value) {
        values[i] = value;
    }

    /** Index of the first field named {@code name} (lower-case) at or after {@code from}, or -1. */
    public int indexOf(AsciiString name, int from) {
        for (int i = from; i < size; i++) {
            if (names[i].contentEquals(name)) {
                return i;
            }
        }
        return -1;
    }

    public int indexOf(AsciiString name) {
        return indexOf(name, 0);
    }

    public boolean contains(AsciiString name) {
        return indexOf(name, 0) >= 0;
    }

    /** The value of the first field named {@code name}, or null. */
    public AsciiString get(AsciiString name) {
        int i = indexOf(name, 0);
        return i < 0 ? null : values[i];
    }

    public void remove(int i) {
        System.arraycopy(names, i + 1, names, i, size - i - 1);
        System.arraycopy(values, i + 1, values, i, size - i - 1);
        size--;
        names[size] = null;
        values[size] = null;
    }

    /** Removes every field named {@code name}; returns how many were removed. */
    public int removeAll(AsciiString name) {
        int removed = 0;
        int w = 0;
        for (int r = 0; r < size; r++) {
            if (names[r].contentEquals(name)) {
                removed++;
            } else {
                names[w] = names[r];
                values[w] = values[r];
                w++;
            }
        }
        for (int i = w; i < size; i++) {
            names[i] = null;
            values[i] = null;
        }
        size = w;
        return removed;
    }

    /** Removes all fields, then adds one. */
    public void set(AsciiString name, AsciiString value) {
        removeAll(name);
        add(name, value);
    }

    public void clear() {
        Arrays.fill(names, 0, size, null);
        Arrays.fill(values, 0, size, null);
        size = 0;
    }

    /**
     * The next non-empty element of a comma-separated field value at or after {@code from}, trimmed of spaces and tabs:
     * its start in the high 32 bits and its end in the low ones, or -1 when none is left. The next call takes
     * {@code (int) element} as its {@code from}. Copies nothing.
     */
    public static long nextElement(AsciiString s, int from) {
        int n = s.length();
        int i = from;
        while (i < n) {
            while (i < n && (s.byteAt(i) == ' ' || s.byteAt(i) == '\t' || s.byteAt(i) == ',')) {
                i++;
            }
            int start = i;
            while (i < n && s.byteAt(i) != ',') {
                i++;
            }
            int end = i;
            while (end > start && (s.byteAt(end - 1) == ' ' || s.byteAt(end - 1) == '\t')) {
                end--;
            }
            if (end > start) {
                return (long) start << 32 | end;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < size; i++) {
            sb.append(names[i]).append(": ").append(values[i]).append('\n');
        }
        return sb.toString();
    }
}

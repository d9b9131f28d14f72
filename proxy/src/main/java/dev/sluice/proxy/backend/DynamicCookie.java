package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.XxHash;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A server's dynamic persistence cookie ({@code cookie ... dynamic} with a {@code dynamic-cookie-key}) and the
 * address it was made from: {@link Server#cookie()} makes it again when the address changes. Immutable.
 */
record DynamicCookie(InetSocketAddress address, String value) {

    /** The cookie of address {@code a} under {@code key}. */
    static DynamicCookie of(String key, InetSocketAddress a) {
        return new DynamicCookie(a, value(key, a));
    }

    /**
     * HAProxy's srv_set_dyncookie: XXH64 of the key, the address bytes and the port as 4 big-endian bytes, in 16
     * hexadecimal digits; null for an address that is not an IP one.
     */
    static String value(String key, InetSocketAddress a) {
        if (a == null || a.getAddress() == null) {
            return null;
        }
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] ip = a.getAddress().getAddress();
        byte[] buf = new byte[k.length + ip.length + 4];
        System.arraycopy(k, 0, buf, 0, k.length);
        System.arraycopy(ip, 0, buf, k.length, ip.length);
        int port = a.getPort();
        int at = k.length + ip.length;
        buf[at] = (byte) (port >>> 24);
        buf[at + 1] = (byte) (port >>> 16);
        buf[at + 2] = (byte) (port >>> 8);
        buf[at + 3] = (byte) port;
        return String.format("%016x", XxHash.xxh64(buf, 0));
    }
}

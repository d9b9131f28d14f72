package dev.sluice.proxy.rules;

import dev.sluice.config.Addresses;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * An IPv4 or IPv6 network ({@code <ip>[/<prefix>]} or {@code <ip>/<dotted mask>}) and address text
 * formatting as HAProxy prints it (inet_ntop: RFC 5952 compressed IPv6). Immutable.
 */
public final class Network {
    private final byte[] base;
    private final int prefix;

    private Network(byte[] base, int prefix) {
        this.base = base;
        this.prefix = prefix;
    }

    public static Network parse(String s) {
        int slash = s.indexOf('/');
        InetAddress a = Addresses.literal(slash < 0 ? s : s.substring(0, slash));
        if (a == null) {
            throw new IllegalArgumentException("invalid network '" + s + "'");
        }
        byte[] b = a.getAddress();
        int bits = b.length * 8;
        if (slash >= 0) {
            String p = s.substring(slash + 1);
            if (p.indexOf('.') >= 0) {
                InetAddress m = Addresses.literal(p);
                if (m == null) {
                    throw new IllegalArgumentException("invalid netmask '" + p + "'");
                }
                bits = Integer.bitCount(java.nio.ByteBuffer.wrap(m.getAddress()).getInt());
            } else {
                bits = Integer.parseInt(p);
            }
            if (bits < 0 || bits > b.length * 8) {
                throw new IllegalArgumentException("invalid prefix length in network '" + s + "'");
            }
        }
        return new Network(b, bits);
    }

    public int prefix() {
        return prefix;
    }

    public boolean contains(InetAddress addr) {
        byte[] a = addr.getAddress();
        if (a.length != base.length) {
            // an IPv4 client seen through an IPv4-mapped IPv6 address still matches an IPv4 network
            if (a.length == 16 && base.length == 4 && isMapped(a)) {
                byte[] v4 = new byte[4];
                System.arraycopy(a, 12, v4, 0, 4);
                a = v4;
            } else {
                return false;
            }
        }
        int full = prefix / 8;
        for (int i = 0; i < full; i++) {
            if (a[i] != base[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[full] & mask) == (base[full] & mask);
    }

    private static boolean isMapped(byte[] a) {
        for (int i = 0; i < 10; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return a[10] == (byte) 0xff && a[11] == (byte) 0xff;
    }

    /**
     * Dotted quad for IPv4, RFC 5952 text for IPv6 ({@code ::1}, not {@code 0:0:0:0:0:0:0:1}; an IPv4-mapped
     * address as {@code ::ffff:a.b.c.d}).
     */
    /**
     * {@code cur} with {@code ip} (null: kept) and {@code port} (negative: kept, from IPv4 to IPv6 too, as HAProxy 2.6
     * was seen doing), as HAProxy's set-src and set-dst change an address.
     */
    public static InetSocketAddress with(InetSocketAddress cur, InetAddress ip, int port) {
        return new InetSocketAddress(ip != null ? ip : cur.getAddress(), port >= 0 ? port : cur.getPort());
    }

    /**
     * The host part of a connection's address as logs write it: the IP address, or for a client on a UNIX socket (an
     * unresolved placeholder address) its name, "unix".
     */
    public static String host(java.net.InetSocketAddress a) {
        return a.getAddress() == null ? a.getHostString() : format(a.getAddress());
    }

    public static String format(InetAddress addr) {
        if (addr instanceof Inet4Address) {
            return addr.getHostAddress();
        }
        byte[] a = addr.getAddress();
        if (isMapped(a)) {
            // RFC 5952 section 5, as inet_ntop writes it
            return "::ffff:" + (a[12] & 0xff) + "." + (a[13] & 0xff) + "." + (a[14] & 0xff) + "." + (a[15] & 0xff);
        }
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8;) {
            if (w[i] == 0) {
                int j = i;
                while (j < 8 && w[j] == 0) {
                    j++;
                }
                if (j - i > bestLen) {
                    bestLen = j - i;
                    bestStart = i;
                }
                i = j;
            } else {
                i++;
            }
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(w[i]));
        }
        return sb.toString();
    }

    /**
     * The TCP socket a client channel runs on: the channel itself, or an HTTP/2 stream's connection; null for a QUIC
     * stream or a UNIX socket. (What the fetches and actions on the client connection's socket read or set.)
     */
    public static io.netty.channel.socket.SocketChannel socketOf(io.netty.channel.Channel ch) {
        for (io.netty.channel.Channel c = ch; c != null; c = c.parent()) {
            if (c instanceof io.netty.channel.socket.SocketChannel s) {
                return s;
            }
        }
        return null;
    }
}

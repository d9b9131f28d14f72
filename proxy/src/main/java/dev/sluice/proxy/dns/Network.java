package dev.sluice.proxy.dns;

import dev.sluice.config.Addresses;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/** A {@code resolve-net} network: an address and a prefix length (or an IPv4 dotted mask). Immutable. */
record Network(byte[] address, byte[] mask) {

    static List<Network> parse(List<String> nets) {
        List<Network> out = new ArrayList<>(nets.size());
        for (String n : nets) {
            int slash = n.indexOf('/');
            InetAddress a = Addresses.literal(slash < 0 ? n : n.substring(0, slash));
            if (a == null) {
                continue;
            }
            byte[] addr = a.getAddress();
            byte[] mask = new byte[addr.length];
            String m = slash < 0 ? String.valueOf(addr.length * 8) : n.substring(slash + 1);
            InetAddress dotted = m.indexOf('.') >= 0 ? Addresses.literal(m) : null;
            if (dotted != null) {
                mask = dotted.getAddress();
            } else {
                int bits = Integer.parseInt(m);
                for (int i = 0; i < mask.length; i++) {
                    int b = Math.max(0, Math.min(8, bits - i * 8));
                    mask[i] = (byte) (0xff00 >> b);
                }
            }
            out.add(new Network(addr, mask));
        }
        return out;
    }

    boolean contains(InetAddress ip) {
        byte[] b = ip.getAddress();
        if (b.length != address.length) {
            return false;
        }
        for (int i = 0; i < b.length; i++) {
            if ((b[i] & mask[i]) != (address[i] & mask[i])) {
                return false;
            }
        }
        return true;
    }
}

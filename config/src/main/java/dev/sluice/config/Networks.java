package dev.sluice.config;

import java.nio.ByteBuffer;

/** Validation of {@code <ip>[/<prefix>]} network notation. */
public final class Networks {
    private Networks() {
    }

    public static boolean valid(String s) {
        int slash = s.indexOf('/');
        String ip = slash < 0 ? s : s.substring(0, slash);
        var addr = Addresses.literal(ip);
        if (addr == null) {
            return false;
        }
        if (slash < 0) {
            return true;
        }
        String p = s.substring(slash + 1);
        int max = addr.getAddress().length * 8;
        try {
            int bits = Integer.parseInt(p);
            return bits >= 0 && bits <= max;
        } catch (NumberFormatException e) {
            // dotted netmask form, IPv4 only
            var mask = Addresses.literal(p);
            if (mask == null || mask.getAddress().length != 4 || max != 32) {
                return false;
            }
            int m = ByteBuffer.wrap(mask.getAddress()).getInt();
            // a netmask is contiguous ones then zeros
            return (~m & (~m + 1)) == 0;
        }
    }
}

package dev.sluice.proxy.http;

import io.netty.util.AsciiString;

/**
 * The characters an authority may hold, with HAProxy's rules, for every protocol: HTTP/1's Host field, its
 * absolute-form and CONNECT targets, and HTTP/2's and HTTP/3's {@code :authority}.
 */
public final class Authority {
    private Authority() {
    }

    /** No control character, space, DEL or byte >= 0x80, and none of {@code / ? # \}. */
    public static boolean valid(AsciiString a) {
        for (int k = 0; k < a.length(); k++) {
            int c = a.byteAt(k) & 0xff;
            if (c <= 0x20 || c >= 0x7f || c == '/' || c == '?' || c == '#' || c == '\\') {
                return false;
            }
        }
        return true;
    }
}

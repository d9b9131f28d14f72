package dev.sluice.proxy.http;

import io.netty.util.AsciiString;

/**
 * The connection-specific fields as HAProxy 2.6's writers treat them. The model keeps them as HTTP/1 brought them
 * (as HAProxy's HTX does: only the close and keep-alive tokens leave Connection at parse time); each writer drops or
 * reduces them for its protocol: HTTP/1 reduces TE ({@link #teValue}), HTTP/2 and HTTP/3 also drop
 * {@link #connectionSpecific} fields (mux_h2.c's h2s_frt_make_resp_headers and h2s_bck_make_req_headers, h3.c's
 * h3_resp_headers_send) and, in trailers, {@link #notATrailer} ones (h2s_make_trailers). Stateless.
 */
public final class HopByHop {
    private HopByHop() {
    }

    public static final AsciiString TRAILERS = AsciiString.cached("trailers");

    /**
     * Connection, Proxy-Connection, Keep-Alive, Upgrade and Transfer-Encoding: fields that do not exist in HTTP/2
     * and HTTP/3 (RFC 9113 8.2.2, RFC 9114 4.2), which a peer answers with a stream error.
     */
    public static boolean connectionSpecific(AsciiString name) {
        return switch (name.length()) {
            case 7 -> name.contentEquals(HeaderNames.UPGRADE);
            case 10 -> name.contentEquals(HeaderNames.CONNECTION) || name.contentEquals(HeaderNames.KEEP_ALIVE);
            case 16 -> name.contentEquals(HeaderNames.PROXY_CONNECTION);
            case 17 -> name.contentEquals(HeaderNames.TRANSFER_ENCODING);
            default -> false;
        };
    }

    /** Whether {@code name} is TE. */
    public static boolean isTe(AsciiString name) {
        return name.length() == 2 && name.contentEquals(HeaderNames.TE);
    }

    /**
     * What a TE field becomes on the way out, each field on its own (HAProxy's rule in mux_h1.c, mux_h2.c and h3.c):
     * {@link #TRAILERS} when the first occurrence of "trailers" (case-sensitive, anywhere in the value) ends the value
     * or is followed by a comma, else null (the field is not sent). So "deflate, trailers" and "trailers, deflate"
     * become "trailers", while "Trailers", "trailers;q=0.5" and "trailers ,x" are dropped.
     */
    public static AsciiString teValue(AsciiString v) {
        int i = v.indexOf(TRAILERS, 0);
        if (i < 0) {
            return null;
        }
        int after = i + TRAILERS.length();
        return after == v.length() || v.byteAt(after) == ',' ? TRAILERS : null;
    }

    /**
     * The fields HTTP/2 leaves out of trailers (h2s_make_trailers): the {@link #connectionSpecific} ones, TE, Host
     * and Content-Length.
     */
    public static boolean notATrailer(AsciiString name) {
        return connectionSpecific(name) || isTe(name) || name.contentEquals(HeaderNames.HOST)
                || name.contentEquals(HeaderNames.CONTENT_LENGTH);
    }
}

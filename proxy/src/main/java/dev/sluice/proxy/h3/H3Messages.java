package dev.sluice.proxy.h3;

import dev.sluice.proxy.h2.H2Messages;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.util.AsciiString;
import java.util.Map;

/**
 * Field sections between HTTP/3 and the protocol-neutral model. Requests are validated and translated by
 * {@code H2Messages.request} in its strict mode (RFC 9114 keeps HTTP/2's rules); this class writes responses
 * and trailers and reads request trailers. Stateless.
 */
final class H3Messages {
    private H3Messages() {
    }

    private static final AsciiString[] STATUS_TEXT = new AsciiString[1000];

    static {
        for (int i = 100; i < 1000; i++) {
            STATUS_TEXT[i] = AsciiString.cached(Integer.toString(i));
        }
    }

    /**
     * A response head as an HTTP/3 field section, without the connection-specific fields ({@code H2Messages.addFields}:
     * RFC 9114 4.2 has HTTP/2's rule). HAProxy 2.6's h3 drops Connection, Proxy-Connection, Keep-Alive and
     * Transfer-Encoding and reduces TE (h3_resp_headers_send, as fixed by commit 8ad266917 for 2.6) but sends Upgrade, which an HTTP/3 client
     * treats as malformed; Sluice drops it too.
     */
    static Http3Headers encodeResponse(ResponseHead r) {
        HttpFields f = r.fields();
        DefaultHttp3Headers h = new DefaultHttp3Headers(false, f.size() + 1);
        int s = r.status();
        h.status(s >= 100 && s < 1000 ? STATUS_TEXT[s] : AsciiString.of(Integer.toString(s)));
        H2Messages.addFields(h, f, false);
        return h;
    }

    /** Trailers as an HTTP/3 field section, with HTTP/2's exclusions ({@code H2Messages.addTrailers}). */
    static Http3Headers encodeTrailers(HttpFields f) {
        DefaultHttp3Headers h = new DefaultHttp3Headers(false, f.size());
        H2Messages.addTrailers(h, f);
        return h;
    }

    /** Request trailers: the fields of a second HEADERS frame (pseudo-fields dropped). */
    static HttpFields trailers(Http3Headers h) {
        HttpFields f = new HttpFields(Math.max(2, h.size()));
        for (Map.Entry<CharSequence, CharSequence> e : h) {
            if (e.getKey().length() > 0 && e.getKey().charAt(0) == ':') {
                continue;
            }
            f.add(AsciiString.of(e.getKey()), AsciiString.of(e.getValue()));
        }
        return f;
    }
}

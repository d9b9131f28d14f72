package dev.sluice.proxy.rules;

import dev.sluice.config.model.HttpRule;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.Status;
import dev.sluice.proxy.http.Stream;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * {@code http-request return}: the proxy answers by itself with a status, optional content type and
 * body, and extra fields, like HAProxy ({@code content-length} first, then {@code content-type}, then the
 * {@code hdr} fields). The body bytes are prepared once.
 */
public final class ReturnAction implements RequestAction {
    private final int status;
    private final AsciiString[] names;
    private final AsciiString[] values;
    private final byte[] body;

    public ReturnAction(HttpRule.Return r) {
        this.status = r.status();
        this.body = r.body() == null ? new byte[0] : r.body().getBytes(StandardCharsets.ISO_8859_1);
        int n = 1 + (r.contentType() != null ? 1 : 0) + r.headers().size();
        names = new AsciiString[n];
        values = new AsciiString[n];
        int i = 0;
        names[i] = HeaderNames.CONTENT_LENGTH;
        values[i++] = AsciiString.cached(Integer.toString(body.length));
        if (r.contentType() != null) {
            names[i] = HeaderNames.CONTENT_TYPE;
            values[i++] = AsciiString.cached(r.contentType());
        }
        for (HttpRule.Header h : r.headers()) {
            names[i] = AsciiString.cached(h.name().toLowerCase(java.util.Locale.ROOT));
            values[i++] = AsciiString.cached(h.value());
        }
    }

    @Override
    public boolean apply(Stream stream) {
        HttpFields f = new HttpFields(names.length + 2);
        for (int i = 0; i < names.length; i++) {
            f.add(names[i], values[i]);
        }
        ResponseHead head = new ResponseHead(HttpVersion.HTTP_1_1, status, Status.reason(status), f);
        head.bodyLength(body.length);
        stream.respond(head, body);
        return true;
    }
}

package dev.sluice.proxy.rules;

import java.util.List;

/**
 * A service that answers requests itself instead of a server: what {@code http-request use-service <name>}
 * names (Sluice has HAProxy's {@code prometheus-exporter}) and the stats page. Services are registered by
 * the runtime per frontend ({@link RuleTarget#service}); one instance serves every event loop at once.
 */
public interface Service {
    /** Answers the request the target carries. */
    Reply serve(RuleTarget t);

    /** An answer: status, content type (null for none), extra fields as name, value pairs, and body. */
    record Reply(int status, String contentType, List<String[]> fields, byte[] body) {
        public Reply {
            fields = List.copyOf(fields);
        }
    }

    /** Sends a reply as the proxy's own answer (counted as intercepted, logged with the 'L' cause). */
    static void send(RuleTarget t, Reply r) {
        dev.sluice.proxy.http.HttpFields f = new dev.sluice.proxy.http.HttpFields(r.fields().size() + 2);
        f.add(dev.sluice.proxy.http.HeaderNames.CONTENT_LENGTH, io.netty.util.AsciiString.of(Integer.toString(r.body().length)));
        if (r.contentType() != null) {
            f.add(dev.sluice.proxy.http.HeaderNames.CONTENT_TYPE, new io.netty.util.AsciiString(r.contentType()));
        }
        for (String[] kv : r.fields()) {
            f.add(new io.netty.util.AsciiString(kv[0].toLowerCase(java.util.Locale.ROOT)), new io.netty.util.AsciiString(kv[1]));
        }
        dev.sluice.proxy.http.ResponseHead head = new dev.sluice.proxy.http.ResponseHead(dev.sluice.proxy.http.HttpVersion.HTTP_1_1, r.status(),
                dev.sluice.proxy.http.Status.reason(r.status()), f);
        head.bodyLength(r.body().length);
        t.answer(head, r.body(), 'L');
    }
}

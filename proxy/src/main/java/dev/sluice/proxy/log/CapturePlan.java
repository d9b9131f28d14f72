package dev.sluice.proxy.log;

import dev.sluice.config.model.Captures;
import io.netty.util.AsciiString;

/**
 * A frontend's capture slots ({@code capture request|response header}, {@code declare capture}, the slots of
 * {@code http-request|response capture} rules, {@code capture cookie}) with their field names lower-cased once.
 * They exist whether or not the frontend logs: {@code capture.req.hdr(n)} and {@code capture.res.hdr(n)} read them in
 * rules too. Immutable; shared by the frontend's streams.
 */
public final class CapturePlan {
    private final Captures config;
    private final AsciiString[] requestNames;
    private final AsciiString[] responseNames;

    public CapturePlan(Captures config) {
        this.config = config;
        this.requestNames = LogCaptures.names(config.request());
        this.responseNames = LogCaptures.names(config.response());
    }

    /** A new exchange's capture slots when the frontend declares any, else null (made on demand by rules). */
    public LogCaptures newCaptures() {
        return config.isEmpty() ? null : captures();
    }

    /** Capture slots for an exchange, even when the frontend declares none (for a rule's log level or unique id). */
    public LogCaptures captures() {
        return new LogCaptures(config, requestNames, responseNames);
    }
}

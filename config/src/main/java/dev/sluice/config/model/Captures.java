package dev.sluice.config.model;

import java.util.List;

/**
 * What a frontend keeps of each exchange for its log lines: the request and response capture slots in
 * declaration order (one numbering per direction across {@code capture request|response header},
 * {@code declare capture} and {@code http-request capture ... len}), and the {@code capture cookie}.
 * HAProxy logs the slots as {@code %hr}/{@code %hs} and reads them with {@code capture.req.hdr(<n>)}.
 */
public record Captures(List<Slot> request, List<Slot> response, Cookie cookie) {

    public static final Captures NONE = new Captures(List.of(), List.of(), null);

    public Captures {
        request = List.copyOf(request);
        response = List.copyOf(response);
    }

    /**
     * One slot of at most {@code len} bytes. {@code header} is the field captured when the message
     * arrives (its last occurrence, as HAProxy), or null for a slot that rules fill.
     */
    public record Slot(String header, int len) {
    }

    /**
     * {@code capture cookie <name> len <n>}: the first request cookie and response {@code Set-Cookie} whose
     * name starts with {@code name} ({@code name=} for an exact name), logged as {@code %CC} and {@code %CS}.
     */
    public record Cookie(String name, int len) {
    }

    public boolean isEmpty() {
        return request.isEmpty() && response.isEmpty() && cookie == null;
    }
}

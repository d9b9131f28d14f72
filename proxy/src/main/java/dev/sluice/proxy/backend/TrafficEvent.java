package dev.sluice.proxy.backend;

import dev.sluice.config.model.ServerObserve.Layer;

/**
 * What a stream saw of its server, for the analysis of live traffic ({@code observe}): HAProxy's HANA statuses with
 * their descriptions (the log's "last one was: ...") and what each one is at each observed layer: an error, a success
 * (which clears the consecutive errors) or nothing. Layer 4 watches connections; layer 7 the failed connections and the
 * HTTP responses. Constants only; thread-safe.
 */
public enum TrafficEvent {
    L4_OK("L4 successful connection", Verdict.OK, Verdict.IGNORE),
    L4_ERR("L4 unsuccessful connection", Verdict.ERROR, Verdict.ERROR),
    HTTP_OK("Correct http response", Verdict.IGNORE, Verdict.OK),
    HTTP_STS("Wrong http response", Verdict.IGNORE, Verdict.ERROR),
    HTTP_HDRRSP("Invalid http response (headers)", Verdict.IGNORE, Verdict.ERROR),
    HTTP_RSP("Invalid http response", Verdict.IGNORE, Verdict.ERROR),
    HTTP_READ_ERROR("Read error (http)", Verdict.IGNORE, Verdict.ERROR),
    HTTP_READ_TIMEOUT("Read timeout (http)", Verdict.IGNORE, Verdict.ERROR),
    HTTP_BROKEN_PIPE("Close from server (http)", Verdict.IGNORE, Verdict.ERROR);

    /** What an event is for the analysis. */
    public enum Verdict {
        IGNORE, OK, ERROR
    }

    private final String description;
    private final Verdict layer4;
    private final Verdict layer7;

    TrafficEvent(String description, Verdict layer4, Verdict layer7) {
        this.description = description;
        this.layer4 = layer4;
        this.layer7 = layer7;
    }

    public String description() {
        return description;
    }

    /** What it is when {@code layer} is observed. */
    public Verdict at(Layer layer) {
        return switch (layer) {
            case LAYER4 -> layer4;
            case LAYER7 -> layer7;
            case NONE -> Verdict.IGNORE;
        };
    }

    /**
     * A response status from the server: a success, unless a 5xx other than 501 and 505 (which a client's request
     * causes, as HAProxy reasons), or a status outside 100..599.
     */
    public static TrafficEvent ofStatus(int status) {
        return status >= 100 && (status < 500 || status == 501 || status == 505) ? HTTP_OK : HTTP_STS;
    }
}

package dev.sluice.proxy.stats;

import java.util.concurrent.atomic.LongAdder;

/**
 * A frontend's HTTP/2 counters: the frame and error columns of HAProxy 2.6's h2 stats module (what
 * {@code show stat} prints after the ssl columns) and Sluice's own flood rejections, one count per kind of
 * protection. One {@link LongAdder} per value. Received frames are not added one by one: a connection counts
 * them in plain fields and adds what it counted once per read (see {@code H2ClientConnection}); errors are
 * rare and added as they happen.
 */
public final class H2Counters {

    /** HAProxy's h2 module columns that count frames and errors, with their {@code show stat} names. */
    public enum Column {
        HEADERS_RCVD(StatColumn.H2_HEADERS_RCVD),
        DATA_RCVD(StatColumn.H2_DATA_RCVD),
        SETTINGS_RCVD(StatColumn.H2_SETTINGS_RCVD),
        RST_STREAM_RCVD(StatColumn.H2_RST_STREAM_RCVD),
        GOAWAY_RCVD(StatColumn.H2_GOAWAY_RCVD),
        CONN_PROTO_ERR(StatColumn.H2_DETECTED_CONN_PROTOCOL_ERRORS),
        STRM_PROTO_ERR(StatColumn.H2_DETECTED_STRM_PROTOCOL_ERRORS),
        RST_STREAM_RESP(StatColumn.H2_RST_STREAM_RESP),
        GOAWAY_RESP(StatColumn.H2_GOAWAY_RESP);

        private final StatColumn column;

        Column(StatColumn column) {
            this.column = column;
        }

        /** The {@code show stat} column. */
        public StatColumn column() {
            return column;
        }
    }

    /**
     * The flood protections of an HTTP/2 client connection. Each one ends the connection with GOAWAY
     * ENHANCE_YOUR_CALM; HAProxy 2.6 has none of them, so they have no {@code show stat} column and are
     * exported as {@code sluice_h2_flood_rejections_total{proxy,kind}}.
     */
    public enum Flood {
        /** Too many RST_STREAM received in the window (rapid reset, CVE-2023-44487). */
        RAPID_RESET("rapid_reset"),
        /** Too many RST_STREAM the client made the proxy send in the window (CVE-2025-55163). */
        RESETS_SENT("resets_sent"),
        /** Too many consecutive DATA frames without payload nor END_STREAM. */
        EMPTY_DATA("empty_data"),
        /** Too many control frames (SETTINGS ACK, PING ACK, RST_STREAM) queued for a client that does not read them. */
        CONTROL_FRAMES("control_frames"),
        /** Too many small CONTINUATION frames in one header block. */
        CONTINUATION("continuation"),
        /** An ENHANCE_YOUR_CALM error none of the above explains. */
        OTHER("other");

        private final String label;

        Flood(String label) {
            this.label = label;
        }

        /** The value of the {@code kind} label. */
        public String label() {
            return label;
        }
    }

    private static final Column[] COLUMNS = Column.values();
    private static final Flood[] FLOODS = Flood.values();

    private final LongAdder[] columns = adders(COLUMNS.length);
    private final LongAdder[] floods = adders(FLOODS.length);

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    public void add(Column c) {
        columns[c.ordinal()].increment();
    }

    /** Adds the frames one connection received since it last added them; zeros cost nothing. */
    public void addFrames(int headers, int data, int settings, int rstStream, int goaway) {
        addIf(Column.HEADERS_RCVD, headers);
        addIf(Column.DATA_RCVD, data);
        addIf(Column.SETTINGS_RCVD, settings);
        addIf(Column.RST_STREAM_RCVD, rstStream);
        addIf(Column.GOAWAY_RCVD, goaway);
    }

    private void addIf(Column c, int n) {
        if (n != 0) {
            columns[c.ordinal()].add(n);
        }
    }

    public void flood(Flood f) {
        floods[f.ordinal()].increment();
    }

    public long get(Column c) {
        return columns[c.ordinal()].sum();
    }

    public long get(Flood f) {
        return floods[f.ordinal()].sum();
    }

    /** {@code clear counters all}: HAProxy's h2 module is clearable, and so are the flood counts. */
    public void clear() {
        for (LongAdder a : columns) {
            a.reset();
        }
        for (LongAdder a : floods) {
            a.reset();
        }
    }
}

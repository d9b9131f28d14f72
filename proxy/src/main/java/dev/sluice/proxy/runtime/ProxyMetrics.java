package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Mode;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.check.CheckStatus;
import dev.sluice.proxy.check.HealthCheck;
import dev.sluice.proxy.metrics.MetricSink;
import dev.sluice.proxy.metrics.MetricSource;
import dev.sluice.proxy.metrics.Scope;
import dev.sluice.proxy.metrics.ScrapeQuery;
import dev.sluice.proxy.stats.H2Counters;
import dev.sluice.proxy.stats.InfoField;
import dev.sluice.proxy.stats.StatColumn;
import dev.sluice.proxy.stats.StatRow;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.sticktable.StickTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The process, frontend, backend, server and stick-table families of the Prometheus exporter, under the names,
 * types, labels and help strings of HAProxy 2.6's exporter ({@code haproxy_process_*}, {@code haproxy_frontend_*},
 * {@code haproxy_backend_*}, {@code haproxy_server_*}, {@code haproxy_sticktable_*}), so that dashboards built for
 * HAProxy work unchanged. As in HAProxy, the values are those {@code show info} and {@code show stat} print: the
 * process families are those of the {@link InfoField}s that have one, valued from {@link ProxyRuntime#info()}; the
 * proxy and server families read the very {@link StatRow}s of {@code show stat} ({@link StatRows}), one per object
 * per scrape, column by column; a column {@code show stat} leaves empty for an object (a server without
 * {@code maxconn}, {@code maxqueue}, slow start or checks) is {@code NaN}, as HAProxy writes it. Columns Sluice does
 * not measure ({@code eint}, the idle-connection ones) have no family. Labels: {@code proxy}, {@code server},
 * {@code code} for response classes, {@code state} for statuses, {@code name} and {@code type} for stick tables.
 */
final class ProxyMetrics implements MetricSource {
    private static final String[] CODES = {"1xx", "2xx", "3xx", "4xx", "5xx", "other"};
    private static final StatColumn[] CODE_COLUMNS = {
        StatColumn.HRSP_1XX, StatColumn.HRSP_2XX, StatColumn.HRSP_3XX, StatColumn.HRSP_4XX, StatColumn.HRSP_5XX, StatColumn.HRSP_OTHER
    };
    /** HAProxy's server states, the {@code state} label of {@code haproxy_server_status}. */
    private static final String[] SERVER_STATES = {"DOWN", "UP", "MAINT", "DRAIN", "NOLB"};
    /** HAProxy's frontend and backend states. */
    private static final String[] PROXY_STATES = {"DOWN", "UP"};
    /** The check statuses HAProxy's exporter lists (those whose result is at least "failed"). */
    private static final CheckStatus[] CHECK_STATES;
    private static final String[] CHECK_STATE_NAMES;
    private static final String STATUS_HELP = "Current status of the service, per state label value.";

    static {
        List<CheckStatus> l = new ArrayList<>();
        for (CheckStatus st : CheckStatus.values()) {
            if (st.result() != CheckStatus.Result.UNKNOWN) {
                l.add(st);
            }
        }
        CHECK_STATES = l.toArray(new CheckStatus[0]);
        CHECK_STATE_NAMES = new String[CHECK_STATES.length];
        for (int i = 0; i < CHECK_STATES.length; i++) {
            CHECK_STATE_NAMES[i] = CHECK_STATES[i].info();
        }
    }

    private static final String SINCE = " since the worker process started";
    /** The columns with a Prometheus family, in HAProxy's field order. */
    private static final StatColumn[] EXPORTED = Arrays.stream(StatColumn.values()).filter(c -> c.prometheus() != null)
            .toArray(StatColumn[]::new);
    /** The {@code show info} fields with a Prometheus family, the process families. */
    private static final InfoField[] PROCESS = Arrays.stream(InfoField.values()).filter(f -> f.prometheus() != null)
            .toArray(InfoField[]::new);
    /** The family names of {@link #EXPORTED} per object type (null where the type has no such family). */
    private static final Map<StatRow.Type, String[]> NAMES = new EnumMap<>(StatRow.Type.class);

    static {
        for (StatRow.Type type : StatRow.Type.values()) {
            String[] names = new String[EXPORTED.length];
            for (int i = 0; i < EXPORTED.length; i++) {
                StatColumn.Prometheus p = EXPORTED[i].prometheus();
                names[i] = p.exportedFor(type) ? prefix(type) + p.suffix() : null;
            }
            NAMES.put(type, names);
        }
    }

    /**
     * The families HAProxy's exporter leaves out for a proxy that is not in HTTP mode, per object type (the response
     * classes too); servers only lose the response classes.
     */
    private static final Map<StatRow.Type, Set<StatColumn>> NOT_TCP = Map.of(
            StatRow.Type.FRONTEND, EnumSet.of(StatColumn.REQ_RATE_MAX, StatColumn.REQ_TOT, StatColumn.INTERCEPTED, StatColumn.CACHE_LOOKUPS,
                    StatColumn.CACHE_HITS, StatColumn.COMP_IN, StatColumn.COMP_OUT, StatColumn.COMP_BYP, StatColumn.COMP_RSP),
            StatRow.Type.BACKEND, EnumSet.of(StatColumn.REQ_TOT, StatColumn.CACHE_LOOKUPS, StatColumn.CACHE_HITS, StatColumn.COMP_IN,
                    StatColumn.COMP_OUT, StatColumn.COMP_BYP, StatColumn.COMP_RSP),
            StatRow.Type.SERVER, EnumSet.noneOf(StatColumn.class));

    private final ProxyRuntime rt;

    ProxyMetrics(ProxyRuntime rt) {
        this.rt = rt;
    }

    @Override
    public void collect(MetricSink m) {
        ScrapeQuery q = m.query();
        if (q.wants(Scope.GLOBAL)) {
            process(m);
        }
        if (q.wants(Scope.FRONTEND)) {
            for (Frontend fe : rt.frontends().values()) {
                frontend(m, fe);
            }
        }
        if (q.wants(Scope.BACKEND)) {
            for (Backend be : rt.backends().values()) {
                backend(m, be);
            }
        }
        if (q.wants(Scope.SERVER)) {
            for (Backend be : rt.backends().values()) {
                for (Server s : be.servers()) {
                    if (!q.noMaint() || !ProxyCommands.hidden(s, true, false)) {
                        server(m, s);
                    }
                }
            }
        }
        if (q.wants(Scope.STICKTABLE)) {
            for (StickTable t : rt.stickTables().all()) {
                if (t.size() > 0) {
                    String type = t.keyType().haproxyName();
                    m.gauge("haproxy_sticktable_size", "Stick table size.", t.size(), "name", t.name(), "type", type);
                    m.gauge("haproxy_sticktable_used", "Number of entries used in this stick table.", t.used(), "name", t.name(), "type", type);
                }
            }
        }
    }

    private void process(MetricSink m) {
        Map<InfoField, Object> info = rt.info();
        for (InfoField f : PROCESS) {
            InfoField.Prometheus p = f.prometheus();
            Object v = info.get(f);
            if (p.label() != null) {
                m.gauge(p.name(), f.description(), 1, p.label(), String.valueOf(v));
            } else if (p.counter()) {
                m.counter(p.name(), f.description(), number(v));
            } else {
                m.gauge(p.name(), f.description(), number(v));
            }
        }
    }

    private static double number(Object v) {
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        try {
            return v == null ? 0 : Double.parseDouble(v.toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void frontend(MetricSink m, Frontend fe) {
        StatRow r = StatRows.frontend(fe);
        String[] l = {"proxy", fe.name()};
        // HAProxy: UP unless stopped (a paused frontend is UP)
        m.gauges("haproxy_frontend_status", STATUS_HELP, "state", PROXY_STATES, oneOf(PROXY_STATES, "STOP".equals(r.get(StatColumn.STATUS)) ? "DOWN" : "UP"),
                l);
        columns(m, StatRow.Type.FRONTEND, r, l, fe.config().mode() == Mode.HTTP);
        H2Counters h2 = fe.h2();
        for (H2Counters.Flood f : H2Counters.Flood.values()) {
            m.counter("sluice_h2_flood_rejections_total", "HTTP/2 client connections closed by a flood protection (GOAWAY ENHANCE_YOUR_CALM).",
                    h2.get(f), "proxy", fe.name(), "kind", f.label());
        }
    }

    private static void backend(MetricSink m, Backend be) {
        StatRow r = StatRows.backend(be, Level.USER);
        String[] l = {"proxy", be.name()};
        m.gauges("haproxy_backend_status", STATUS_HELP, "state", PROXY_STATES, oneOf(PROXY_STATES, "UP".equals(r.get(StatColumn.STATUS)) ? "UP" : "DOWN"), l);
        columns(m, StatRow.Type.BACKEND, r, l, be.config().mode() == Mode.HTTP);
        // the servers counted by state and by check status
        double[] states = new double[SERVER_STATES.length];
        double[] checks = new double[CHECK_STATES.length];
        for (Server s : be.servers()) {
            String st = state(StatRows.status(s));
            for (int i = 0; i < SERVER_STATES.length; i++) {
                if (SERVER_STATES[i].equals(st)) {
                    states[i]++;
                }
            }
            HealthCheck c = s.checked() ? HealthCheck.of(s) : null;
            if (c != null && !c.paused()) {
                for (int i = 0; i < CHECK_STATES.length; i++) {
                    if (CHECK_STATES[i] == c.status()) {
                        checks[i]++;
                    }
                }
            }
        }
        if (!be.servers().isEmpty()) {
            m.gauges("haproxy_backend_agg_server_status", "Backend's aggregated gauge of servers' status", "state", SERVER_STATES, states, l);
            // HAProxy 2.6's misnamed first version of agg_server_status, with the same values
            m.gauges("haproxy_backend_agg_server_check_status", "Backend's aggregated gauge of servers' state check status", "state", SERVER_STATES,
                    states.clone(), l);
            m.gauges("haproxy_backend_agg_check_status", "Backend's aggregated gauge of servers' state check status", "state", CHECK_STATE_NAMES,
                    checks, l);
        }
    }

    private static void server(MetricSink m, Server srv) {
        StatRow r = StatRows.server(srv, Level.USER);
        String[] l = {"proxy", srv.backend().name(), "server", srv.name()};
        m.gauges("haproxy_server_status", STATUS_HELP, "state", SERVER_STATES, oneOf(SERVER_STATES, state(r.get(StatColumn.STATUS))), l);
        columns(m, StatRow.Type.SERVER, r, l, srv.backend().config().mode() == Mode.HTTP);
        HealthCheck c = srv.checked() ? HealthCheck.of(srv) : null;
        if (c != null && !c.paused()) {
            double[] v = new double[CHECK_STATES.length];
            for (int i = 0; i < CHECK_STATES.length; i++) {
                v[i] = c.status() == CHECK_STATES[i] ? 1 : 0;
            }
            m.gauges("haproxy_server_check_status", "Status of last health check, per state label value.", "state", CHECK_STATE_NAMES, v, l);
            // as HAProxy: 0 for a status without a code
            m.gauge("haproxy_server_check_code", "layer5-7 code, if available of the last health check.", c.status().hasCode() ? c.code() : 0, l);
            if (c.status().finished() && c.duration() >= 0) {
                m.gauge("haproxy_server_check_duration_seconds", "Total duration of the latest server health check, in seconds.",
                        c.duration() / 1000.0, l);
            }
        }
    }

    /** The word of a {@code show stat} server status HAProxy's exporter knows ("UP 1/3" is UP, "no check" too). */
    private static String state(String status) {
        return status.equals("no check") ? "UP" : status.split(" ")[0];
    }

    private static double[] oneOf(String[] states, String state) {
        double[] v = new double[states.length];
        for (int i = 0; i < states.length; i++) {
            v[i] = states[i].equals(state) ? 1 : 0;
        }
        return v;
    }

    /** A {@code show stat} field as a number: NaN when it is empty (or, which no column should be, not a number). */
    private static double number(String v) {
        if (v == null || v.isEmpty()) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /**
     * The plain families of one object from its {@code show stat} row; an empty column is NaN. Without {@code http} (a
     * {@code mode tcp} proxy), the HTTP families are left out as HAProxy's exporter does.
     */
    private static void columns(MetricSink m, StatRow.Type type, StatRow r, String[] l, boolean http) {
        String[] names = NAMES.get(type);
        Set<StatColumn> skipped = http ? Set.of() : NOT_TCP.get(type);
        for (int i = 0; i < EXPORTED.length; i++) {
            if (names[i] == null || skipped.contains(EXPORTED[i])) {
                continue;
            }
            StatColumn col = EXPORTED[i];
            double d = number(r.get(col)) * col.prometheus().scale();
            if (col.prometheus().counter()) {
                m.counter(names[i], col.prometheusHelp(), d, l);
            } else {
                m.gauge(names[i], col.prometheusHelp(), d, l);
            }
        }
        if (!http) {
            return;
        }
        double[] codes = new double[CODE_COLUMNS.length];
        for (int i = 0; i < CODE_COLUMNS.length; i++) {
            codes[i] = number(r.get(CODE_COLUMNS[i]));
        }
        m.counters(prefix(type) + "http_responses_total", "Total number of HTTP responses with status 100-199 returned by this object" + SINCE, "code",
                CODES, codes, l);
    }

    private static String prefix(StatRow.Type type) {
        return switch (type) {
            case FRONTEND -> "haproxy_frontend_";
            case BACKEND -> "haproxy_backend_";
            case SERVER -> "haproxy_server_";
            // no family: HAProxy 2.6's exporter writes none for listeners
            case LISTENER -> "haproxy_listener_";
        };
    }
}

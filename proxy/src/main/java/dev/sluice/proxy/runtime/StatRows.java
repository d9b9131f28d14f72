package dev.sluice.proxy.runtime;

import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.check.CheckStatus;
import dev.sluice.proxy.check.HealthCheck;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import dev.sluice.proxy.stats.H2Counters;
import dev.sluice.proxy.stats.StatRow;

/**
 * The {@code show stat} rows of frontends, backends and servers, from their counter snapshots and health checks.
 * Columns follow HAProxy 2.6; those Sluice does not measure (idle connection counts, agent checks, the module columns
 * of backends and servers, a frontend's h1 bytes and streams) stay empty, and those counting what Sluice never does
 * (compression, caching) are 0. Addresses and algorithms are shown from the
 * operator level up, as HAProxy does.
 */
final class StatRows {
    private StatRows() {
    }

    static StatRow frontend(Frontend fe) {
        Counters.Snapshot s = fe.snapshot();
        StatRow r = new StatRow()
                .set("pxname", fe.name()).set("svname", "FRONTEND")
                .set("scur", s.current()).set("smax", s.currentMax()).set("slim", fe.limit().max())
                .set("stot", s.get(Counter.SESSIONS)).set("bin", s.get(Counter.BYTES_IN)).set("bout", s.get(Counter.BYTES_OUT))
                .set("dreq", s.get(Counter.DENIED_REQUESTS)).set("dresp", s.get(Counter.DENIED_RESPONSES))
                .set("ereq", s.get(Counter.REQUEST_ERRORS)).set("status", fe.status())
                .set("pid", 1).set("iid", fe.id()).set("sid", 0).set("type", StatRow.Type.FRONTEND.code())
                .set("rate", s.rate(Counter.SESSIONS)).set("rate_lim", 0).set("rate_max", s.rateMax(Counter.SESSIONS))
                .set("req_rate", s.rate(Counter.REQUESTS)).set("req_rate_max", s.rateMax(Counter.REQUESTS))
                .set("req_tot", s.get(Counter.REQUESTS))
                .set("comp_in", s.get(Counter.COMP_IN)).set("comp_out", s.get(Counter.COMP_OUT)).set("comp_byp", s.get(Counter.COMP_BYP))
                .set("comp_rsp", s.get(Counter.COMP_RSP))
                .set("mode", "http")
                .set("conn_rate", s.rate(Counter.CONNECTIONS)).set("conn_rate_max", s.rateMax(Counter.CONNECTIONS))
                .set("conn_tot", s.get(Counter.CONNECTIONS)).set("intercepted", s.get(Counter.INTERCEPTED))
                .set("dcon", 0).set("dses", 0).set("wrew", 0).set("cache_lookups", 0).set("cache_hits", 0)
                .set("ssl_sess", fe.totalTlsSessions()).set("ssl_reused_sess", fe.totalTlsReused())
                .set("ssl_failed_handshake", fe.totalTlsFailures());
        long[] pc = fe.protocolConnections();
        r.set("h2_open_connections", pc[2]).set("h2_total_connections", pc[3])
                .set("h1_open_connections", pc[0]).set("h1_total_connections", pc[1]);
        H2Counters h2 = fe.h2();
        for (H2Counters.Column c : H2Counters.Column.values()) {
            r.set(c.column(), h2.get(c));
        }
        responses(r, s);
        return r;
    }

    static StatRow backend(Backend be, Level level) {
        Counters.Snapshot s = be.snapshot();
        long now = System.currentTimeMillis();
        int weight = be.usableWeight();
        StatRow r = new StatRow()
                .set("pxname", be.name()).set("svname", "BACKEND")
                .set("qcur", be.queue().length()).set("qmax", be.queue().max()).set("scur", s.current()).set("smax", s.currentMax())
                .set("slim", be.fullconn())
                .set("stot", s.get(Counter.SESSIONS)).set("bin", s.get(Counter.BYTES_IN)).set("bout", s.get(Counter.BYTES_OUT))
                .set("dreq", s.get(Counter.DENIED_REQUESTS)).set("dresp", s.get(Counter.DENIED_RESPONSES))
                .set("econ", s.get(Counter.CONNECT_ERRORS)).set("eresp", s.get(Counter.RESPONSE_ERRORS))
                .set("wretr", s.get(Counter.RETRIES)).set("wredis", s.get(Counter.REDISPATCHES))
                .set("status", be.up() ? "UP" : "DOWN").set("weight", weight).set("act", be.usableActiveServers())
                .set("bck", be.usableServers() - be.usableActiveServers())
                .set("chkdown", be.downTransitions()).set("lastchg", (now - be.lastChange()) / 1000).set("downtime", be.downtime() / 1000)
                .set("pid", 1).set("iid", be.id()).set("sid", 0).set("lbtot", s.get(Counter.SELECTED))
                .set("type", StatRow.Type.BACKEND.code())
                .set("rate", s.rate(Counter.SESSIONS)).set("rate_max", s.rateMax(Counter.SESSIONS))
                .set("req_tot", s.get(Counter.REQUESTS))
                .set("cli_abrt", s.get(Counter.CLIENT_ABORTS)).set("srv_abrt", s.get(Counter.SERVER_ABORTS))
                .set("comp_in", s.get(Counter.COMP_IN)).set("comp_out", s.get(Counter.COMP_OUT)).set("comp_byp", s.get(Counter.COMP_BYP))
                .set("comp_rsp", s.get(Counter.COMP_RSP))
                .set("lastsess", lastSession(s, now))
                .set("cookie", level.allows(Level.OPERATOR) && be.cookie() != null ? be.cookie().config().name() : null)
                .set("mode", "http").set("algo", level.allows(Level.OPERATOR) ? be.config().balance().algorithm().keyword() : null)
                .set("wrew", 0).set("connect", s.get(Counter.CONNECTS)).set("reuse", s.get(Counter.REUSES))
                .set("cache_lookups", 0).set("cache_hits", 0).set("uweight", weight);
        responses(r, s);
        timers(r, be.timeStats().snapshot());
        return r;
    }

    static StatRow server(Server srv, Level level) {
        Counters.Snapshot s = srv.snapshot();
        long now = System.currentTimeMillis();
        StatRow r = new StatRow()
                .set("pxname", srv.backend().name()).set("svname", srv.name())
                .set("qcur", srv.queue().length()).set("qmax", srv.queue().max()).set("scur", s.current()).set("smax", s.currentMax())
                .set("slim", srv.maxconn() > 0 ? srv.maxconn() : null)
                .set("stot", s.get(Counter.SESSIONS)).set("bin", s.get(Counter.BYTES_IN)).set("bout", s.get(Counter.BYTES_OUT))
                .set("dresp", s.get(Counter.DENIED_RESPONSES))
                .set("econ", s.get(Counter.CONNECT_ERRORS)).set("eresp", s.get(Counter.RESPONSE_ERRORS))
                .set("wretr", s.get(Counter.RETRIES)).set("wredis", s.get(Counter.REDISPATCHES))
                .set("status", status(srv)).set("weight", srv.weight()).set("act", srv.backup() ? 0 : 1).set("bck", srv.backup() ? 1 : 0)
                .set("lastchg", (now - srv.lastChange()) / 1000)
                .set("qlimit", srv.maxqueue() > 0 ? srv.maxqueue() : null)
                .set("throttle", srv.throttle() >= 0 ? srv.throttle() : null)
                .set("pid", 1).set("iid", srv.backend().id()).set("sid", srv.id()).set("lbtot", s.get(Counter.SELECTED))
                .set("type", StatRow.Type.SERVER.code())
                .set("rate", s.rate(Counter.SESSIONS)).set("rate_max", s.rateMax(Counter.SESSIONS))
                .set("req_tot", s.get(Counter.REQUESTS))
                .set("cli_abrt", s.get(Counter.CLIENT_ABORTS)).set("srv_abrt", s.get(Counter.SERVER_ABORTS))
                .set("lastsess", lastSession(s, now))
                .set("addr", level.allows(Level.OPERATOR) ? address(srv) : null)
                .set("cookie", level.allows(Level.OPERATOR) ? srv.cookie() : null)
                .set("mode", "http").set("wrew", 0).set("connect", s.get(Counter.CONNECTS)).set("reuse", s.get(Counter.REUSES))
                .set("uweight", srv.weight());
        responses(r, s);
        timers(r, srv.timeStats().snapshot());
        HealthCheck c = srv.checked() ? srv.check() : null;
        if (c != null) {
            CheckStatus st = c.status();
            r.set("chkfail", c.failures()).set("chkdown", srv.downTransitions()).set("downtime", srv.downtime() / 1000)
                    .set("check_status", (c.running() ? "* " : "") + st.info())
                    .set("check_code", st.hasCode() ? c.code() : null)
                    .set("check_duration", st.finished() && c.duration() >= 0 ? c.duration() : null)
                    .set("check_desc", st.description()).set("last_chk", c.desc())
                    .set("check_rise", c.rise()).set("check_fall", c.fall()).set("check_health", c.health());
        }
        return r;
    }

    /**
     * HAProxy's status of a server: MAINT, then (running) UP, {@code UP 1/3} while its checks are taking it down, DRAIN,
     * {@code no check} when unchecked; (NOLB) NOLB or {@code NOLB 1/3}; (stopped) DOWN, or {@code DOWN 1/2} while its
     * checks are bringing it up.
     */
    static String status(Server srv) {
        if ((srv.adminState() & Server.FORCED_MAINT) != 0 || srv.maintenance()) {
            return srv.unresolved() && (srv.adminState() & Server.FORCED_MAINT) == 0 ? "MAINT (resolution)" : "MAINT";
        }
        HealthCheck c = srv.checked() ? srv.check() : null;
        int h = c == null ? 0 : c.health();
        int full = c == null ? 0 : c.rise() + c.fall() - 1;
        if (srv.up() && !srv.stopping()) {
            boolean goingDown = c != null && h < full;
            String progress = goingDown ? " " + (h - c.rise() + 1) + "/" + c.fall() : "";
            if ((srv.adminState() & Server.FORCED_DRAIN) != 0) {
                return "DRAIN" + progress;
            }
            return c == null ? "no check" : "UP" + progress;
        }
        if (srv.up()) {
            return c == null || h == full ? "NOLB" : "NOLB " + (h - c.rise() + 1) + "/" + c.fall();
        }
        return c != null && h > 0 ? "DOWN " + h + "/" + c.rise() : "DOWN";
    }

    static String address(Server srv) {
        if (srv.unresolved()) {
            return null;
        }
        String ip = srv.address().getAddress().getHostAddress();
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + srv.address().getPort();
    }

    private static long lastSession(Counters.Snapshot s, long now) {
        return s.lastSession() < 0 ? -1 : (now - s.lastSession()) / 1000;
    }

    /** {@code qtime ctime rtime ttime}, averaged over the last 1024 requests, and their maxima. */
    private static void timers(StatRow r, dev.sluice.proxy.stats.TimeStats.Snapshot t) {
        r.set("qtime", t.queue()).set("ctime", t.connect()).set("rtime", t.response()).set("ttime", t.total())
                .set("qtime_max", t.queueMax()).set("ctime_max", t.connectMax()).set("rtime_max", t.responseMax()).set("ttime_max", t.totalMax());
    }

    private static void responses(StatRow r, Counters.Snapshot s) {
        r.set("hrsp_1xx", s.get(Counter.HRSP_1XX)).set("hrsp_2xx", s.get(Counter.HRSP_2XX)).set("hrsp_3xx", s.get(Counter.HRSP_3XX))
                .set("hrsp_4xx", s.get(Counter.HRSP_4XX)).set("hrsp_5xx", s.get(Counter.HRSP_5XX)).set("hrsp_other", s.get(Counter.HRSP_OTHER));
    }
}

package dev.sluice.proxy.runtime;

import static dev.sluice.proxy.stats.StatColumn.*;

import dev.sluice.proxy.stream.Frontend;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.check.CheckStatus;
import dev.sluice.proxy.check.AgentCheck;
import dev.sluice.proxy.check.HealthCheck;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import dev.sluice.proxy.stats.H2Counters;
import dev.sluice.proxy.stats.StatRow;
import dev.sluice.proxy.stats.TimeStats;

/**
 * The {@code show stat} rows of frontends, backends and servers, from their counter snapshots and health checks.
 * Columns follow HAProxy 2.6; those Sluice does not measure (idle connection counts, agent checks, the module columns
 * of backends and servers, a frontend's h1 bytes and streams) stay empty, and those counting what Sluice never does
 * (compression, caching) are 0. Addresses and algorithms are shown from the
 * operator level up, as HAProxy does. A {@code mode tcp} proxy's rows say {@code tcp} and leave the HTTP columns empty
 * as HAProxy 2.6 does: the response classes everywhere, {@code req_tot} of backends and servers, a frontend's
 * {@code intercepted} and cache columns, a backend's cache columns (a frontend's request columns stay 0).
 */
final class StatRows {
    /** The counters each kind of object shows (besides the response classes), each in its own column. */
    private static final Counter[] FRONTEND_COUNTERS = {
        Counter.SESSIONS, Counter.BYTES_IN, Counter.BYTES_OUT, Counter.DENIED_REQUESTS, Counter.DENIED_RESPONSES, Counter.REQUEST_ERRORS,
        Counter.REQUESTS, Counter.COMP_IN, Counter.COMP_OUT, Counter.COMP_BYP, Counter.COMP_RSP, Counter.CONNECTIONS, Counter.INTERCEPTED,
        Counter.DENIED_CONNECTIONS, Counter.DENIED_SESSIONS, Counter.CACHE_LOOKUPS, Counter.CACHE_HITS
    };
    private static final Counter[] BACKEND_COUNTERS = {
        Counter.SESSIONS, Counter.BYTES_IN, Counter.BYTES_OUT, Counter.DENIED_REQUESTS, Counter.DENIED_RESPONSES, Counter.CONNECT_ERRORS,
        Counter.RESPONSE_ERRORS, Counter.RETRIES, Counter.REDISPATCHES, Counter.SELECTED, Counter.REQUESTS, Counter.CLIENT_ABORTS,
        Counter.SERVER_ABORTS, Counter.COMP_IN, Counter.COMP_OUT, Counter.COMP_BYP, Counter.COMP_RSP, Counter.CONNECTS, Counter.REUSES,
        Counter.CACHE_LOOKUPS, Counter.CACHE_HITS
    };
    private static final Counter[] SERVER_COUNTERS = {
        Counter.SESSIONS, Counter.BYTES_IN, Counter.BYTES_OUT, Counter.DENIED_RESPONSES, Counter.CONNECT_ERRORS, Counter.RESPONSE_ERRORS,
        Counter.RETRIES, Counter.REDISPATCHES, Counter.SELECTED, Counter.REQUESTS, Counter.CLIENT_ABORTS, Counter.SERVER_ABORTS,
        Counter.CONNECTS, Counter.REUSES
    };

    private StatRows() {
    }

    static StatRow frontend(Frontend fe) {
        Counters.Snapshot s = fe.snapshot();
        StatRow r = new StatRow()
                .set(PXNAME, fe.name()).set(SVNAME, "FRONTEND")
                .set(SCUR, s.current()).set(SMAX, s.currentMax()).set(SLIM, fe.limit().max())
                .set(STATUS, fe.status())
                .set(PID, 1).set(IID, fe.id()).set(SID, 0).set(TYPE, StatRow.Type.FRONTEND.code())
                .set(RATE, s.rate(Counter.SESSIONS)).set(RATE_LIM, 0).set(RATE_MAX, s.rateMax(Counter.SESSIONS))
                .set(REQ_RATE, s.rate(Counter.REQUESTS)).set(REQ_RATE_MAX, s.rateMax(Counter.REQUESTS))
                .set(MODE, mode(fe.config().mode()))
                .set(CONN_RATE, s.rate(Counter.CONNECTIONS)).set(CONN_RATE_MAX, s.rateMax(Counter.CONNECTIONS))
                .set(WREW, 0).set(CACHE_LOOKUPS, 0).set(CACHE_HITS, 0)
                .set(SSL_SESS, fe.totalTlsSessions()).set(SSL_REUSED_SESS, fe.totalTlsReused())
                .set(SSL_FAILED_HANDSHAKE, fe.totalTlsFailures());
        long[] pc = fe.protocolConnections();
        r.set(H2_OPEN_CONNECTIONS, pc[2]).set(H2_TOTAL_CONNECTIONS, pc[3])
                .set(H1_OPEN_CONNECTIONS, pc[0]).set(H1_TOTAL_CONNECTIONS, pc[1]);
        H2Counters h2 = fe.h2();
        for (H2Counters.Column c : H2Counters.Column.values()) {
            r.set(c.column(), h2.get(c));
        }
        counters(r, s, FRONTEND_COUNTERS);
        if (fe.config().mode() == Mode.TCP) {
            r.set(INTERCEPTED, null).set(CACHE_LOOKUPS, null).set(CACHE_HITS, null);
        } else {
            responses(r, s);
        }
        return r;
    }

    static StatRow backend(Backend be, Level level) {
        Counters.Snapshot s = be.snapshot();
        long now = System.currentTimeMillis();
        int weight = be.usableWeight();
        StatRow r = new StatRow()
                .set(PXNAME, be.name()).set(SVNAME, "BACKEND")
                .set(QCUR, be.queue().length()).set(QMAX, be.queue().max()).set(SCUR, s.current()).set(SMAX, s.currentMax())
                .set(SLIM, be.fullconn())
                .set(STATUS, be.up() ? "UP" : "DOWN").set(WEIGHT, weight).set(ACT, be.usableActiveServers())
                .set(BCK, be.usableServers() - be.usableActiveServers())
                .set(CHKDOWN, be.downTransitions()).set(LASTCHG, (now - be.lastChange()) / 1000).set(DOWNTIME, be.downtime() / 1000)
                .set(PID, 1).set(IID, be.id()).set(SID, 0)
                .set(TYPE, StatRow.Type.BACKEND.code())
                .set(RATE, s.rate(Counter.SESSIONS)).set(RATE_MAX, s.rateMax(Counter.SESSIONS))
                .set(LASTSESS, lastSession(s, now))
                .set(COOKIE, level.allows(Level.OPERATOR) && be.cookie() != null ? be.cookie().config().name() : null)
                .set(MODE, mode(be.config().mode())).set(ALGO, level.allows(Level.OPERATOR) ? be.config().balance().algorithm().keyword() : null)
                .set(WREW, 0)
                .set(CACHE_LOOKUPS, 0).set(CACHE_HITS, 0).set(UWEIGHT, weight);
        counters(r, s, BACKEND_COUNTERS);
        if (be.config().mode() == Mode.TCP) {
            r.set(REQ_TOT, null).set(CACHE_LOOKUPS, null).set(CACHE_HITS, null);
        } else {
            responses(r, s);
        }
        timers(r, be.timeStats().snapshot());
        return r;
    }

    /**
     * A listener's row ({@code option socket-stats}, HAProxy's stats_fill_li_stats): its connections, bytes, denials and
     * invalid requests, the frontend's status and mode, its address from operator level up, the ssl module's counters (its
     * TLS handshakes).
     */
    static StatRow listener(Frontend fe, dev.sluice.proxy.listener.ListenerCounters l, Level level) {
        return new StatRow()
                .set(PXNAME, fe.name()).set(SVNAME, l.name())
                .set(SCUR, l.current()).set(SMAX, l.max()).set(SLIM, 0).set(STOT, l.connections())
                .set(BIN, l.bytesIn()).set(BOUT, l.bytesOut()).set(DREQ, l.deniedRequests()).set(DRESP, l.deniedResponses())
                .set(EREQ, l.invalidRequests()).set(STATUS, fe.status())
                .set(PID, 1).set(IID, fe.id()).set(SID, l.id()).set(TYPE, StatRow.Type.LISTENER.code())
                .set(ADDR, level.allows(Level.OPERATOR) ? l.address() : null)
                .set(MODE, mode(fe.config().mode()))
                .set(DCON, l.deniedConnections()).set(DSES, l.deniedSessions()).set(WREW, 0).set(EINT, 0)
                .set(SSL_SESS, l.tlsSessions()).set(SSL_REUSED_SESS, l.tlsReused()).set(SSL_FAILED_HANDSHAKE, l.tlsFailures());
    }

    static StatRow server(Server srv, Level level) {
        Counters.Snapshot s = srv.snapshot();
        long now = System.currentTimeMillis();
        StatRow r = new StatRow()
                .set(PXNAME, srv.backend().name()).set(SVNAME, srv.name())
                .set(QCUR, srv.queue().length()).set(QMAX, srv.queue().max()).set(SCUR, s.current()).set(SMAX, s.currentMax())
                .set(SLIM, srv.maxconn() > 0 ? srv.maxconn() : null)
                .set(STATUS, status(srv)).set(WEIGHT, srv.weight()).set(ACT, srv.backup() ? 0 : 1).set(BCK, srv.backup() ? 1 : 0)
                .set(LASTCHG, (now - srv.lastChange()) / 1000)
                .set(QLIMIT, srv.maxqueue() > 0 ? srv.maxqueue() : null)
                .set(THROTTLE, srv.throttle() >= 0 ? srv.throttle() : null)
                .set(PID, 1).set(IID, srv.backend().id()).set(SID, srv.id())
                .set(TYPE, StatRow.Type.SERVER.code())
                .set(RATE, s.rate(Counter.SESSIONS)).set(RATE_MAX, s.rateMax(Counter.SESSIONS))
                .set(LASTSESS, lastSession(s, now))
                .set(ADDR, level.allows(Level.OPERATOR) ? address(srv) : null)
                .set(COOKIE, level.allows(Level.OPERATOR) ? srv.cookie() : null)
                .set(MODE, mode(srv.backend().config().mode())).set(WREW, 0)
                .set(UWEIGHT, srv.weight());
        counters(r, s, SERVER_COUNTERS);
        if (srv.backend().config().mode() == Mode.TCP) {
            r.set(REQ_TOT, null);
        } else {
            responses(r, s);
        }
        timers(r, srv.timeStats().snapshot());
        HealthCheck c = srv.checked() ? HealthCheck.of(srv) : null;
        if (c != null) {
            r.set(CHKFAIL, c.failures()).set(CHKDOWN, srv.downTransitions()).set(DOWNTIME, srv.downtime() / 1000);
            if (c.observing()) {
                r.set(HANAFAIL, c.analysisFailures());
            }
        }
        // HAProxy leaves a paused check's columns (maintenance) empty
        if (c != null && !c.paused()) {
            CheckStatus st = c.status();
            r.set(CHECK_STATUS, (c.running() ? "* " : "") + st.info())
                    .set(CHECK_CODE, st.hasCode() ? c.code() : null)
                    .set(CHECK_DURATION, !st.finished() ? null : c.duration() >= 0 ? c.duration()
                            // HAProxy prints the -1 of a check status set by the traffic analysis (HANA) as an unsigned 64-bit number
                            : st == CheckStatus.HANA ? Long.toUnsignedString(c.duration()) : null)
                    .set(CHECK_DESC, st.description()).set(LAST_CHK, c.desc())
                    .set(CHECK_RISE, c.rise()).set(CHECK_FALL, c.fall()).set(CHECK_HEALTH, c.health());
        }
        if (srv.agent() instanceof AgentCheck a && a.enabled()) {
            r.set(AGENT_STATUS, (a.running() ? "* " : "") + a.statusInfo()).set(AGENT_CODE, a.code())
                    .set(AGENT_DURATION, a.duration()).set(AGENT_DESC, a.statusDescription()).set(LAST_AGT, a.desc())
                    .set(AGENT_RISE, a.rise()).set(AGENT_FALL, a.fall()).set(AGENT_HEALTH, a.health());
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
        HealthCheck c = srv.checked() ? HealthCheck.of(srv) : null;
        int h = c == null ? 0 : c.health();
        int full = c == null ? 0 : c.rise() + c.fall() - 1;
        if (srv.up() && !srv.stopping()) {
            boolean goingDown = c != null && h < full;
            String progress = goingDown ? " " + (h - c.rise() + 1) + "/" + c.fall() : "";
            if ((srv.adminState() & Server.FORCED_DRAIN) != 0) {
                return srv.agent() != null && srv.agent().enabled() ? "DRAIN (agent)" : "DRAIN" + progress;
            }
            return c == null ? "no check" : "UP" + progress;
        }
        if (srv.up()) {
            return c == null || h == full ? "NOLB" : "NOLB " + (h - c.rise() + 1) + "/" + c.fall();
        }
        if (srv.agentDown()) {
            return "DOWN (agent)";
        }
        return c != null && h > 0 ? "DOWN " + h + "/" + c.rise() : "DOWN";
    }

    static String address(Server srv) {
        if (srv.unresolved()) {
            return null;
        }
        if (srv.unix()) {
            return "unix";
        }
        String ip = srv.address().getAddress().getHostAddress();
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + srv.address().getPort();
    }

    /** {@code show stat}'s mode column. */
    private static String mode(Mode m) {
        return m == Mode.TCP ? "tcp" : "http";
    }

    private static long lastSession(Counters.Snapshot s, long now) {
        return s.lastSession() < 0 ? -1 : (now - s.lastSession()) / 1000;
    }

    /** {@code qtime ctime rtime ttime}, averaged over the last 1024 requests, and their maxima. */
    private static void timers(StatRow r, TimeStats.Snapshot t) {
        r.set(QTIME, t.queue()).set(CTIME, t.connect()).set(RTIME, t.response()).set(TTIME, t.total())
                .set(QTIME_MAX, t.queueMax()).set(CTIME_MAX, t.connectMax()).set(RTIME_MAX, t.responseMax()).set(TTIME_MAX, t.totalMax());
    }

    private static void responses(StatRow r, Counters.Snapshot s) {
        counters(r, s, Counter.HRSP_1XX, Counter.HRSP_2XX, Counter.HRSP_3XX, Counter.HRSP_4XX, Counter.HRSP_5XX, Counter.HRSP_OTHER);
    }

    /** Each counter's value in its column. */
    private static void counters(StatRow r, Counters.Snapshot s, Counter... counters) {
        for (Counter c : counters) {
            r.set(c.column(), s.get(c));
        }
    }
}

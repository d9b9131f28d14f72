package dev.sluice.proxy.stats;

import java.util.Map;

/**
 * {@code show stat typed}: one line per filled column, {@code <F|B|S>.<iid>.<sid>.<pos>.<name>.1:<tags>:<type>:<value>},
 * with HAProxy 2.6's tags, types and (for {@code desc}) descriptions of each static column; empty columns
 * are left out, as HAProxy leaves them out.
 */
public final class StatTyped {
    private StatTyped() {
    }

    /** Column -> {tags:type, or per row type "F=..,B=..,S=.." when they differ; description}. */
    private static final Map<String, String[]> FIELDS = Map.ofEntries(
            Map.entry("pxname", new String[] {"KNS:str", "Proxy name"}),
            Map.entry("svname", new String[] {"KNS:str", "Server name"}),
            Map.entry("qcur", new String[] {"MGP:u32", "Number of current queued connections"}),
            Map.entry("qmax", new String[] {"MMP:u32", "Highest value of queued connections encountered since process started"}),
            Map.entry("scur", new String[] {"MGP:u32", "Number of current sessions on the frontend, backend or server"}),
            Map.entry("smax", new String[] {"MMP:u32", "Highest value of current sessions encountered since process started"}),
            Map.entry("slim", new String[] {"CLP:u32", "Frontend/listener/server's maxconn, backend's fullconn"}),
            Map.entry("stot", new String[] {"MCP:u64", "Total number of sessions since process started"}),
            Map.entry("bin", new String[] {"MCP:u64", "Total number of request bytes since process started"}),
            Map.entry("bout", new String[] {"MCP:u64", "Total number of response bytes since process started"}),
            Map.entry("dreq", new String[] {"MCP:u64", "Total number of denied requests since process started"}),
            Map.entry("dresp", new String[] {"MCP:u64", "Total number of denied responses since process started"}),
            Map.entry("ereq", new String[] {"MCP:u64", "Total number of invalid requests since process started"}),
            Map.entry("econ", new String[] {"MCP:u64", "Total number of failed connections to server since the worker process started"}),
            Map.entry("eresp", new String[] {"MCP:u64", "Total number of invalid responses since the worker process started"}),
            Map.entry("wretr", new String[] {"MCP:u64", "Total number of server connection retries since the worker process started"}),
            Map.entry("wredis", new String[] {"MCP:u64", "Total number of server redispatches due to connection failures since the worker process started"}),
            Map.entry("status", new String[] {"SGP:str", "Frontend/listen status: OPEN/WAITING/FULL/STOP; backend: UP/DOWN; server: last check status"}),
            Map.entry("weight", new String[] {"MaP:u32", "Server's effective weight, or sum of active servers' effective weights for a backend"}),
            Map.entry("act", new String[] {"B=MGP:u32,S=SGP:u32", "Total number of active UP servers with a non-zero weight"}),
            Map.entry("bck", new String[] {"B=MGP:u32,S=SGP:u32", "Total number of backup UP servers with a non-zero weight"}),
            Map.entry("chkdown", new String[] {"MCP:u64", "Total number of failed checks causing UP to DOWN server transitions, per server/backend, since the worker process started"}),
            Map.entry("lastchg", new String[] {"MAP:u32", "How long ago the last server state changed, in seconds"}),
            Map.entry("downtime", new String[] {"MCP:u32", "Total time spent in DOWN state, for server or backend"}),
            Map.entry("pid", new String[] {"KGP:u32", "Relative worker process number (1)"}),
            Map.entry("iid", new String[] {"KGS:u32", "Frontend or Backend numeric identifier ('id' setting)"}),
            Map.entry("sid", new String[] {"KGS:u32", "Server numeric identifier ('id' setting)"}),
            Map.entry("lbtot", new String[] {"MCP:u64", "Total number of requests routed by load balancing since the worker process started (ignores queue pop and stickiness)"}),
            Map.entry("type", new String[] {"CGS:u32", "Type of the object (Listener, Frontend, Backend, Server)"}),
            Map.entry("rate", new String[] {"F=MRP:u32,B=MGP:u32,S=MRP:u32", "Total number of sessions processed by this object over the last second (sessions for listeners/frontends, requests for backends/servers)"}),
            Map.entry("rate_lim", new String[] {"CLP:u32", "Limit on the number of sessions accepted in a second (frontend only, 'rate-limit sessions' setting)"}),
            Map.entry("rate_max", new String[] {"F=MMP:u32,B=MGP:u32,S=MMP:u32", "Highest value of sessions per second observed since the worker process started"}),
            Map.entry("hrsp_1xx", new String[] {"MCP:u64", "Total number of HTTP responses with status 100-199 returned by this object since the worker process started"}),
            Map.entry("hrsp_2xx", new String[] {"MCP:u64", "Total number of HTTP responses with status 200-299 returned by this object since the worker process started"}),
            Map.entry("hrsp_3xx", new String[] {"MCP:u64", "Total number of HTTP responses with status 300-399 returned by this object since the worker process started"}),
            Map.entry("hrsp_4xx", new String[] {"MCP:u64", "Total number of HTTP responses with status 400-499 returned by this object since the worker process started"}),
            Map.entry("hrsp_5xx", new String[] {"MCP:u64", "Total number of HTTP responses with status 500-599 returned by this object since the worker process started"}),
            Map.entry("hrsp_other", new String[] {"MCP:u64", "Total number of HTTP responses with status <100, >599 returned by this object since the worker process started (error -1 included)"}),
            Map.entry("req_rate", new String[] {"MRP:u32", "Number of HTTP requests processed over the last second on this object"}),
            Map.entry("req_rate_max", new String[] {"MMP:u32", "Highest value of http requests observed since the worker process started"}),
            Map.entry("req_tot", new String[] {"MCP:u64", "Total number of HTTP requests processed by this object since the worker process started"}),
            Map.entry("cli_abrt", new String[] {"MCP:u64", "Total number of requests or connections aborted by the client since the worker process started"}),
            Map.entry("srv_abrt", new String[] {"MCP:u64", "Total number of requests or connections aborted by the server since the worker process started"}),
            Map.entry("comp_in", new String[] {"MCP:u64", "Total number of bytes submitted to the HTTP compressor for this object since the worker process started"}),
            Map.entry("comp_out", new String[] {"MCP:u64", "Total number of bytes emitted by the HTTP compressor for this object since the worker process started"}),
            Map.entry("comp_byp", new String[] {"MCP:u64", "Total number of bytes that bypassed HTTP compression for this object since the worker process started (CPU/memory/bandwidth limitation)"}),
            Map.entry("comp_rsp", new String[] {"MCP:u64", "Total number of HTTP responses that were compressed for this object since the worker process started"}),
            Map.entry("lastsess", new String[] {"MAP:s32", "How long ago some traffic was seen on this object on this worker process, in seconds"}),
            Map.entry("qtime", new String[] {"MaP:u32", "Time spent in the queue, in milliseconds, averaged over the 1024 last requests (backend/server)"}),
            Map.entry("ctime", new String[] {"MaP:u32", "Time spent waiting for a connection to complete, in milliseconds, averaged over the 1024 last requests (backend/server)"}),
            Map.entry("rtime", new String[] {"MaP:u32", "Time spent waiting for a server response, in milliseconds, averaged over the 1024 last requests (backend/server)"}),
            Map.entry("ttime", new String[] {"MaP:u32", "Total request+response time (request+queue+connect+response+processing), in milliseconds, averaged over the 1024 last requests (backend/server)"}),
            Map.entry("cookie", new String[] {"CNS:str", "Backend's cookie name or Server's cookie value, shown only if show-legends is set, or at levels oper/admin for the CLI"}),
            Map.entry("addr", new String[] {"CGS:str", "Server's address:port, shown only if show-legends is set, or at levels oper/admin for the CLI"}),
            Map.entry("mode", new String[] {"CGS:str", "'mode' setting (tcp/http/health/cli)"}),
            Map.entry("algo", new String[] {"CGS:str", "Backend's load balancing algorithm, shown only if show-legends is set, or at levels oper/admin for the CLI"}),
            Map.entry("conn_rate", new String[] {"MRP:u32", "Number of new connections accepted over the last second on the frontend for this worker process"}),
            Map.entry("conn_rate_max", new String[] {"MMP:u32", "Highest value of connections per second observed since the worker process started"}),
            Map.entry("conn_tot", new String[] {"MCP:u64", "Total number of new connections accepted on this frontend since the worker process started"}),
            Map.entry("intercepted", new String[] {"MCP:u64", "Total number of HTTP requests intercepted on the frontend (redirects/stats/services) since the worker process started"}),
            Map.entry("dcon", new String[] {"MCP:u64", "Total number of incoming connections blocked on a listener/frontend by a tcp-request connection rule since the worker process started"}),
            Map.entry("dses", new String[] {"MCP:u64", "Total number of incoming sessions blocked on a listener/frontend by a tcp-request connection rule since the worker process started"}),
            Map.entry("wrew", new String[] {"MCP:u64", "Total number of failed HTTP header rewrites since the worker process started"}),
            Map.entry("connect", new String[] {"MCP:u64", "Total number of outgoing connection attempts on this backend/server since the worker process started"}),
            Map.entry("reuse", new String[] {"MCP:u64", "Total number of reused connection on this backend/server since the worker process started"}),
            Map.entry("cache_lookups", new String[] {"MCP:u64", "Total number of HTTP requests looked up in the cache on this frontend/backend since the worker process started"}),
            Map.entry("cache_hits", new String[] {"MCP:u64", "Total number of HTTP requests not found in the cache on this frontend/backend since the worker process started"}),
            Map.entry("srv_icur", new String[] {"MGP:u32", "Current number of idle connections available for reuse on this server"}),
            Map.entry("qtime_max", new String[] {"MMP:u32", "Maximum observed time spent in the queue, in milliseconds (backend/server)"}),
            Map.entry("ctime_max", new String[] {"MMP:u32", "Maximum observed time spent waiting for a connection to complete, in milliseconds (backend/server)"}),
            Map.entry("rtime_max", new String[] {"MMP:u32", "Maximum observed time spent waiting for a server response, in milliseconds (backend/server)"}),
            Map.entry("ttime_max", new String[] {"MMP:u32", "Maximum observed total request+response time (request+queue+connect+response+processing), in milliseconds (backend/server)"}),
            Map.entry("eint", new String[] {"MCP:u64", "Total number of internal errors since process started"}),
            Map.entry("idle_conn_cur", new String[] {"MGP:u32", "Current number of unsafe idle connections"}),
            Map.entry("safe_conn_cur", new String[] {"MGP:u32", "Current number of safe idle connections"}),
            Map.entry("used_conn_cur", new String[] {"MGP:u32", "Current number of connections in use"}),
            Map.entry("need_conn_est", new String[] {"MGP:u32", "Estimated needed number of connections"}),
            Map.entry("uweight", new String[] {"MaP:u32", "Server's user weight, or sum of active servers' user weights for a backend"}),
            Map.entry("agg_server_status", new String[] {"MGP:u32", "Backend's aggregated gauge of servers' status"}),
            Map.entry("agg_server_check_status", new String[] {"MGP:u32", "Backend's aggregated gauge of servers' state check status"}),
            Map.entry("agg_check_status", new String[] {"MGP:u32", "Backend's aggregated gauge of servers' state check status"})
    );

    /** The typed lines of one row. */
    public static String render(StatRow row, StatRow.Type type, int iid, int sid, boolean desc) {
        char t = switch (type) {
            case FRONTEND -> 'F';
            case BACKEND -> 'B';
            case SERVER -> 'S';
        };
        StringBuilder out = new StringBuilder();
        int pos = 0;
        for (String c : StatRow.COLUMNS) {
            if (c.equals("-")) {
                continue;
            }
            String v = row.get(c);
            String[] f = FIELDS.get(c);
            if (v != null && !v.isEmpty() && f != null) {
                out.append(t).append('.').append(iid).append('.').append(sid).append('.').append(pos).append('.').append(c).append(".1:")
                        .append(tagsAndType(f[0], t)).append(':').append(v);
                if (desc) {
                    out.append(":\"").append(f[1]).append('"');
                }
                out.append('\n');
            }
            pos++;
        }
        return out.toString();
    }

    /**
     * {@code show stat json}: one row as HAProxy 2.6 writes it, an array of
     * {@code {"objType":..,"proxyId":..,"id":..,"field":{"pos":..,"name":..},"processNum":1,"tags":{..},"value":{..}}}
     * for the filled columns.
     */
    public static String json(StatRow row, StatRow.Type type, int iid, int sid) {
        String obj = switch (type) {
            case FRONTEND -> "Frontend";
            case BACKEND -> "Backend";
            case SERVER -> "Server";
        };
        char t = obj.charAt(0);
        StringBuilder out = new StringBuilder("[");
        int pos = 0;
        boolean first = true;
        for (String c : StatRow.COLUMNS) {
            if (c.equals("-")) {
                continue;
            }
            String v = row.get(c);
            String[] f = FIELDS.get(c);
            if (v != null && !v.isEmpty() && f != null) {
                String[] tt = tagsAndType(f[0], t).split(":");
                if (!first) {
                    out.append(',');
                }
                first = false;
                out.append("{\"objType\":\"").append(obj).append("\",\"proxyId\":").append(iid).append(",\"id\":").append(sid)
                        .append(",\"field\":{\"pos\":").append(pos).append(",\"name\":\"").append(c).append("\"},\"processNum\":1,")
                        .append("\"tags\":{\"origin\":\"").append(InfoFields.origin(tt[0].charAt(0))).append("\",\"nature\":\"")
                        .append(InfoFields.nature(tt[0].charAt(1))).append("\",\"scope\":\"").append(InfoFields.scope(tt[0].charAt(2)))
                        .append("\"},\"value\":{\"type\":\"").append(tt[1]).append("\",\"value\":");
                if (tt[1].equals("str")) {
                    out.append('"').append(InfoFields.json(v)).append('"');
                } else {
                    out.append(v);
                }
                out.append("}}");
            }
            pos++;
        }
        return out.append(']').toString();
    }

    private static String tagsAndType(String spec, char type) {
        if (spec.indexOf('=') < 0) {
            return spec;
        }
        for (String part : spec.split(",")) {
            if (part.charAt(0) == type) {
                return part.substring(2);
            }
        }
        return spec.substring(spec.indexOf('=') + 1, spec.indexOf(',') < 0 ? spec.length() : spec.indexOf(','));
    }
}

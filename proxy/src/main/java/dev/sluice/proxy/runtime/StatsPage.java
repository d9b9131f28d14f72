package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.metrics.ScrapeQuery;
import dev.sluice.proxy.rules.AuthFetches;
import dev.sluice.proxy.rules.Cond;
import dev.sluice.proxy.rules.PageService;
import dev.sluice.proxy.rules.RuleTarget;
import dev.sluice.proxy.stats.InfoField;
import dev.sluice.proxy.stats.StatColumn;
import dev.sluice.proxy.stats.StatModule;
import dev.sluice.proxy.stats.StatRow;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.Live;
import dev.sluice.proxy.transport.Workers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HAProxy's HTML stats page of one proxy ({@code stats enable|uri|refresh|auth|realm|admin|hide-version|
 * show-legends|show-node|show-desc|scope}): the process summary and one table per proxy (frontend, servers
 * coloured by state, backend), built from the very rows {@code show stat} prints ({@link StatRows}); the CSV
 * at {@code <uri>;csv} is {@code show stat}'s output. With {@code stats admin} holding, servers get check
 * boxes and an action form; the form is posted back and applied as the admin socket would apply it, then the
 * browser is sent back to the page with HAProxy's {@code ;st=} status. Basic authentication with
 * {@code stats auth}. Immutable; serves every event loop.
 */
final class StatsPage implements PageService {
    private final ProxyRuntime rt;
    private final dev.sluice.config.model.StatsPage cfg;
    private final List<Cond> admin;
    /** The conditions of the {@code stats http-request} rules, in their order (null: the rule always applies). */
    private final List<Cond> access;
    private final String owner;

    StatsPage(ProxyRuntime rt, Proxy owner, List<Cond> admin, List<Cond> access) {
        this.rt = rt;
        this.cfg = owner.stats();
        this.admin = admin;
        this.access = access;
        this.owner = owner.name();
    }

    private Reply unauthorized(String realm) {
        return new Reply(401, "text/html", List.<String[]>of(new String[] {"cache-control", "no-cache"},
                new String[] {"www-authenticate", "Basic realm=\"" + realm + "\""}), GeneratedResponse.of(401).body());
    }

    /**
     * Whether the page may be served (null) or the answer instead: the {@code stats http-request} rules as HAProxy runs
     * them, the first whose condition holds deciding (allow: the page; deny: 403; auth: 401 asking for credentials);
     * without rules (the configuration does not allow both), {@code stats auth}'s credentials, else 401.
     */
    private Reply access(RuleTarget t) {
        List<dev.sluice.config.model.StatsPage.Rule> rules = cfg.rules();
        for (int i = 0; i < rules.size(); i++) {
            Cond c = access.get(i);
            if (c != null && !c.test(t)) {
                continue;
            }
            dev.sluice.config.model.StatsPage.Rule r = rules.get(i);
            switch (r.action()) {
                case "allow" -> {
                    return null;
                }
                case "deny" -> {
                    return new Reply(403, "text/html", List.<String[]>of(new String[] {"cache-control", "no-cache"}),
                            GeneratedResponse.of(403).body());
                }
                default -> {
                    return unauthorized(r.realm() != null ? r.realm() : cfg.realm());
                }
            }
        }
        if (!cfg.auth().isEmpty() && !authorized(t.request())) {
            return unauthorized(cfg.realm());
        }
        return null;
    }

    @Override
    public boolean matches(RequestHead r) {
        return r.target().toString().startsWith(cfg.uri());
    }

    @Override
    public boolean needsBody(RequestHead r) {
        return r.method().contentEquals("POST") && r.hasBody();
    }

    @Override
    public Reply serve(RuleTarget t) {
        RequestHead r = t.request();
        Reply refused = access(t);
        if (refused != null) {
            return refused;
        }
        String options = r.target().toString().substring(cfg.uri().length());
        boolean adminOk = false;
        for (Cond c : admin) {
            adminOk |= c.test(t);
        }
        if (r.method().contentEquals("POST")) {
            String st = adminOk ? apply(t.requestBody()) : "DENY";
            String base = cfg.uri();
            return new Reply(303, null, List.<String[]>of(new String[] {"cache-control", "no-cache"},
                    new String[] {"location", base + ";st=" + st}), new byte[0]);
        }
        if (options.contains(";csv")) {
            String csv = ProxyCommands.statCsv(rt, cfg.showLegends() ? Level.OPERATOR : Level.USER, options.contains(";no-maint"),
                    options.contains(";up"));
            return new Reply(200, "text/plain", List.<String[]>of(new String[] {"cache-control", "no-cache"}),
                    csv.getBytes(StandardCharsets.UTF_8));
        }
        List<String[]> fields = new ArrayList<>();
        fields.add(new String[] {"cache-control", "no-cache"});
        if (cfg.refreshMs() > 0 && !options.contains(";norefresh")) {
            fields.add(new String[] {"refresh", Long.toString(Math.max(1, cfg.refreshMs() / 1000))});
        }
        return new Reply(200, "text/html", fields, html(options, adminOk).getBytes(StandardCharsets.UTF_8));
    }

    /** As HAProxy's {@code stats auth}: an {@code http_auth} of the listed users, the field read as that fetch reads it. */
    private boolean authorized(RequestHead r) {
        AuthFetches.Credentials c = AuthFetches.read(r.fields().get(AsciiString.cached("authorization")));
        return c != null && c.basic() && cfg.auth().contains(c.userName() + ":" + new String(c.passwordBytes(), StandardCharsets.UTF_8));
    }

    /** The actions of HAProxy 2.6's page (its select), then the older names it still accepts. */
    static final List<String> ACTIONS = List.of("ready", "drain", "maint", "dhlth", "ehlth", "hrunn", "hnolb", "hdown", "dagent", "eagent",
            "arunn", "adown", "shutdown", "disable", "enable", "stop", "start");

    /**
     * Applies a posted form ({@code s=<server>&...&action=<action>&b=<backend>}) as HAProxy 2.6's page does, and
     * returns the {@code st} code. As HAProxy: the parameters are read from the last one back, so the last
     * {@code b} and {@code action} count; an unknown backend ({@code <name>} or {@code #<id>}) or action is ERRP
     * at once; a bad {@code %} escape ends the reading. Each named server counts in the total; it counts as
     * changed when the action applies to it ({@code enable}/{@code disable}/{@code start}/{@code stop} only when
     * they change its state, the health-check ones only when it has checks, the agent ones never: Sluice has no
     * agent checks). No server counted: NONE; none changed: ERRP; all: DONE; else PART.
     */
    String apply(byte[] body) {
        String[] params = body == null ? new String[0] : new String(body, StandardCharsets.ISO_8859_1).split("&", -1);
        String backend = null;
        String action = null;
        List<String> servers = new ArrayList<>();
        for (int i = params.length - 1; i >= 0; i--) {
            String kv = params[i];
            int eq = kv.indexOf('=');
            String k;
            String v;
            try {
                k = formDecode(eq < 0 ? kv : kv.substring(0, eq));
                v = eq < 0 ? "" : formDecode(kv.substring(eq + 1));
            } catch (IllegalArgumentException e) {
                break;
            }
            if (backend == null && k.equals("b")) {
                backend = v;
                if (backend(v) == null) {
                    return "ERRP";
                }
            } else if (action == null && k.equals("action")) {
                action = v;
                if (!ACTIONS.contains(v)) {
                    return "ERRP";
                }
            } else if (k.equals("s")) {
                servers.add(v);
            }
        }
        if (backend == null || action == null) {
            // the servers are only looked at once both are known
            return "NONE";
        }
        Backend be = backend(backend);
        int total = 0;
        int altered = 0;
        for (String name : servers) {
            Server s = be.server(name);
            total++;
            if (s == null) {
                continue;
            }
            int admin = s.adminState();
            boolean changed = switch (action) {
                case "ready" -> set(s, 0);
                case "drain" -> set(s, Server.FORCED_DRAIN);
                case "maint" -> set(s, Server.FORCED_MAINT);
                case "disable" -> (admin & Server.FORCED_MAINT) == 0 && set(s, admin | Server.FORCED_MAINT);
                case "enable" -> (admin & Server.FORCED_MAINT) != 0 && set(s, admin & ~Server.FORCED_MAINT);
                case "stop" -> (admin & Server.FORCED_DRAIN) == 0 && set(s, admin | Server.FORCED_DRAIN);
                case "start" -> (admin & Server.FORCED_DRAIN) != 0 && set(s, admin & ~Server.FORCED_DRAIN);
                case "dhlth", "ehlth" -> {
                    if (s.check() == null) {
                        yield false;
                    }
                    s.check().enabled(action.equals("ehlth"));
                    yield true;
                }
                case "hrunn" -> health(s, true, false);
                case "hnolb" -> health(s, true, true);
                case "hdown" -> health(s, false, false);
                case "shutdown" -> {
                    killSessions(s);
                    yield true;
                }
                case "dagent", "eagent" -> {
                    if (s.agent() == null) {
                        yield false;
                    }
                    s.agent().enabled(action.equals("eagent"));
                    yield true;
                }
                case "arunn", "adown" -> {
                    if (s.agent() == null || !s.agent().enabled()) {
                        yield false;
                    }
                    s.agent().forceHealth(action.equals("arunn"));
                    s.setAgentHealth(action.equals("arunn"));
                    yield true;
                }
                default -> false;
            };
            if (changed) {
                altered++;
            } else {
                // HAProxy counts a server the action does not apply to in neither figure
                total--;
            }
        }
        if (total == 0) {
            return "NONE";
        }
        return altered == 0 ? "ERRP" : altered == total ? "DONE" : "PART";
    }

    private static boolean set(Server s, int adminState) {
        s.adminState(adminState);
        return true;
    }

    private static boolean health(Server s, boolean up, boolean stopping) {
        s.setHealth(up, stopping);
        return true;
    }

    /** A backend by name or {@code #<id>}, or null. */
    private Backend backend(String nameOrId) {
        for (Backend b : rt.backends().values()) {
            if (b.name().equals(nameOrId) || nameOrId.equals("#" + b.id())) {
                return b;
            }
        }
        return null;
    }

    /** HAProxy's {@code url_decode} of a form field; throws on a bad {@code %} escape. */
    static String formDecode(String s) {
        return ScrapeQuery.urlDecode(s);
    }

    private void killSessions(Server srv) {
        Workers w = rt.workers();
        w.onEachLoop(loop -> {
            for (Live s : rt.streams().on(loop)) {
                if (s.server() == srv) {
                    s.kill();
                }
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ HTML

    private static final String CSS = """
            body{font-family:Arial,Helvetica,sans-serif;font-size:12px;font-weight:normal;color:black;background:white;margin:8px}
            h1{font-size:20px;margin:0 0 4px;color:#fff;background:#20427c;padding:6px 8px}
            h2{font-size:14px;margin:10px 0 4px;color:#20427c}
            table.tbl{border-collapse:collapse;border:1px solid #888;margin-bottom:12px;width:100%}
            table.tbl td,table.tbl th{border:1px solid #aaa;padding:1px 4px;text-align:right;white-space:nowrap;font-size:11px}
            table.tbl th.pxname{background:#20427c;color:#ffff80;text-align:left;font-size:13px;padding:3px 6px}
            table.tbl tr.titre th{background:#20D0D0;color:#000;font-weight:bold;text-align:center}
            table.tbl td.ac,table.tbl td.name{text-align:left}
            tr.frontend td,tr.backend td{background:#e8e8d0;font-weight:bold}
            tr.socket td{background:#d0d0d0}
            tr.active_up td{background:#c0ffc0}
            tr.active_down td{background:#ff9090}
            tr.active_nolb td{background:#ffd020}
            tr.active_draining td{background:#20a0ff}
            tr.maintain td{background:#c07820}
            tr.active_no_check td{background:#e0e0e0}
            tr.active_going_up td{background:#ffa020}
            tr.active_going_down td{background:#ffffa0}
            tr.backup_up td{background:#b0d0ff}
            tr.backup_down td{background:#ff9090}
            tr.backup_going_up td{background:#ff80ff}
            tr.backup_going_down td{background:#c060ff}
            tr.backup_nolb td{background:#90b0e0}
            tr.backup_draining td{background:#cc9900}
            tr.backup_no_check td{background:#e0e0e0}
            tr.backend_down td{background:#ff9090;font-weight:bold}
            table.info{border-collapse:collapse;margin-bottom:10px}
            table.info td{padding:1px 10px 1px 0;vertical-align:top}
            table.legend td{padding:1px 6px;border:1px solid #aaa}
            .status_msg{padding:6px;margin:6px 0;border:1px solid #444;background:#ffff80}
            a{color:#20427c}
            u{text-decoration:none;position:relative}
            div.tips{display:none;position:absolute;left:0;top:100%;z-index:2;background:#fff;border:1px solid #888;padding:2px}
            u:hover div.tips{display:block}
            table.det th,table.det td{border:none;padding:0 4px;font-weight:normal;text-align:left;background:#fff}
            """;

    private static final String[] STATUS_MESSAGES = {"DONE", "Action processed successfully.", "PART", "Action partially processed.",
            "NONE", "Nothing has changed.", "DENY", "Action denied.", "ERRP", "Action not processed because of invalid parameters.",
            "UNKN", "Unexpected result."};

    String html(String options, boolean adminOk) {
        Map<InfoField, Object> info = rt.info();
        StringBuilder b = new StringBuilder(16384);
        String version = cfg.hideVersion() ? "" : " version " + esc(String.valueOf(info.get(InfoField.VERSION)));
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Statistics Report for pid ").append(info.get(InfoField.PID))
                .append("</title>\n<style>").append(CSS).append("</style></head>\n<body>\n");
        b.append("<h1>Sluice").append(version).append(" &mdash; Statistics Report for pid ").append(info.get(InfoField.PID));
        if (cfg.node() != null) {
            b.append(" on ").append(esc(cfg.node().isEmpty() ? String.valueOf(info.get(InfoField.NODE)) : cfg.node()));
        }
        b.append("</h1>\n");
        // stats show-desc: its own text, else the global description
        String desc = cfg.desc() == null ? null : !cfg.desc().isEmpty() ? cfg.desc() : (String) info.get(InfoField.DESCRIPTION);
        if (desc != null && !desc.isEmpty()) {
            b.append("<p>").append(esc(desc)).append("</p>\n");
        }
        int st = options.indexOf(";st=");
        if (st >= 0) {
            String code = options.substring(st + 4).split(";", 2)[0];
            for (int i = 0; i < STATUS_MESSAGES.length; i += 2) {
                if (STATUS_MESSAGES[i].equals(code)) {
                    b.append("<p class=\"status_msg\" id=\"status\">[<a href=\"").append(esc(cfg.uri())).append("\">X</a>] ")
                            .append(STATUS_MESSAGES[i + 1]).append("</p>\n");
                }
            }
        }
        b.append("<h2>General process information</h2>\n<table class=\"info\"><tr><td>");
        b.append("<b>pid = </b>").append(info.get(InfoField.PID)).append(" (process #1, nbproc = 1, nbthread = ")
                .append(info.get(InfoField.NBTHREAD)).append(")<br>\n<b>uptime = </b>").append(info.get(InfoField.UPTIME))
                .append("<br>\n<b>system limits:</b> memmax = unlimited; ulimit-n = ").append(info.get(InfoField.ULIMIT_N))
                .append("<br>\n<b>maxsock = </b>").append(info.get(InfoField.MAXSOCK)).append("; <b>maxconn = </b>")
                .append(info.get(InfoField.MAXCONN)).append("<br>\n<b>current conns = </b>").append(info.get(InfoField.CURR_CONNS))
                .append("; <b>current pipes = </b>0/0; <b>conn rate = </b>").append(info.get(InfoField.CONN_RATE)).append("/sec<br>\n")
                .append("<b>Running tasks: </b>").append(info.get(InfoField.RUN_QUEUE)).append('/').append(info.get(InfoField.TASKS))
                .append("; <b>idle = </b>").append(info.get(InfoField.IDLE_PCT)).append(" %</td><td>\n");
        b.append("<table class=\"legend\"><tr class=\"active_up\"><td>active UP</td></tr><tr class=\"active_down\"><td>active DOWN</td></tr>"
                + "<tr class=\"active_nolb\"><td>active UP, NOLB</td></tr><tr class=\"active_draining\"><td>active UP, draining</td></tr>"
                + "<tr class=\"maintain\"><td>active or backup in MAINT</td></tr><tr class=\"active_no_check\"><td>not checked</td></tr></table>\n");
        b.append("</td><td>Display option:<ul><li><a href=\"").append(esc(cfg.uri())).append(options.contains(";up") ? "" : ";up")
                .append("\">").append(options.contains(";up") ? "Show all servers" : "Hide 'DOWN' servers").append("</a></li>");
        if (cfg.refreshMs() > 0) {
            b.append("<li><a href=\"").append(esc(cfg.uri())).append(";norefresh\">Disable refresh</a></li>");
        }
        b.append("<li><a href=\"").append(esc(cfg.uri())).append("\">Refresh now</a></li><li><a href=\"").append(esc(cfg.uri()))
                .append(";csv\">CSV export</a></li></ul></td></tr></table>\n");
        boolean hideDown = options.contains(";up");
        Level level = cfg.showLegends() ? Level.OPERATOR : Level.USER;
        for (Proxy p : rt.config().proxies()) {
            if (!inScope(p.name())) {
                continue;
            }
            proxyTable(b, p, level, adminOk, hideDown);
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    private boolean inScope(String name) {
        if (cfg.scope().isEmpty()) {
            return true;
        }
        for (String s : cfg.scope()) {
            if (s.equals(name) || s.equals(".") && name.equals(owner)) {
                return true;
            }
        }
        return false;
    }

    private static final String[][] GROUPS = {{"Queue", "3"}, {"Session rate", "3"}, {"Sessions", "6"}, {"Bytes", "2"}, {"Denied", "2"},
            {"Errors", "3"}, {"Warnings", "2"}, {"Server", "9"}};
    private static final String[] SUBS = {"Cur", "Max", "Limit", "Cur", "Max", "Limit", "Cur", "Max", "Limit", "Total", "LbTot", "Last", "In",
            "Out", "Req", "Resp", "Req", "Conn", "Resp", "Retr", "Redis", "Status", "LastChk", "Wght", "Act", "Bck", "Chk", "Dwn", "Dwntme",
            "Thrtle"};

    private void proxyTable(StringBuilder b, Proxy p, Level level, boolean adminOk, boolean hideDown) {
        Frontend fe = rt.frontends().get(p.name());
        Backend be = rt.backends().get(p.name());
        boolean form = adminOk && be != null && !be.servers().isEmpty();
        boolean modules = cfg.showModules();
        if (form) {
            b.append("<form method=\"post\" action=\"").append(esc(cfg.uri())).append("\">");
        }
        b.append("<table class=\"tbl\" id=\"px-").append(esc(p.name())).append("\">\n<tr><th class=\"pxname\" colspan=\"")
                .append(SUBS.length + 1 + (form ? 1 : 0) + (modules ? StatModule.values().length : 0)).append("\"><a name=\"").append(esc(p.name())).append("\"></a>").append(esc(p.name()));
        if (p.description() != null) {
            // HAProxy puts the proxy's description beside its name
            b.append(" &mdash; <span class=\"desc\">").append(esc(p.description())).append("</span>");
        }
        b.append("</th></tr>\n<tr class=\"titre\">");
        if (form) {
            b.append("<th rowspan=\"2\"></th>");
        }
        b.append("<th rowspan=\"2\"></th>");
        for (String[] g : GROUPS) {
            b.append("<th colspan=\"").append(g[1]).append("\">").append(g[0]).append("</th>");
        }
        if (modules) {
            // HAProxy's stats show-modules: one more group, a column per statistics module
            b.append("<th colspan=\"").append(StatModule.values().length).append("\">Extra modules</th>");
        }
        b.append("</tr>\n<tr class=\"titre\">");
        for (String s : SUBS) {
            b.append("<th>").append(s).append("</th>");
        }
        if (modules) {
            for (StatModule m : StatModule.values()) {
                b.append("<th>").append(m.moduleName()).append("</th>");
            }
        }
        b.append("</tr>\n");
        if (fe != null) {
            row(b, StatRows.frontend(fe), "frontend", "Frontend", form, null, modules);
            for (var l : fe.listenerCounters()) {
                // HAProxy's socket rows (option socket-stats), named by the listener
                row(b, StatRows.listener(fe, l, cfg.showLegends() ? Level.OPERATOR : Level.USER), "socket", l.name(), form, null, modules);
            }
        }
        if (be != null) {
            for (Server s : be.servers()) {
                StatRow r = StatRows.server(s, level);
                String status = r.get(StatColumn.STATUS);
                if (ProxyCommands.hidden(s, false, hideDown)) {
                    continue;
                }
                row(b, r, serverClass(status, s.backup()), s.name(), form, s.name(), modules);
            }
            StatRow br = StatRows.backend(be, level);
            row(b, br, "UP".equals(br.get(StatColumn.STATUS)) ? "backend" : "backend_down", "Backend", form, null, modules);
        }
        b.append("</table>\n");
        if (form) {
            b.append("<input type=\"hidden\" name=\"b\" value=\"#").append(be.id()).append("\">Choose the action to perform on the checked servers : "
                    + "<select name=\"action\"><option value=\"\"></option><option value=\"ready\">Set state to READY</option>"
                    + "<option value=\"drain\">Set state to DRAIN</option><option value=\"maint\">Set state to MAINT</option>"
                    + "<option value=\"dhlth\">Health: disable checks</option><option value=\"ehlth\">Health: enable checks</option>"
                    + "<option value=\"hrunn\">Health: force UP</option><option value=\"hnolb\">Health: force NOLB</option>"
                    + "<option value=\"hdown\">Health: force DOWN</option><option value=\"dagent\">Agent: disable checks</option>"
                    + "<option value=\"eagent\">Agent: enable checks</option><option value=\"arunn\">Agent: force UP</option>"
                    + "<option value=\"adown\">Agent: force DOWN</option><option value=\"shutdown\">Kill Sessions</option></select>"
                    + "<input type=\"submit\" value=\"Apply\"></form>\n");
        }
    }

    static String serverClass(String status) {
        return serverClass(status, false);
    }

    /** HAProxy's row class of a server in that {@code show stat} status (the transitional ones read "UP 1/3", "DOWN 1/2"). */
    static String serverClass(String status, boolean backup) {
        String kind = backup ? "backup_" : "active_";
        if (status.startsWith("UP ") || status.startsWith("NOLB ") || status.startsWith("DRAIN ")) {
            return kind + "going_down";
        }
        if (status.startsWith("DOWN ")) {
            return kind + "going_up";
        }
        return switch (status) {
            case "DOWN" -> kind + "down";
            case "NOLB" -> kind + "nolb";
            case "DRAIN" -> kind + "draining";
            case "MAINT" -> "maintain";
            case "no check" -> kind + "no_check";
            default -> kind + "up";
        };
    }

    /** The columns of a proxy's table on the page, in its order. */
    private static final StatColumn[] PAGE_COLUMNS = {
        StatColumn.QCUR, StatColumn.QMAX, StatColumn.QLIMIT, StatColumn.RATE, StatColumn.RATE_MAX, StatColumn.RATE_LIM, StatColumn.SCUR,
        StatColumn.SMAX, StatColumn.SLIM, StatColumn.STOT, StatColumn.LBTOT, StatColumn.LASTSESS, StatColumn.BIN, StatColumn.BOUT,
        StatColumn.DREQ, StatColumn.DRESP, StatColumn.EREQ, StatColumn.ECON, StatColumn.ERESP, StatColumn.WRETR, StatColumn.WREDIS,
        StatColumn.STATUS, StatColumn.CHECK_STATUS, StatColumn.WEIGHT, StatColumn.ACT, StatColumn.BCK, StatColumn.CHKFAIL, StatColumn.CHKDOWN,
        StatColumn.DOWNTIME, StatColumn.THROTTLE
    };

    private static void row(StringBuilder b, StatRow r, String cls, String name, boolean form, String checkbox, boolean modules) {
        b.append("<tr class=\"").append(cls).append("\">");
        if (form) {
            b.append("<td>");
            if (checkbox != null) {
                b.append("<input type=\"checkbox\" name=\"s\" value=\"").append(esc(checkbox)).append("\">");
            }
            b.append("</td>");
        }
        String addr = r.get(StatColumn.ADDR);
        b.append("<td class=\"name\"").append(addr != null && !addr.isEmpty() ? " title=\"" + esc(addr) + "\"" : "").append(">").append(esc(name))
                .append("</td>");
        for (StatColumn c : PAGE_COLUMNS) {
            String v = r.get(c);
            if (v == null) {
                v = "";
            }
            if (c == StatColumn.LASTSESS || c == StatColumn.DOWNTIME) {
                v = v.isEmpty() || v.equals("-1") ? (c == StatColumn.LASTSESS && v.equals("-1") ? "never" : v) : StreamCommands.humanTime(Long.parseLong(v));
            } else if (c == StatColumn.BIN || c == StatColumn.BOUT) {
                v = v.isEmpty() ? v : bytes(Long.parseLong(v));
            } else if ((c == StatColumn.ACT || c == StatColumn.BCK) && r.get(StatColumn.TYPE).equals("2")) {
                v = "1".equals(v) ? "Y" : "-";
            }
            b.append("<td").append(c == StatColumn.STATUS ? " class=\"ac\"" : "").append('>').append(esc(v)).append("</td>");
        }
        if (modules) {
            moduleCells(b, r);
        }
        b.append("</tr>\n");
    }

    /**
     * The {@code stats show-modules} cells of a row, as HAProxy 2.6 renders them: for a module that counts for the row's
     * kind of object, its name with a table of its counters (HAProxy's descriptions) shown on hover; else an empty cell.
     */
    private static void moduleCells(StringBuilder b, StatRow r) {
        int type = Integer.parseInt(r.get(StatColumn.TYPE));
        int cap = type == 3 ? StatModule.LISTENER : 1 << type;
        for (StatModule m : StatModule.values()) {
            b.append("<td>");
            if (m.counts(cap)) {
                b.append("<u>").append(m.moduleName()).append("<div class=\"tips\"><table class=\"det\">");
                for (StatModule.Column c : m.columns()) {
                    String v = r.get(c.column());
                    b.append("<tr><th>").append(esc(c.description())).append("</th><td>")
                            .append(v == null || v.isEmpty() ? "" : v.chars().allMatch(Character::isDigit) ? bytes(Long.parseLong(v)) : esc(v))
                            .append("</td></tr>");
                }
                b.append("</table></div></u>");
            }
            b.append("</td>");
        }
    }

    /** Bytes as HAProxy's page prints them: digits grouped by thousands. */
    static String bytes(long n) {
        return String.format(Locale.ROOT, "%,d", n).replace(',', ' ');
    }

    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}

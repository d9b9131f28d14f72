package dev.sluice.proxy.backend;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import dev.sluice.proxy.transport.Workers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The admin commands of backends and servers: {@code show servers state}, {@code get weight},
 * {@code set weight}, {@code set server ... state|weight} and the deprecated {@code disable|enable server},
 * with HAProxy's arguments, levels and error strings (including the two HAProxy prints without a line
 * feed). State and weight changes reach the load balancer at once.
 */
public final class ServerCommands {
    private ServerCommands() {
    }

    /** The format version line and header of {@code show servers state}. */
    static final String STATE_HEADER = "1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight"
            + " srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state"
            + " bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr"
            + " srv_agent_port\n";

    public static void register(CliRegistry r, Collection<Backend> backends, Workers workers) {
        r.register(new CliCommand(List.of("show", "servers", "conn"), Level.USER, "show servers conn [<backend>]",
                "dump server connections status (all or for a single backend)", req -> serversConn(backends, workers, req)));
        r.register(new CliCommand(List.of("set", "maxconn", "server"), Level.ADMIN, "set maxconn server <bk>/<srv>",
                "change a server's maxconn setting", req -> {
                    Found f = find(backends, req.arg(3));
                    return f.error != null ? f.error : maxconn(f.server, req.arg(4));
                }));
        DynamicServers.register(r, backends);
        r.register(new CliCommand(List.of("show", "servers", "state"), Level.USER, "show servers state [<backend>]",
                "dump volatile server information (all or for a single backend)", req -> {
                    StringBuilder out = new StringBuilder(STATE_HEADER);
                    if (!req.arg(3).isEmpty()) {
                        Backend be = backend(backends, req.arg(3));
                        if (be == null) {
                            return "Can't find backend.\n";
                        }
                        state(out, be);
                    } else {
                        for (Backend be : backends) {
                            state(out, be);
                        }
                    }
                    return out.toString();
                }));
        r.register(new CliCommand(List.of("get", "weight"), Level.USER, "get weight <bk>/<srv>", "report a server's current weight",
                req -> {
                    Found f = find(backends, req.arg(2));
                    return f.error != null ? f.error : f.server.weight() + " (initial " + f.server.initialWeight() + ")\n";
                }));
        r.register(new CliCommand(List.of("set", "weight"), Level.ADMIN, "set weight <bk>/<srv>  (DEPRECATED)",
                "change a server's weight (use 'set server' instead)", req -> {
                    Found f = find(backends, req.arg(2));
                    return f.error != null ? f.error : weight(f.server, req.arg(3));
                }));
        r.register(new CliCommand(List.of("set", "server"), Level.ADMIN, "set server <bk>/<srv> [opts]",
                "change a server's state or weight", req -> setServer(backends, workers, req)));
        r.register(new CliCommand(List.of("disable", "server"), Level.ADMIN, "disable server (DEPRECATED)",
                "disable a server for maintenance (use 'set server' instead)", req -> {
                    Found f = find(backends, req.arg(2));
                    if (f.error != null) {
                        return f.error;
                    }
                    f.server.adminState(Server.FORCED_MAINT);
                    return "";
                }));
        for (boolean on : new boolean[] {true, false}) {
            r.register(new CliCommand(List.of(on ? "enable" : "disable", "health"), Level.ADMIN, (on ? "enable" : "disable") + " health",
                    (on ? "enable" : "disable") + " health checks", req -> {
                        Found f = find(backends, req.arg(2));
                        if (f.error != null) {
                            return f.error;
                        }
                        if (f.server.check() != null) {
                            f.server.check().enabled(on);
                        }
                        return "";
                    }));
        }
        ServerAgentCommands.register(r, backends);
        r.register(new CliCommand(List.of("enable", "server"), Level.ADMIN, "enable server  (DEPRECATED)",
                "enable a disabled server (use 'set server' instead)", req -> {
                    Found f = find(backends, req.arg(2));
                    if (f.error != null) {
                        return f.error;
                    }
                    f.server.adminState(0);
                    return "";
                }));
    }

    private static String setServer(Collection<Backend> backends, Workers workers, CliRequest req) {
        Found f = find(backends, req.arg(2));
        if (f.error != null) {
            return f.error;
        }
        Server s = f.server;
        switch (req.arg(3)) {
            case "weight" -> {
                return weight(s, req.arg(4));
            }
            case "state" -> {
                switch (req.arg(4)) {
                    case "ready" -> s.adminState(0);
                    case "drain" -> s.adminState(Server.FORCED_DRAIN);
                    case "maint" -> s.adminState(Server.FORCED_MAINT);
                    default -> {
                        return "'set server <srv> state' expects 'ready', 'drain' and 'maint'.\n";
                    }
                }
                return "";
            }
            case "addr" -> {
                if (req.arg(4).isEmpty()) {
                    return "set server <b>/<s> addr requires an address and optionally a port.\n";
                }
                InetSocketAddress before = s.address();
                String out = address(s, req.arg(4), req.arg(5).equals("port") ? req.arg(6) : null) + "\n";
                if (!before.equals(s.address())) {
                    closeIdle(workers, s);
                }
                return out;
            }
            case "health" -> {
                switch (req.arg(4)) {
                    case "up" -> s.setHealth(true, false);
                    case "stopping" -> s.setHealth(true, true);
                    case "down" -> s.setHealth(false, false);
                    default -> {
                        return "'set server <srv> health' expects 'up', 'stopping', or 'down'.\n";
                    }
                }
                return "";
            }
            case "agent", "agent-send", "agent-addr", "agent-port" -> {
                return ServerAgentCommands.set(s, req.arg(3), req.arg(4), req.arg(5), req.arg(6));
            }
            case "check-port" -> {
                if (s.check() == null) {
                    return "health checks are not enabled on this server";
                }
                if (req.arg(4).isEmpty()) {
                    return "set server <b>/<s> check-port requires a port.\n";
                }
                int port;
                try {
                    port = Integer.parseInt(req.arg(4));
                } catch (NumberFormatException e) {
                    return "provided port is not an integer\n";
                }
                if (port < 0 || port > 65535) {
                    return "provided port is invalid\n";
                }
                s.check().port(port);
                return "";
            }
            case "check-addr" -> {
                if (s.check() == null) {
                    return "health checks are not enabled on this server";
                }
                if (req.arg(4).isEmpty()) {
                    return "set server <b>/<s> check-addr requires an address and optionally a port.\n";
                }
                InetAddress ip = Addresses.literal(req.arg(4));
                if (ip == null) {
                    return "invalid addr '" + req.arg(4) + "'\n";
                }
                int port = -1;
                if (req.arg(5).equals("port")) {
                    try {
                        port = Integer.parseInt(req.arg(6));
                    } catch (NumberFormatException e) {
                        return "provided port is not an integer\n";
                    }
                    if (port < 0 || port > 65535) {
                        return "provided port is invalid\n";
                    }
                }
                s.check().addr(ip);
                if (port >= 0) {
                    s.check().port(port);
                }
                return "";
            }
            case "fqdn" -> {
                if (req.arg(4).isEmpty()) {
                    return "set server <b>/<s> fqdn requires a FQDN.\n";
                }
                Server.Renamer r = s.renamer();
                if (r == null) {
                    return "set server <b>/<s> fqdn failed because no resolution is configured.\n";
                }
                if (s.config().srv()) {
                    return "set server <b>/<s> fqdn failed because SRV resolution is configured.\n";
                }
                return r.rename(s, req.arg(4));
            }
            case "ssl" -> {
                return "'set server <srv> ssl' cannot be set.  default-server should define ssl settings\n";
            }
            default -> {
                return "usage: set server <backend>/<server> addr | agent | agent-addr | agent-port | agent-send | check-addr | check-port"
                        + " | fqdn | health | ssl | state | weight\n";
            }
        }
    }

    /**
     * After a change of address: the server's idle connections, which go to the old one, are closed on every loop; those
     * carrying a request finish there.
     */
    public static void closeIdle(Workers workers, Server s) {
        workers.onEachLoop(i -> {
            ServerConnector.closeIdle(s, i);
            return Boolean.TRUE;
        });
    }

    /**
     * HAProxy's {@code srv_update_addr_port}: a new IP address (a literal: no name is resolved on an event
     * loop) and optionally a new port, reported as HAProxy reports them ("IP changed from '127.0.0.1' to
     * '127.0.0.2', no need to change the port by 'stats socket command'").
     */
    static String address(Server s, String addr, String port) {
        InetAddress ip = Addresses.literal(addr);
        if (ip == null) {
            return "Invalid addr '" + addr + "' by 'stats socket command'";
        }
        InetSocketAddress current = s.address();
        StringBuilder msg = new StringBuilder();
        InetAddress newIp = current.getAddress();
        if (ip.equals(current.getAddress())) {
            msg.append("no need to change the addr");
        } else {
            newIp = ip;
            msg.append("IP changed from '").append(current.getAddress().getHostAddress()).append("' to '").append(addr).append('\'');
        }
        int newPort = current.getPort();
        if (port != null) {
            msg.append(", ");
            int i = 0;
            while (i < port.length() && Character.isWhitespace(port.charAt(i))) {
                i++;
            }
            int start = i;
            if (i < port.length() && (port.charAt(i) == '+' || port.charAt(i) == '-')) {
                return msg.append("mapped ports ('+' or '-') are not supported by Sluice by 'stats socket command'").toString();
            }
            while (i < port.length() && Character.isDigit(port.charAt(i))) {
                i++;
            }
            if (i == start || i - start > 9) {
                msg.append("problem converting port '").append(port).append("' to an int");
                s.address(new InetSocketAddress(newIp, newPort));
                return msg.append(" by 'stats socket command'").toString();
            }
            int p = Integer.parseInt(port.substring(start, i));
            if (p == current.getPort()) {
                msg.append("no need to change the port");
            } else if (p > 65535) {
                msg.append("problem converting port '").append(port).append("' to an int");
            } else {
                msg.append("port changed from '").append(current.getPort()).append("' to '").append(port).append('\'');
                newPort = p;
            }
        }
        s.address(new InetSocketAddress(newIp, newPort));
        return msg.append(" by 'stats socket command'").toString();
    }

    /**
     * C's strtol on a decimal string: leading spaces, a sign, digits (saturating), and what follows; null
     * when there is no digit.
     */
    record Strtol(long value, String rest) {
        static Strtol of(String arg) {
            int i = 0;
            while (i < arg.length() && Character.isWhitespace(arg.charAt(i))) {
                i++;
            }
            int start = i;
            if (i < arg.length() && (arg.charAt(i) == '-' || arg.charAt(i) == '+')) {
                i++;
            }
            int digits = i;
            while (i < arg.length() && arg.charAt(i) >= '0' && arg.charAt(i) <= '9') {
                i++;
            }
            if (i == digits) {
                return null;
            }
            long v;
            try {
                v = Long.parseLong(arg.substring(start, i));
            } catch (NumberFormatException e) {
                v = arg.charAt(start) == '-' ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            return new Strtol(v, arg.substring(i));
        }
    }

    /** HAProxy's srv_op_state: 0 stopped (down or in maintenance), 2 running, 3 stopping. */
    static int opState(Server s) {
        if ((s.adminState() & Server.FORCED_MAINT) != 0 || s.maintenance() || !s.up()) {
            return 0;
        }
        return s.stopping() ? 3 : 2;
    }

    /** HAProxy's {@code server_parse_maxconn_change_request}; its two garbage messages have no line feed. */
    static String maxconn(Server s, String arg) {
        if (arg.isEmpty()) {
            return "Require <maxconn>.\n";
        }
        Strtol n = Strtol.of(arg);
        if (n == null) {
            return "maxconn string empty or preceded by garbage";
        }
        if (!n.rest().isEmpty()) {
            return "Trailing garbage in maxconn string";
        }
        long v = n.value();
        // HAProxy stores it unsigned: a negative value is no limit in effect
        s.maxconn(v <= 0 || v > Integer.MAX_VALUE ? 0 : (int) v);
        return "";
    }

    /**
     * {@code show servers conn}: per server, its connection counts; the idle connections are counted on each
     * event loop by a task there (the idle pools belong to their loops; an idle HTTP/2 connection counts as safe, as
     * HAProxy files it). {@code used_cur} is the streams using the server now, {@code used_max} its peak, {@code need_est}
     * the sum of the loops' estimates of the connections needed ({@link ConnUse}).
     */
    private static String serversConn(Collection<Backend> backends, Workers workers, CliRequest req) {
        List<Backend> which;
        if (!req.arg(3).isEmpty()) {
            Backend be = backend(backends, req.arg(3));
            if (be == null) {
                return "Can't find backend.\n";
            }
            which = List.of(be);
        } else {
            which = List.copyOf(backends);
        }
        int loops = workers.count();
        return req.later(workers.onEachLoop(loop -> {
            // per server of the listed backends: {idle, safe, estimated need} on this loop
            Map<Server, int[]> counts = new HashMap<>();
            for (Backend be : which) {
                for (Server s : be.servers()) {
                    int idle = 0;
                    int safe = 0;
                    for (ServerConnection c : s.pools().idle(loop)) {
                        if (c.isOpen()) {
                            idle++;
                            if (c.reused()) {
                                safe++;
                            }
                        }
                    }
                    for (MultiplexedConnection c : s.pools().mux(loop)) {
                        if (c.isIdle()) {
                            idle++;
                            safe++;
                        }
                    }
                    counts.put(s, new int[] {idle, safe, s.pools().use(loop).estNeed});
                }
            }
            return counts;
        }).thenApply(perLoop -> {
            StringBuilder out = new StringBuilder("# bkname/svname bkid/svid addr port - purge_delay used_cur used_max need_est unsafe_nb"
                    + " safe_nb idle_lim idle_cur idle_per_thr[" + loops + "]\n");
            for (Backend be : which) {
                for (Server s : be.servers()) {
                    int idle = 0;
                    int safe = 0;
                    long need = 0;
                    StringBuilder per = new StringBuilder();
                    int limit = s.config().pool().maxConn();
                    for (Map<Server, int[]> m : perLoop) {
                        int[] c = m.getOrDefault(s, new int[3]);
                        idle += c[0];
                        safe += c[1];
                        need += c[2];
                        // HAProxy has no per-thread counts for a server that keeps no idle connection (pool-max-conn 0)
                        if (limit != 0) {
                            per.append(' ').append(c[0]);
                        }
                    }
                    long max = s.snapshot().currentMax();
                    out.append(be.name()).append('/').append(s.name()).append(' ').append(be.id()).append('/').append(s.id()).append(' ')
                            .append(s.unix() ? "unix" : s.address().getAddress().getHostAddress()).append(' ').append(s.address().getPort()).append(" - ")
                            .append(s.purgeDelayMs()).append(' ').append(s.activeStreams()).append(' ').append(max).append(' ').append(need)
                            .append(' ').append(idle - safe).append(' ').append(safe).append(' ').append(limit).append(' ').append(idle).append(per).append('\n');
                }
            }
            return out.toString();
        }));
    }

    /** A server found by {@code <backend>/<server>}, or HAProxy's error for the argument. */
    record Found(Server server, String error) {
    }

    static Found find(Collection<Backend> backends, String arg) {
        int slash = arg.indexOf('/');
        if (slash < 0 || slash == arg.length() - 1) {
            return new Found(null, "Require 'backend/server'.\n");
        }
        Backend be = backend(backends, arg.substring(0, slash));
        if (be == null) {
            return new Found(null, "No such backend.\n");
        }
        Server s = be.server(arg.substring(slash + 1));
        return s == null ? new Found(null, "No such server.\n") : new Found(s, null);
    }

    /** A backend by name or {@code #<id>}, or null. */
    static Backend backend(Collection<Backend> backends, String nameOrId) {
        for (Backend be : backends) {
            if (be.name().equals(nameOrId) || nameOrId.equals("#" + be.id())) {
                return be;
            }
        }
        return null;
    }

    /**
     * HAProxy's {@code server_parse_weight_change_request}: an absolute weight 0..256, or a percentage of the
     * initial weight (capped at 256). Two of its messages have no line feed; they are kept that way.
     */
    public static String weight(Server s, String arg) {
        if (arg.isEmpty()) {
            return "Require <weight> or <weight%>.\n";
        }
        Strtol n = Strtol.of(arg);
        if (n == null) {
            return "Empty weight string empty or preceded by garbage";
        }
        long w = n.value();
        String rest = n.rest();
        if (rest.equals("%")) {
            if (w < 0) {
                return "Relative weight must be positive.\n";
            }
            w = Math.min(w, 25600);
            w = s.initialWeight() * w / 100;
            w = Math.min(w, 256);
        } else if (w < 0 || w > 256) {
            return "Absolute weight can only be between 0 and 256 inclusive.\n";
        } else if (!rest.isEmpty()) {
            return "Trailing garbage in weight string";
        }
        s.weight((int) w);
        return "";
    }

    /**
     * SRV_ADMF_CMAINT: the server is {@code disabled} in the configuration (with FMAINT while that maintenance lasts; the
     * CMAINT bit stays after {@code set server ... state ready}).
     */
    private static final int CONFIGURED_MAINT = 0x04;
    /** SRV_ADMF_RMAINT: no address, the name did not resolve ({@code init-addr none}). */
    private static final int RESOLUTION_MAINT = 0x20;
    /** SRV_ADMF_HMAINT: the name came from DNS (an SRV record); it takes nothing out of service. */
    private static final int FQDN_MAINT = 0x40;

    /** The {@code show servers state} lines of {@code be}'s servers (no header). */
    public static String stateLines(Backend be) {
        StringBuilder out = new StringBuilder();
        state(out, be);
        return out.toString();
    }

    private static void state(StringBuilder out, Backend be) {
        long now = System.currentTimeMillis();
        for (Server s : be.servers()) {
            List<String> f = stateFields(be, s, now);
            for (int i = 0; i < f.size(); i++) {
                out.append(i == 0 ? "" : " ").append(f.get(i));
            }
            out.append('\n');
        }
    }

    /**
     * The fields of {@code s}'s line of {@code show servers state} (a {@code server-state-file} line), from {@code be_id}
     * to {@code srv_agent_port}; {@code now} in milliseconds.
     */
    public static List<String> stateFields(Backend be, Server s, long now) {
        SavedServerState st = state(s, now, adminBits(s));
        List<String> f = new ArrayList<>(24);
        f.add(Integer.toString(be.id()));
        f.add(be.name());
        f.add(Integer.toString(s.id()));
        f.add(s.name());
        f.add(st.addr() == null ? "-" : st.addr());
        f.add(Integer.toString(st.opState()));
        f.add(Integer.toString(st.adminState()));
        f.add(Integer.toString(st.uweight()));
        f.add(Integer.toString(st.iweight()));
        f.add(Long.toString(st.sinceLastChange()));
        f.add(Integer.toString(st.checkStatus()));
        f.add(Integer.toString(st.checkResult()));
        f.add(Integer.toString(st.checkHealth()));
        f.add(Integer.toString(st.checkState()));
        f.add(Integer.toString(st.agentState()));
        f.add("0");
        f.add(s.config().idForced() ? "1" : "0");
        // srv_fqdn: the name a server was declared with (HAProxy keeps it as the server's hostname)
        String host = s.fqdn();
        f.add(host == null || Addresses.literal(host) != null ? "-" : host);
        f.add(Integer.toString(st.port()));
        f.add(s.config().srv() ? s.config().host() : "-");
        f.add(s.tls() != null ? "1" : "0");
        f.add(Integer.toString(st.checkPort()));
        f.add(st.checkAddr() == null ? "-" : st.checkAddr());
        f.add(st.agentAddr() == null ? "-" : st.agentAddr());
        f.add(Integer.toString(st.agentPort()));
        return f;
    }

    /**
     * The state an in-process reload carries from {@code s} to the server of the same name: what its {@code show servers
     * state} line holds, read as {@code load-server-state-from-file} reads it ({@link SavedServerState#of}: the admin bits
     * the configuration or DNS set left out, a combination a state file may not hold refused), without writing and
     * parsing the line (1,000 servers: a megabyte of strings per reload). Null when a state file could not carry it.
     */
    public static SavedServerState liveState(Server s, long now) {
        int kept = SavedServerState.keptAdmin(adminBits(s));
        return SavedServerState.admissibleAdmin(kept) ? state(s, now, kept) : null;
    }

    /** The admin state bits of {@code s} as its state line prints them. */
    private static int adminBits(Server s) {
        return s.adminState() | (s.configuredMaintenance() ? Server.FORCED_MAINT : 0) | (s.configuredDisabled() ? CONFIGURED_MAINT : 0)
                | (s.unresolved() ? RESOLUTION_MAINT : 0) | (s.fqdnChanged() ? FQDN_MAINT : 0);
    }

    /** The state of {@code s} with these admin bits: the values of its state line ("-" and "0" as null and 0). */
    private static SavedServerState state(Server s, long now, int admin) {
        ServerHealthCheck c = s.check();
        ServerAgentCheck agent = s.agent();
        String addr = s.unresolved() || s.unix() ? null : io.netty.util.NetUtil.toAddressString(s.address().getAddress());
        // a server declared disabled has its (unconfigured) check paused, as in HAProxy
        return new SavedServerState(addr, opState(s), admin, s.weight(), s.initialWeight(), (now - s.lastChange()) / 1000,
                c == null ? 1 : c.statusCode(), c == null ? 0 : c.resultCode(), c == null ? s.checkHealth() : c.health(),
                c == null ? (s.configuredDisabled() ? 8 : 0) : c.stateBits(), agent == null ? 0 : agent.stateBits(), s.address().getPort(),
                c == null ? 0 : c.checkPort(), c == null ? null : c.checkAddr(), agent == null ? 0 : agent.port(),
                agent == null ? null : agent.addr());
    }
}

package dev.sluice.proxy.backend;

import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import java.util.Collection;
import java.util.List;

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

    public static void register(CliRegistry r, Collection<Backend> backends) {
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
                "change a server's state or weight", req -> setServer(backends, req)));
        r.register(new CliCommand(List.of("disable", "server"), Level.ADMIN, "disable server (DEPRECATED)",
                "disable a server for maintenance (use 'set server' instead)", req -> {
                    Found f = find(backends, req.arg(2));
                    if (f.error != null) {
                        return f.error;
                    }
                    f.server.adminState(Server.FORCED_MAINT);
                    return "";
                }));
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

    private static String setServer(Collection<Backend> backends, CliRequest req) {
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
            case "health", "agent", "agent-addr", "agent-port", "agent-send", "check-addr", "check-port", "addr", "fqdn", "ssl" -> {
                return "'set server <srv> " + req.arg(3) + "' is not supported by Sluice yet.\n";
            }
            default -> {
                return "usage: set server <backend>/<server> addr | agent | agent-addr | agent-port | agent-send | check-addr | check-port"
                        + " | fqdn | health | ssl | state | weight\n";
            }
        }
    }

    /** A server found by {@code <backend>/<server>}, or HAProxy's error for the argument. */
    private record Found(Server server, String error) {
    }

    private static Found find(Collection<Backend> backends, String arg) {
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
    static String weight(Server s, String arg) {
        if (arg.isEmpty()) {
            return "Require <weight> or <weight%>.\n";
        }
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
            return "Empty weight string empty or preceded by garbage";
        }
        long w;
        try {
            w = Long.parseLong(arg.substring(start, i));
        } catch (NumberFormatException e) {
            w = arg.charAt(start) == '-' ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        String rest = arg.substring(i);
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

    private static void state(StringBuilder out, Backend be) {
        long now = System.currentTimeMillis();
        for (Server s : be.servers()) {
            boolean tls = s.id() <= be.config().servers().size() && be.config().servers().get(s.id() - 1).tls() != null;
            out.append(be.id()).append(' ').append(be.name()).append(' ').append(s.id()).append(' ').append(s.name()).append(' ')
                    .append(s.address().getAddress().getHostAddress()).append(' ')
                    .append((s.adminState() & Server.FORCED_MAINT) != 0 ? 0 : 2).append(' ')
                    .append(s.adminState()).append(' ').append(s.weight()).append(' ').append(s.initialWeight()).append(' ')
                    .append((now - s.lastChange()) / 1000).append(" 1 0 ").append(s.checkHealth()).append(" 0 0 0 0 - ")
                    .append(s.address().getPort()).append(" - ").append(tls ? 1 : 0).append(" 0 - - 0\n");
        }
    }
}

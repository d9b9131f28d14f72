package dev.sluice.proxy.backend;

import dev.sluice.config.Addresses;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.config.model.StatsSocket.Level;
import java.net.InetAddress;
import java.util.Collection;
import java.util.List;

/**
 * The admin commands of agent checks, with HAProxy 2.6's answers: {@code enable|disable agent <bk>/<srv>} and
 * {@code set server <bk>/<srv> agent up|down | agent-send <text> | agent-addr <ip> [port <p>] | agent-port <p>}.
 */
final class ServerAgentCommands {
    private ServerAgentCommands() {
    }

    static void register(CliRegistry r, Collection<Backend> backends) {
        for (boolean on : new boolean[] {true, false}) {
            r.register(new CliCommand(List.of(on ? "enable" : "disable", "agent"), Level.ADMIN, (on ? "enable" : "disable") + " agent",
                    (on ? "enable" : "disable") + " agent checks", req -> {
                        ServerCommands.Found f = ServerCommands.find(backends, req.arg(2));
                        if (f.error() != null) {
                            return f.error();
                        }
                        ServerAgentCheck a = f.server().agent();
                        if (a == null) {
                            return on ? "Agent was not configured on this server, cannot enable.\n" : "";
                        }
                        a.enabled(on);
                        return "";
                    }));
        }
    }

    /** {@code set server ... agent|agent-send|agent-addr|agent-port}: the answer ("" when done). */
    static String set(Server s, String what, String arg, String arg2, String arg3) {
        ServerAgentCheck a = s.agent();
        boolean enabled = a != null && a.enabled();
        switch (what) {
            case "agent" -> {
                if (!enabled) {
                    return "agent checks are not enabled on this server.\n";
                }
                switch (arg) {
                    case "up", "down" -> {
                        boolean up = arg.equals("up");
                        a.forceHealth(up);
                        s.setAgentHealth(up);
                        return "";
                    }
                    default -> {
                        return "'set server <srv> agent' expects 'up' or 'down'.\n";
                    }
                }
            }
            case "agent-send" -> {
                if (!enabled) {
                    return "agent checks are not enabled on this server.\n";
                }
                a.send(arg);
                return "";
            }
            case "agent-addr" -> {
                if (arg.isEmpty()) {
                    return "set server <b>/<s> agent-addr requires an address and optionally a port.\n";
                }
                return update(a, enabled, arg, arg2.equals("port") ? arg3 : null);
            }
            default -> {
                if (arg.isEmpty()) {
                    return "set server <b>/<s> agent-port requires a port.\n";
                }
                return update(a, enabled, null, arg);
            }
        }
    }

    /** HAProxy's srv_update_agent_addr_port: its messages (without a line feed), nothing applied on an error. */
    private static String update(ServerAgentCheck a, boolean enabled, String addr, String port) {
        if (!enabled) {
            return "agent checks are not enabled on this server";
        }
        InetAddress ip = null;
        if (addr != null) {
            ip = Addresses.literal(addr);
            if (ip == null) {
                return "invalid addr '" + addr + "'";
            }
        }
        int p = -1;
        if (port != null) {
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                return "provided port is not an integer";
            }
            if (p < 0 || p > 65535) {
                return "provided port is invalid";
            }
        }
        if (ip != null) {
            a.addr(ip);
        }
        if (p >= 0) {
            a.port(p);
        }
        return "";
    }
}

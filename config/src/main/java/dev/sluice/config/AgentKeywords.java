package dev.sluice.config;

import dev.sluice.config.model.ServerAgent;
import java.util.List;

/**
 * The agent check's server options, with HAProxy 2.6's messages: {@code agent-check}, {@code no-agent-check},
 * {@code agent-port}, {@code agent-addr}, {@code agent-inter}, {@code agent-send}. The check's {@code port} and
 * {@code addr} are the agent's too when it has no {@code agent-port} / {@code agent-addr}, as in HAProxy.
 */
final class AgentKeywords {
    private AgentKeywords() {
    }

    static final List<String> SERVER_OPTIONS = List.of("agent-check", "no-agent-check", "agent-port", "agent-addr", "agent-inter",
            "agent-send");

    /**
     * Parses an agent option of a server line at {@code a[i]}: the index after it, {@link TlsKeywords#NOT_MINE} when it
     * is not one, {@link TlsKeywords#FAILED} after reporting an error.
     */
    static int serverOption(KeywordContext c, String server, ServerParams p, List<String> a, int i) {
        String w = a.get(i);
        String prefix = server == null ? "" : "server '" + server + "' : ";
        String v = i + 1 < a.size() ? a.get(i + 1) : "";
        switch (w) {
            case "agent-check", "no-agent-check" -> {
                p.agent = w.equals("agent-check");
                return i + 1;
            }
            case "agent-port" -> {
                if (v.isEmpty()) {
                    c.error(prefix + "'agent-port' expects a port number as argument.");
                    return TlsKeywords.FAILED;
                }
                // HAProxy reads it with atol: no digits is port 0, which a server with agent-check then refuses
                p.agentPort = (int) Math.max(0, Math.min(65535, atol(v)));
                return i + 2;
            }
            case "agent-addr" -> {
                if (v.isEmpty()) {
                    c.error(prefix + "'agent-addr' expects an address as argument.");
                    return TlsKeywords.FAILED;
                }
                String ip = v.startsWith("ipv4@") || v.startsWith("ipv6@") ? v.substring(5) : v;
                if (Addresses.literal(ip) == null) {
                    c.error(prefix + "parsing agent-addr failed. Check if '" + v + "' is correct address.");
                    return TlsKeywords.FAILED;
                }
                p.agentAddr = ip;
                return i + 2;
            }
            case "agent-inter" -> {
                if (v.isEmpty()) {
                    c.error(prefix + "'agent-inter' expects a delay as argument.");
                    return TlsKeywords.FAILED;
                }
                long ms;
                try {
                    ms = Units.parseTimeMillis(v);
                } catch (IllegalArgumentException e) {
                    c.error(prefix + "'agent-inter' : " + e.getMessage() + ".");
                    return TlsKeywords.FAILED;
                }
                if (ms <= 0) {
                    c.error(prefix + "invalid value " + ms + " for argument 'agent-inter' of server " + (server == null ? "default-server" : server)
                            + ".");
                    return TlsKeywords.FAILED;
                }
                p.agentInter = ms;
                return i + 2;
            }
            case "agent-send" -> {
                if (v.isEmpty()) {
                    c.error(prefix + "'agent-send' expects a string as argument.");
                    return TlsKeywords.FAILED;
                }
                p.agentSend = v;
                return i + 2;
            }
            default -> {
                return TlsKeywords.NOT_MINE;
            }
        }
    }

    /** The agent check a server line ends with. */
    static ServerAgent agent(ServerParams p) {
        if (!p.agent) {
            return ServerAgent.NONE;
        }
        return new ServerAgent(true, p.agentPort > 0 ? p.agentPort : p.checkPort, p.agentAddr != null ? p.agentAddr : p.checkAddr,
                p.agentInter, p.agentSend);
    }

    private static long atol(String s) {
        int i = 0;
        boolean neg = false;
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            neg = s.charAt(i++) == '-';
        }
        long n = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i)) && n < 1_000_000) {
            n = n * 10 + (s.charAt(i++) - '0');
        }
        return neg ? -n : n;
    }
}

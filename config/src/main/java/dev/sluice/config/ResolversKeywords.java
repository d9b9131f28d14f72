package dev.sluice.config;

import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Resolvers;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.ServerDns;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * The {@code resolvers} section ({@code nameserver}, {@code parse-resolv-conf}, {@code accepted_payload_size},
 * {@code resolve_retries}, {@code timeout resolve|retry}, {@code hold <event>}), the implicit {@code default} section
 * HAProxy 2.6 builds from /etc/resolv.conf, the server options {@code resolvers}, {@code resolve-prefer},
 * {@code resolve-opts} and {@code resolve-net}, and the check that every section a server names exists, with HAProxy
 * 2.6's messages (src/resolvers.c, src/server.c). Parse-time only.
 */
final class ResolversKeywords {
    private ResolversKeywords() {
    }

    /** Where {@code parse-resolv-conf} reads; a test may point it elsewhere with the system property. */
    static String resolvConf() {
        return System.getProperty("sluice.resolv.conf", "/etc/resolv.conf");
    }

    /** HAProxy's DNS_HEADER_SIZE and DNS_MAX_UDP_MESSAGE. */
    private static final int MIN_PAYLOAD = 12;
    private static final int MAX_PAYLOAD = 65535;
    /** HAProxy's SRV_MAX_PREF_NET. */
    private static final int MAX_NETWORKS = 5;

    /** A {@code resolvers} section while it is parsed, with HAProxy's defaults. */
    static final class Builder {
        final SourceRef where;
        final String name;
        final List<Resolvers.Nameserver> nameservers = new ArrayList<>();
        int acceptedPayloadSize = 512;
        int resolveRetries = 3;
        long timeoutResolve = 1000;
        long timeoutRetry = 1000;
        long holdValid = 10_000;
        long holdNx = 30_000;
        long holdTimeout = 30_000;
        long holdRefused = 30_000;
        long holdOther = 30_000;
        long holdObsolete = 0;
        boolean implicit;

        Builder(SourceRef where, String name) {
            this.where = where;
            this.name = name;
        }

        Resolvers build() {
            return new Resolvers(where, name, nameservers, acceptedPayloadSize, resolveRetries, timeoutResolve, timeoutRetry, holdValid, holdNx,
                    holdTimeout, holdRefused, holdOther, holdObsolete, implicit);
        }
    }

    static void register(KeywordRegistry r) {
        EnumSet<Section> s = EnumSet.of(Section.RESOLVERS);
        r.register(new Keyword("nameserver", s, "nameserver <id> [udp@|tcp@]<ip>:<port>",
                "A DNS server to ask, over UDP (or TCP with tcp@); the servers of a section are asked together, the first"
                        + " valid answer wins.", ResolversKeywords::nameserver));
        r.register(new Keyword("parse-resolv-conf", s, "parse-resolv-conf",
                "Add the nameserver lines of /etc/resolv.conf (port 53, the address as id).", c -> parseResolvConf(c.at(), builder(c),
                        c.diagnostics())));
        r.register(new Keyword("accepted_payload_size", s, "accepted_payload_size <nb>",
                "The largest DNS answer announced over UDP (EDNS0), 12 to 65535 (default 512).", ResolversKeywords::payloadSize));
        r.register(new Keyword("resolve_retries", s, "resolve_retries <nb>",
                "How many more times an unanswered query is sent, every 'timeout retry', before the resolution fails (default 3).", c -> {
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'resolve_retries' expects <nb> as argument.");
                        return;
                    }
                    builder(c).resolveRetries = Units.atoi(c.args().get(0));
                }));
        for (String which : List.of("resolve", "retry")) {
            r.register(new Keyword("timeout " + which, s, "timeout " + which + " <time>", which.equals("resolve")
                    ? "The time between two resolutions of a name (default 1s)."
                    : "The time before an unanswered query is sent again (default 1s).", c -> timeout(c, which)));
        }
        r.register(new Keyword("hold", s, "hold valid|nx|timeout|refused|other|obsolete <time>",
                "valid: accepted (default 10s; HAProxy 2.6 uses it only to let a failed health check ask again early: names are"
                        + " asked every 'timeout resolve'); nx, timeout, refused, other:"
                        + " how long a server keeps its address after such a failure before it goes to maintenance (default 30s);"
                        + " obsolete: how long an address missing from the answers is kept (default 0).", ResolversKeywords::hold));
    }

    private static Builder builder(KeywordContext c) {
        return c.currentResolvers();
    }

    /** The {@code resolvers <name>} line: a new section, or null (the section's lines are then skipped) after an error. */
    static Builder header(SourceRef at, List<String> words, Map<String, Builder> existing, Diagnostics diags) {
        if (words.size() < 2 || words.get(1).isEmpty()) {
            diags.error(at, "missing name for resolvers section.");
            return null;
        }
        String name = words.get(1);
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (!(Character.isLetterOrDigit(ch) || ch == '.' || ch == '-' || ch == '_' || ch == ':')) {
                diags.error(at, "character '" + ch + "' is not permitted in 'resolvers' name '" + name + "'.");
                return null;
            }
        }
        Builder b = existing.get(name);
        if (b != null) {
            diags.error(at, "resolvers '" + name + "' has same name as another resolvers (declared at " + b.where.file() + ":" + b.where.line()
                    + ").");
            return null;
        }
        return new Builder(at, name);
    }

    private static void nameserver(KeywordContext c) {
        List<String> a = c.args();
        if (a.size() < 2 || a.get(1).isEmpty()) {
            c.lineError("'nameserver' expects <name> and <addr>[:<port>] as arguments.");
            return;
        }
        String id = a.get(0);
        for (int i = 0; i < id.length(); i++) {
            char ch = id.charAt(i);
            if (!(Character.isLetterOrDigit(ch) || ch == '.' || ch == '-' || ch == '_' || ch == ':')) {
                c.lineError("character '" + ch + "' is not permitted in server name '" + id + "'.");
                return;
            }
        }
        Builder b = builder(c);
        for (Resolvers.Nameserver ns : b.nameservers) {
            if (ns.id().equals(id)) {
                c.lineError("nameserver '" + id + "' has same name as another nameserver (declared at " + ns.where().file() + ":"
                        + ns.where().line() + ").");
            }
        }
        String prefix = "'nameserver " + id + "' : ";
        String addr = a.get(1);
        boolean tcp = false;
        String rest = addr;
        if (rest.startsWith("tcp@") || rest.startsWith("tcp4@") || rest.startsWith("tcp6@")) {
            tcp = true;
            rest = rest.substring(rest.indexOf('@') + 1);
        } else if (rest.startsWith("udp@") || rest.startsWith("udp4@") || rest.startsWith("udp6@") || rest.startsWith("ipv4@")
                || rest.startsWith("ipv6@")) {
            rest = rest.substring(rest.indexOf('@') + 1);
        } else if (rest.indexOf('@') >= 0 || rest.startsWith("/")) {
            c.lineError(prefix + "address '" + addr + "' is not supported by Sluice yet (only IPv4, IPv6 and host names over udp@ or tcp@)");
            return;
        }
        int colon = rest.lastIndexOf(':');
        boolean bracketed = rest.startsWith("[");
        if (colon < 0 || (bracketed && colon < rest.indexOf(']')) || (!bracketed && rest.indexOf(':') != colon && Addresses.literal(rest) != null)) {
            c.lineError(prefix + "missing port specification in '" + addr + "'");
            return;
        }
        String host = rest.substring(0, colon);
        if (bracketed && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String port = rest.substring(colon + 1);
        int p = port.chars().allMatch(Character::isDigit) && !port.isEmpty() && port.length() < 7 ? Integer.parseInt(port) : -1;
        if (p < 1 || p > 65535) {
            c.lineError(prefix + (port.isEmpty() ? "missing port specification in '" + addr + "'" : "invalid port '" + port + "'"));
            return;
        }
        if (Addresses.literal(host) == null) {
            // as HAProxy (PA_O_RESOLVE): a name is resolved once, while the configuration is read
            try {
                host = InetAddress.getByName(host).getHostAddress();
            } catch (IOException | RuntimeException e) {
                c.lineError(prefix + "invalid address: '" + host + "' in '" + addr + "'");
                return;
            }
        }
        b.nameservers.add(new Resolvers.Nameserver(c.at(), id, host, p, tcp));
    }

    /**
     * {@code parse-resolv-conf} (and the implicit {@code default} section, {@code at} null: no message): the nameserver
     * lines of /etc/resolv.conf, with HAProxy's warnings.
     */
    static void parseResolvConf(SourceRef at, Builder b, Diagnostics diags) {
        String file = resolvConf();
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of(file));
        } catch (IOException e) {
            if (at != null) {
                diags.error(at, "failed to open /etc/resolv.conf.");
            }
            return;
        }
        List<String> warnings = new ArrayList<>();
        int n = 0;
        for (String line : lines) {
            n++;
            if (!line.startsWith("nameserver")) {
                continue;
            }
            String[] w = line.substring(10).trim().split("[ \t]+");
            if (line.length() > 10 && !Character.isWhitespace(line.charAt(10))) {
                continue;
            }
            if (w.length == 0 || w[0].isEmpty()) {
                warnings.add("parsing [/etc/resolv.conf:" + n + "] : nameserver line is missing address.");
                continue;
            }
            String address = w[0];
            boolean duplicate = false;
            for (Resolvers.Nameserver ns : b.nameservers) {
                if (ns.id().equals(address)) {
                    warnings.add("Parsing [/etc/resolv.conf:" + n + "] : generated name for /etc/resolv.conf nameserver '" + address
                            + "' conflicts with another nameserver (declared at " + ns.where().file() + ":" + ns.where().line()
                            + "), it appears to be a duplicate and will be excluded.");
                    duplicate = true;
                }
            }
            if (duplicate) {
                continue;
            }
            if (Addresses.literal(address) == null) {
                warnings.add("parsing [/etc/resolv.conf:" + n + "] : address '" + address + "' could not be recognized, nameserver will be"
                        + " excluded.");
                continue;
            }
            b.nameservers.add(new Resolvers.Nameserver(new SourceRef("/etc/resolv.conf", n), address, address, 53, false));
        }
        if (at != null && !warnings.isEmpty()) {
            diags.warning(at, String.join("\n        ", warnings));
        }
    }

    private static void payloadSize(KeywordContext c) {
        if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
            c.lineError("'accepted_payload_size' expects <nb> as argument.");
            return;
        }
        int i = Units.atoi(c.args().get(0));
        if (i < MIN_PAYLOAD || i > MAX_PAYLOAD) {
            c.lineError("'accepted_payload_size' must be between " + MIN_PAYLOAD + " and " + MAX_PAYLOAD + " inclusive (was " + c.args().get(0)
                    + ").");
            return;
        }
        builder(c).acceptedPayloadSize = i;
    }

    private static void timeout(KeywordContext c, String which) {
        if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
            c.lineError("'timeout " + which + "' expects <time> as argument.");
            return;
        }
        String v = c.args().get(0);
        long ms = time(c, v, "<" + v + "> to <timeout " + which + ">", "<timeout " + which + ">");
        if (ms < 0) {
            return;
        }
        if (which.equals("retry")) {
            builder(c).timeoutRetry = ms;
        } else {
            builder(c).timeoutResolve = ms;
        }
    }

    /** HAProxy's parse_time_err with its messages; -1 after an error. */
    private static long time(KeywordContext c, String v, String argTo, String to) {
        try {
            long ms = Units.parseTimeErr(v, 1);
            if (ms == 0 && !v.matches("0+[a-z]*")) {
                c.lineError("timer underflow in argument " + argTo + ", minimum non-null value is 1 ms.");
                return -1;
            }
            return ms;
        } catch (Units.BadTime e) {
            c.lineError(e.overflow() ? "timer overflow in argument " + argTo + ", maximum value is 2147483647 ms (~24.8 days)."
                    : "unexpected character '" + e.at() + "' in argument to " + to + ".");
            return -1;
        }
    }

    private static void hold(KeywordContext c) {
        List<String> a = c.args();
        if (a.size() < 2 || a.get(1).isEmpty()) {
            c.lineError("'hold' expects an <event> and a <time> as arguments.");
            return;
        }
        long ms = time(c, a.get(1), "<" + a.get(0) + "> to <hold>", "<hold>");
        if (ms < 0) {
            return;
        }
        Builder b = builder(c);
        switch (a.get(0)) {
            case "nx" -> b.holdNx = ms;
            case "other" -> b.holdOther = ms;
            case "refused" -> b.holdRefused = ms;
            case "timeout" -> b.holdTimeout = ms;
            case "valid" -> b.holdValid = ms;
            case "obsolete" -> b.holdObsolete = ms;
            default -> c.lineError("'hold' unknown <event>: '" + a.get(0) + "', expects either 'nx', 'timeout', 'valid', 'obsolete' or 'other'.");
        }
    }

    /**
     * A server option of DNS at run time at {@code value}; false after an error ({@code where}: "'server b/s' : " or
     * "'default-server' : ", HAProxy's prefix).
     */
    static boolean serverOption(KeywordContext c, String where, ServerParams params, String opt, String value) {
        switch (opt) {
            case "resolvers" -> {
                if (value.isEmpty()) {
                    c.lineError(where + "'resolvers' expects <resolvers id> as argument.");
                    return false;
                }
                params.dns = params.dns.withResolvers(value);
            }
            case "resolve-prefer" -> {
                if (!value.equals("ipv4") && !value.equals("ipv6")) {
                    c.lineError(where + "'resolve-prefer' expects either ipv4 or ipv6 as argument..");
                    return false;
                }
                params.dns = params.dns.withPreferIpv6(value.equals("ipv6"));
            }
            case "resolve-opts" -> {
                boolean allowDup = false;
                boolean ignoreWeight = false;
                for (String o : value.split(",", -1)) {
                    switch (o) {
                        case "allow-dup-ip" -> allowDup = true;
                        case "ignore-weight" -> ignoreWeight = true;
                        case "prevent-dup-ip" -> allowDup = false;
                        default -> {
                            c.lineError(where + "'resolve-opts' : unknown resolve-opts option '" + o + "', supported methods are 'allow-dup-ip',"
                                    + " 'ignore-weight', and 'prevent-dup-ip'..");
                            return false;
                        }
                    }
                }
                params.dns = params.dns.withOptions(allowDup, ignoreWeight);
            }
            default -> {
                if (value.isEmpty()) {
                    c.lineError(where + "'resolve-net' expects a list of networks..");
                    return false;
                }
                String[] nets = value.split(",", -1);
                if (nets.length > MAX_NETWORKS) {
                    c.lineError(where + "'resolve-net' exceed " + MAX_NETWORKS + " networks..");
                    return false;
                }
                for (String n : nets) {
                    if (!validNetwork(n)) {
                        c.lineError(where + "'resolve-net' invalid network '" + n + "'..");
                        return false;
                    }
                }
                params.dns = params.dns.withNetworks(List.of(nets));
            }
        }
        return true;
    }

    /** An IPv4 network (address/bits or address/dotted mask) or an IPv6 one (address/bits). */
    static boolean validNetwork(String n) {
        int slash = n.indexOf('/');
        String ip = slash < 0 ? n : n.substring(0, slash);
        InetAddress a = Addresses.literal(ip);
        if (a == null) {
            return false;
        }
        if (slash < 0) {
            return true;
        }
        String mask = n.substring(slash + 1);
        int max = a.getAddress().length * 8;
        if (mask.matches("\\d{1,3}")) {
            return Integer.parseInt(mask) <= max;
        }
        return max == 32 && Addresses.literal(mask) != null && mask.indexOf(':') < 0;
    }

    /**
     * After parsing: every {@code resolvers} a server names must exist (HAProxy's "unable to find required resolvers",
     * given at the server's line); the implicit {@code default} section is added when no section has that name.
     */
    static List<Resolvers> finish(Map<String, Builder> sections, List<Proxy> proxies, Diagnostics diags) {
        if (!sections.containsKey("default")) {
            Builder d = new Builder(new SourceRef("<internal>", 0), "default");
            d.implicit = true;
            parseResolvConf(null, d, diags);
            sections.put("default", d);
        }
        for (Proxy p : proxies) {
            for (Server s : p.servers()) {
                String r = s.dns().resolvers();
                if (r != null && !sections.containsKey(r)) {
                    diags.error(s.where(), p.kind().keyword() + " '" + p.name() + "', server '" + s.name() + "': unable to find required resolvers '"
                            + r + "'");
                }
            }
        }
        List<Resolvers> out = new ArrayList<>();
        for (Builder b : sections.values()) {
            out.add(b.build());
        }
        return out;
    }
}

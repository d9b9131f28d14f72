package dev.sluice.config;

import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.Peers;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.StickTableDecl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The {@code peers} section ({@code peer}, {@code bind} + {@code server}, {@code default-bind}, {@code default-server},
 * {@code disabled}, {@code enabled}, {@code log}, {@code shards}, {@code table}), the global {@code localpeer}, and the
 * checks HAProxy 2.6 makes once everything is read (src/cfgparse.c: cfg_parse_peers, check_config_validity), in its
 * words. The section's lines are read here directly ({@code bind}, {@code server} and {@code log} mean something else in
 * a proxy); the registered keywords document them.
 */
final class PeersKeywords {
    private PeersKeywords() {
    }

    /** The connect timeout of outgoing peer sessions: the reconnect timer, after which HAProxy 2.6 gives up on a session not yet established. */
    static final long CONNECT_TIMEOUT_MS = 5000;

    /** A {@code peers} section while it is parsed. */
    static final class Builder {
        final SourceRef where;
        final String name;
        final String localName;
        boolean disabled;
        boolean bindLine;
        boolean peerLine;
        final List<Peers.Peer> peers = new ArrayList<>();
        /** The local peer made by a {@code bind} line before its {@code server} line names it. */
        boolean unnamedLocal;
        SourceRef localWhere;
        ListenAddress bind;
        SourceRef bindWhere;
        List<String> bindOptions = List.of();
        List<String> defaultBind = List.of();
        List<String> defaultServer = List.of();
        int shards;
        final List<Peers.PeersTable> tables = new ArrayList<>();
        final List<String> logs = new ArrayList<>();

        /** Where relative paths of the section start from ({@code default-path} when it began; null: the working directory). */
        String directory;

        Builder(SourceRef where, String name, String localName) {
            this.where = where;
            this.name = name;
            this.localName = localName;
        }

        boolean hasLocal() {
            return unnamedLocal || peers.stream().anyMatch(Peers.Peer::local);
        }

        /**
         * The section, its TLS files as the proxies' are found: {@code crt-base} in front of a relative {@code crt},
         * {@code ca-base} in front of a relative {@code ca-file}, then relative to {@link #directory}.
         */
        Peers build(int maxUpdates, String crtBase, String caBase) {
            List<String> bo = new ArrayList<>(defaultBind);
            bo.addAll(bindOptions);
            List<Peers.Peer> ps = peers.stream().map(p -> new Peers.Peer(p.where(), p.name(), p.host(), p.port(), p.local(),
                    withFile(p.options(), "ca-file", caBase))).toList();
            return new Peers(where, name, disabled, localName, ps, bind, bindWhere, withFile(bo, "crt", crtBase), defaultServer, shards,
                    tables, logs, CONNECT_TIMEOUT_MS, maxUpdates);
        }

        /** {@code options} with the file each {@code option} names found from {@code base} and {@link #directory}. */
        private List<String> withFile(List<String> options, String option, String base) {
            List<String> out = new ArrayList<>(options);
            for (int i = 0; i + 1 < out.size(); i++) {
                if (out.get(i).equals(option)) {
                    String f = out.get(i + 1);
                    if (!f.startsWith("/") && !f.startsWith("@")) {
                        out.set(i + 1, ConfigPaths.resolve(directory, base != null ? base + "/" + f : f));
                    }
                }
            }
            return out;
        }
    }

    static void register(KeywordRegistry r) {
        EnumSet<Section> peers = EnumSet.of(Section.PEERS);
        r.register(new Keyword("localpeer", EnumSet.of(Section.GLOBAL), "localpeer <name>",
                "The name of this process in the peers sections (default: the host name; '-L <name>' overrides it). Must come"
                        + " before the peers sections.", PeersKeywords::localpeer));
        r.register(new Keyword("peer", peers, "peer <name> <address>:<port> [ssl verify none|ca-file <pem>]",
                "A peer of the section; the one named like the local peer is this process, which listens on its address"
                        + " (and is the rendezvous of a reload: the new process learns the tables from the old one). Cannot be mixed"
                        + " with 'bind'. 'bind <address>:<port> [options]' + 'server <name> [<address>:<port>] [options]' is the"
                        + " other way: the local peer's 'server' line has no address. 'default-bind' and 'default-server' give"
                        + " options to every bind and server line (encrypted links: 'default-bind ssl crt <pem>' and 'default-server ssl"
                        + " verify none|ca-file <pem>'); 'log' lines are accepted as in HAProxy.", c -> {
                        }));
        r.register(new Keyword("table", peers, "table <name> type <type> [len <n>] size <n> [expire <time>] [nopurge] [store <types>]",
                "A stick table of the section, replicated to its peers, named '<section>/<name>' in rules and on the CLI.", c -> {
                }));
        r.register(new Keyword("disabled", peers, "disabled", "The section does not replicate (its tables stay local).", c -> {
        }));
        r.register(new Keyword("enabled", peers, "enabled", "Undoes 'disabled'.", c -> {
        }));
        r.register(new Keyword("shards", peers, "shards <n>",
                "HAProxy 2.9+ keyword (HAProxy 2.6 refuses it): accepted and shown, entries still go to every peer.", c -> {
                }));
    }

    /** The local peer's name as it stands now: {@code -L}, else {@code localpeer}, else the host name. */
    static String localName(ConfigParser.Settings settings, GlobalBuilder global) {
        if (settings.localPeer() != null) {
            return settings.localPeer();
        }
        if (global.localPeer != null) {
            return global.localPeer;
        }
        return hostName();
    }

    /** What gethostname() returns, as HAProxy's default local peer name. */
    static String hostName() {
        try {
            String h = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            if (!h.isEmpty()) {
                return h;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: ask the JVM
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static void localpeer(KeywordContext c) {
        if (!c.atMost(1)) {
            return;
        }
        if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
            c.lineError("'localpeer' expects a name as an argument.");
            return;
        }
        if (c.settings().localPeer() != null) {
            c.lineWarning("'localpeer' ignored since it is already set by using the '-L' command line argument.");
            return;
        }
        if (c.global().peersSeen) {
            c.lineWarning("'localpeer' ignored since it is used after 'peers' section.");
            return;
        }
        c.global().localPeer = c.args().get(0);
    }

    /** The word after {@code name} in {@code options}, or null. */
    static String optionValue(List<String> options, String name) {
        int i = options.lastIndexOf(name);
        return i >= 0 && i + 1 < options.size() ? options.get(i + 1) : null;
    }

    /** The first character HAProxy's invalid_char refuses in a name, or -1. */
    static int invalidChar(String s) {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (!(Character.isLetterOrDigit(ch) && ch < 128) && ch != '.' && ch != '_' && ch != '-' && ch != ':') {
                return ch;
            }
        }
        return -1;
    }

    /** A {@code peers <name>} line: the new section, or null when the section is not read (HAProxy aborts on it). */
    static Builder header(SourceRef at, List<String> words, List<Builder> all, String localName, Diagnostics diags) {
        if (words.size() < 2 || words.get(1).isEmpty()) {
            diags.error(at, "missing name for peers section.");
            return null;
        }
        if (words.size() > 2) {
            diags.error(at, "'peers' cannot handle unexpected argument '" + words.get(2) + "'.");
            return null;
        }
        String name = words.get(1);
        int bad = invalidChar(name);
        if (bad >= 0) {
            diags.error(at, "character '" + (char) bad + "' is not permitted in 'peers' name '" + name + "'.");
            return null;
        }
        Builder prev = all.stream().filter(x -> x.name.equals(name)).findFirst().orElse(null);
        if (prev != null) {
            diags.error(at, "peers section '" + name + "' has the same name as another peers section declared at "
                    + prev.where.file() + ":" + prev.where.line() + ".");
        }
        Builder b = new Builder(at, name, localName);
        all.add(b);
        return b;
    }

    /** One line of a peers section. {@code proxies} finds a proxy already read by name (for table name conflicts). */
    static void line(Builder b, SourceRef at, List<String> w, List<ProxyBuilder> proxies, Diagnostics diags) {
        String kw = w.get(0);
        List<String> args = w.subList(1, w.size());
        switch (kw) {
            case "bind", "default-bind" -> bind(b, at, kw, args, diags);
            case "default-server" -> b.defaultServer = List.copyOf(args);
            case "log" -> b.logs.add(String.join(" ", args));
            case "peer", "server" -> peer(b, at, kw, args, diags);
            case "table" -> table(b, at, args, proxies, diags);
            case "disabled" -> b.disabled = true;
            case "enabled" -> b.disabled = false;
            case "shards" -> {
                int n = -1;
                try {
                    n = args.size() == 1 ? Integer.parseInt(args.get(0)) : -1;
                } catch (NumberFormatException e) {
                    n = -1;
                }
                if (n < 1) {
                    diags.error(at, "'shards' expects a strictly positive integer argument.");
                } else {
                    b.shards = n;
                    diags.notice(at, "'shards' : HAProxy 2.6 does not know this keyword (it came with HAProxy 2.9); Sluice shows it"
                            + " and still sends every entry to every peer.");
                }
            }
            default -> diags.error(at, "unknown keyword '" + kw + "' in 'peers' section");
        }
    }

    private static void bind(Builder b, SourceRef at, String kw, List<String> args, Diagnostics diags) {
        if (kw.equals("default-bind")) {
            b.defaultBind = List.copyOf(args);
            return;
        }
        if (b.peerLine) {
            diags.error(at, "mixing \"peer\" and \"bind\" line is forbidden");
            return;
        }
        if (b.bind != null) {
            diags.error(at, "One listener per \"peers\" section is authorized but another is already configured at ["
                    + b.bindWhere.file() + ":" + b.bindWhere.line() + "].");
        }
        String addr = args.isEmpty() ? "" : args.get(0);
        ListenAddress a;
        try {
            a = Addresses.networkListen(addr);
        } catch (IllegalArgumentException e) {
            diags.error(at, "'bind " + addr + "' : " + e.getMessage() + ".");
            return;
        }
        List<String> opts = new ArrayList<>(b.defaultBind);
        opts.addAll(args.subList(1, args.size()));
        if (opts.contains("ssl") && optionValue(opts, "crt") == null) {
            diags.error((SourceRef) null, "Proxy '" + b.localName + "': no SSL certificate specified for bind '" + addr + "' at ["
                    + at.file() + ":" + at.line() + "] (use 'crt').");
            return;
        }
        b.bindLine = true;
        b.bind = a;
        b.bindWhere = at;
        b.bindOptions = List.copyOf(args.subList(1, args.size()));
        if (!b.hasLocal()) {
            b.unnamedLocal = true;
            b.localWhere = at;
        }
    }

    private static void peer(Builder b, SourceRef at, String kw, List<String> args, Diagnostics diags) {
        boolean isPeer = kw.equals("peer");
        String name = args.isEmpty() ? "" : args.get(0);
        boolean local = name.equals(b.localName);
        if (isPeer) {
            if (b.bindLine) {
                diags.error(at, "mixing \"peer\" and \"bind\" line is forbidden");
                return;
            }
            b.peerLine = true;
        }
        if (name.isEmpty()) {
            // HAProxy 2.6 takes a nameless peer line without a word; it names no peer anyone could be
            return;
        }
        if (local && b.hasLocal() && !b.unnamedLocal) {
            diags.error(at, "'" + kw + " " + name + "' : local peer name already referenced at " + b.localWhere.file() + ":"
                    + b.localWhere.line() + ". " + b.localName);
            return;
        }
        String host = null;
        int port = 0;
        int opts = 1;
        if (isPeer || !local) {
            if (args.size() > 1) {
                try {
                    Addresses.HostPort hp = Addresses.split(args.get(1), false);
                    host = hp.host();
                    port = hp.port();
                } catch (IllegalArgumentException e) {
                    diags.error(at, "'" + kw + " " + name + "' : " + e.getMessage() + ".");
                    return;
                }
                opts = 2;
            }
        }
        List<String> options = new ArrayList<>(b.defaultServer);
        options.addAll(args.subList(Math.min(opts, args.size()), args.size()));
        if (options.contains("ssl") && !"none".equals(optionValue(options, "verify")) && optionValue(options, "ca-file") == null) {
            diags.error((SourceRef) null, "verify is enabled by default but no CA file specified. If you're running on a"
                    + " LAN where you're certain to trust the server's certificate, please set an explicit 'verify none' statement on"
                    + " the 'server' line, or use 'ssl-server-verify none' in the global section to disable server-side verifications"
                    + " by default.");
            return;
        }
        if (options.contains("check") || options.contains("init-addr") || options.contains("resolvers") || options.contains("agent-check")) {
            diags.warning(at, "'" + kw + " " + name + "' : init_addr, resolvers, check and agent are ignored for peers.");
        }
        if (local && b.unnamedLocal) {
            b.unnamedLocal = false;
        } else if (local) {
            b.localWhere = at;
        }
        if (local && isPeer) {
            if (b.bind != null) {
                diags.error(at, "One listener per \"peers\" section is authorized but another is already configured at ["
                        + b.bindWhere.file() + ":" + b.bindWhere.line() + "].");
            }
            String addr = args.size() > 1 ? args.get(1) : "";
            try {
                b.bind = Addresses.networkListen(addr);
                b.bindWhere = at;
            } catch (IllegalArgumentException e) {
                diags.error(at, "'" + kw + " " + name + "' : " + e.getMessage() + ".");
                return;
            }
        }
        if (local && !isPeer && b.bind instanceof ListenAddress.Inet in) {
            host = in.host();
            port = in.port();
        }
        b.peers.add(new Peers.Peer(at, name, host, port, local, options));
    }

    private static void table(Builder b, SourceRef at, List<String> args, List<ProxyBuilder> proxies, Diagnostics diags) {
        String name = args.isEmpty() ? "" : args.get(0);
        ProxyBuilder other = proxies.stream().filter(p -> name.equals(p.name) && p.section != Section.DEFAULTS).findFirst().orElse(null);
        if (other != null) {
            String cap = other.section == Section.FRONTEND ? "frontend" : other.section == Section.BACKEND ? "backend" : "proxy";
            diags.error(at, "stick-table name '" + name + "' conflicts with table declared in " + cap + " '" + name + "' at "
                    + other.where.file() + ":" + other.where.line() + ".");
            return;
        }
        String full = b.name + "/" + name;
        b.tables.add(new Peers.PeersTable(at, name, full, new StickTableDecl(at, args.subList(Math.min(1, args.size()), args.size()))));
    }

    /**
     * Once everything is read: the incomplete sections are dropped with HAProxy's warning (their tables stay, without
     * replication), and every {@code stick-table ... peers <name>} must name a section.
     */
    static List<Peers> finish(List<Builder> builders, List<Proxy> proxies, int maxUpdates, String crtBase, String caBase,
            Diagnostics diags) {
        List<Peers> out = new ArrayList<>();
        for (Builder b : builders) {
            Peers p = b.build(maxUpdates, crtBase, caBase);
            if (!p.disabled() && p.bindOptions().contains("ssl") && p.bindCertificate() == null && p.bindWhere() != null) {
                diags.error((SourceRef) null, "Proxy '" + p.localName() + "': no SSL certificate specified for bind '" + p.bind() + "' at ["
                        + p.bindWhere().file() + ":" + p.bindWhere().line() + "] (use 'crt').");
            }
            if (!p.disabled() && p.local() == null) {
                diags.warning((SourceRef) null, "Removing incomplete section 'peers " + p.name() + "' (no peer named '" + p.localName()
                        + "').");
            }
            out.add(p);
        }
        for (Proxy px : proxies) {
            String ref = peersOf(px.stickTable());
            if (ref != null && out.stream().noneMatch(p -> p.name().equals(ref))) {
                diags.error((SourceRef) null, "Proxy '" + px.name() + "': unable to find sync peers '" + ref + "'.");
            }
        }
        return out;
    }

    /** The peers section a {@code stick-table} line names, or null. */
    static String peersOf(StickTableDecl decl) {
        if (decl == null) {
            return null;
        }
        List<String> a = decl.args();
        for (int i = 0; i + 1 < a.size(); i++) {
            if (a.get(i).equals("peers")) {
                return a.get(i + 1);
            }
            if (a.get(i).equals("store") || a.get(i).equals("type") || a.get(i).equals("size") || a.get(i).equals("expire")
                    || a.get(i).equals("len") || a.get(i).equals("srvkey")) {
                i++;
            }
        }
        return null;
    }
}

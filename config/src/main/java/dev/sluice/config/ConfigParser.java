package dev.sluice.config;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.Cache;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ServerStateFiles;
import dev.sluice.config.model.ProxyKind;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.StatsPage;
import dev.sluice.config.model.Timeouts;
import dev.sluice.config.model.UseBackend;
import dev.sluice.config.model.Userlist;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Turns configuration text into diagnostics and, when there is no error, an immutable {@link Config}.
 * Parsing never stops at the first problem: every line is read and every semantic check runs, so one
 * run reports everything. Not thread-safe; use one instance per parse.
 */
public final class ConfigParser {

    /**
     * The HAProxy release whose language Sluice speaks and whose behaviour it is compared with, for
     * {@code .if version_atleast(...)}, {@code -cc} and {@code -vv}.
     */
    public static final String HAPROXY_LANGUAGE_VERSION = "2.6.12";

    /**
     * What the parse may consult outside the text: environment variables, the build features that
     * {@code .if feature(...)} tests, the emulated HAProxy version, and the TLS library's name and OpenSSL-compatible
     * version for {@code ssllib_name_startswith()} and {@code openssl_version_*()} (null when unknown), and the directory the
     * configuration's relative paths start from ({@code -C}; null: the working directory).
     */
    public record Settings(Function<String, String> env, Set<String> features, String version, String sslLibrary, String sslVersion,
            String directory, String localPeer) {
        public Settings(Function<String, String> env, Set<String> features, String version, String sslLibrary, String sslVersion,
                String directory) {
            this(env, features, version, sslLibrary, sslVersion, directory, null);
        }

        /** The same, with the local peer's name from {@code -L} (null: the global {@code localpeer}, else the host name). */
        public Settings withLocalPeer(String name) {
            return new Settings(env, features, version, sslLibrary, sslVersion, directory, name);
        }

        public Settings(Function<String, String> env, Set<String> features, String version) {
            this(env, features, version, null, null);
        }

        public Settings(Function<String, String> env, Set<String> features, String version, String sslLibrary, String sslVersion) {
            this(env, features, version, sslLibrary, sslVersion, null);
        }

        /** The same, relative paths starting from {@code dir} ({@code -C}; null: the working directory). */
        public Settings inDirectory(String dir) {
            return new Settings(env, features, version, sslLibrary, sslVersion, dir, localPeer);
        }

        public static Settings fromSystem(Set<String> features) {
            return fromSystem(features, null, null);
        }

        public static Settings fromSystem(Set<String> features, String sslLibrary, String sslVersion) {
            return new Settings(System::getenv, features, HAPROXY_LANGUAGE_VERSION, sslLibrary, sslVersion);
        }

        /** What {@link Conditions} consults. */
        public Conditions.Context conditions() {
            return conditions(env);
        }

        /** The same, reading the environment through {@code environment} (what the global section's setenv lines made of it). */
        Conditions.Context conditions(Function<String, String> environment) {
            return new Conditions.Context(environment, features, version, sslLibrary, sslVersion);
        }
    }

    /** One named configuration text (a file, usually). */
    public record Source(String name, String text) {
    }

    /** The outcome of a parse: the model (null when there are errors) and every diagnostic. */
    public record Result(Config config, List<Diagnostic> diagnostics) {
        public boolean ok() {
            return config != null;
        }
    }

    private final KeywordRegistry registry;
    private final Settings settings;
    private final LineLexer lexer;
    private final Diagnostics diags = new Diagnostics();

    private final GlobalBuilder global = new GlobalBuilder();
    /** Where relative paths start from: {@code default-path}. */
    private final ConfigPaths paths;
    private final List<ProxyBuilder> proxies = new ArrayList<>();
    private final Map<String, ProxyBuilder> namedDefaults = new HashMap<>();
    private ProxyBuilder lastDefaults;
    /** {@code http-errors} sections: name to pages by status. */
    private final Map<String, Map<Integer, byte[]>> httpErrors = new HashMap<>();
    private Map<Integer, byte[]> currentErrors;
    /** {@code userlist} sections in order; the one being parsed. */
    private final List<UserlistKeywords.Builder> userlists = new ArrayList<>();
    private UserlistKeywords.Builder currentUserlist;
    /** {@code cache} sections by name, in order; the one being parsed (null outside one, or after a bad header). */
    private final Map<String, CacheKeywords.Builder> caches = new LinkedHashMap<>();
    private final Map<String, Cache> builtCaches = new LinkedHashMap<>();
    private CacheKeywords.Builder currentCache;
    /** {@code fcgi-app} sections by name, in order; the one being parsed (null outside one). */
    private final Map<String, FcgiAppKeywords.Builder> fcgiApps = new LinkedHashMap<>();
    private FcgiAppKeywords.Builder currentFcgiApp;
    /** {@code resolvers} sections by name, in order; the one being parsed. */
    private final Map<String, ResolversKeywords.Builder> resolvers = new LinkedHashMap<>();
    private ResolversKeywords.Builder currentResolvers;
    /** {@code peers} sections in order; the one being parsed (null outside one, or after a bad header). */
    private final List<PeersKeywords.Builder> peers = new ArrayList<>();
    private PeersKeywords.Builder currentPeers;
    /** {@code ring} and {@code log-forward} sections by name, in order; the one being parsed. */
    private final Map<String, RingKeywords.RingBuilder> rings = new LinkedHashMap<>();
    private RingKeywords.RingBuilder currentRing;
    private final Map<String, RingKeywords.ForwardBuilder> logForwards = new LinkedHashMap<>();
    private RingKeywords.ForwardBuilder currentForward;
    /** {@code mailers} sections by name, in order; the one being parsed. */
    private final Map<String, MailersKeywords.Builder> mailers = new LinkedHashMap<>();
    private MailersKeywords.Builder currentMailers;
    /** {@code program} sections by name, in order; the one being parsed. */
    private final Map<String, ProgramKeywords.Builder> programs = new LinkedHashMap<>();
    private ProgramKeywords.Builder currentProgram;

    // current section
    private Section section;
    private ProxyBuilder current;
    /** Set while skipping the body of a section Sluice does not support (its header was reported). */
    private boolean skippingUnsupported;

    public ConfigParser(KeywordRegistry registry, Settings settings) {
        this.registry = registry;
        this.settings = settings;
        // the environment as the global section's setenv, presetenv, unsetenv and resetenv lines left it so far
        this.lexer = new LineLexer(this::getenv);
        this.paths = new ConfigPaths(settings.directory());
    }

    public Result parse(List<Source> sources) {
        for (Source s : sources) {
            parseSource(s);
        }
        Config config = null;
        List<Proxy> built = new ArrayList<>();
        Global g = global.build();
        Map<String, dev.sluice.config.model.FcgiApp> apps = FcgiAppKeywords.finish(fcgiApps, diags);
        for (ProxyBuilder p : proxies) {
            p.fcgiResolved = FcgiAppKeywords.resolve(p, apps, diags);
            LogKeywords.capCookieCapture(p, g.tune().cookieLen(), diags);
            TlsKeywords.resolve(p, global, diags);
            p.emailAlertResolved = MailersKeywords.resolve(p, mailers, diags);
            Proxy b = p.build(g);
            built.add(b);
            TcpCheckKeywords.afterBuild(p, b, diags);
            ExternalCheckKeywords.afterBuild(p, b, global, diags);
            DispatchKeywords.afterBuild(p, b, diags);
        }
        MailersKeywords.finish(mailers, diags);
        List<Userlist> lists = new ArrayList<>();
        for (UserlistKeywords.Builder u : userlists) {
            lists.add(u.build());
        }
        endCache();
        check(built);
        UserlistChecks.check(lists, built, diags);
        for (ProxyBuilder p : proxies) {
            CacheKeywords.check(p, builtCaches, diags);
        }
        var dns = ResolversKeywords.finish(resolvers, built, diags);
        List<dev.sluice.config.model.Peers> peerSections = PeersKeywords.finish(peers, built, global.peersMaxUpdates, global.crtBase,
                global.caBase, diags);
        List<dev.sluice.config.model.Ring> ringSections = new ArrayList<>();
        for (RingKeywords.RingBuilder r : rings.values()) {
            ringSections.add(r.build());
        }
        List<dev.sluice.config.model.LogForward> forwards = new ArrayList<>();
        for (RingKeywords.ForwardBuilder f : logForwards.values()) {
            forwards.add(f.build());
            RingKeywords.checkTargets(f.targets, rings.keySet(), diags);
        }
        RingKeywords.checkTargets(g.logs(), rings.keySet(), diags);
        for (ProxyBuilder p : proxies) {
            RingKeywords.checkTargets(p.logs, rings.keySet(), diags);
        }
        List<dev.sluice.config.model.Program> programList = ProgramKeywords.finish(programs, diags);
        if (!diags.hasErrors()) {
            config = new Config(g, built, lists, List.copyOf(builtCaches.values()), dns, peerSections, ringSections, forwards, programList);
        }
        return new Result(config, diags.list());
    }

    private void parseSource(Source src) {
        Preprocessor pp = new Preprocessor(diags, settings.conditions(this::getenv));
        paths.enterFile(src.name());
        String[] lines = src.text().split("\n", -1);
        // a file ends with LF; the empty string after the final LF is not a line
        int count = lines.length;
        if (count > 0 && lines[count - 1].isEmpty()) {
            count--;
        }
        section = null;
        current = null;
        skippingUnsupported = false;
        for (int i = 0; i < count; i++) {
            int lineNo = i + 1;
            String line = stripCr(lines[i]);
            // line continuation: a line ending in an unescaped backslash continues on the next
            while (endsWithContinuation(line) && i + 1 < count) {
                line = line.substring(0, line.length() - 1) + " " + stripCr(lines[++i]);
            }
            SourceRef at = new SourceRef(src.name(), lineNo);
            LineLexer.Result lexed = lexer.split(line);
            if (!lexed.ok()) {
                if (pp.active()) {
                    diags.error(at, "parsing error: " + lexed.error());
                }
                continue;
            }
            List<String> words = lexed.words();
            if (words.isEmpty()) {
                continue;
            }
            if (words.get(0).startsWith(".") && words.get(0).length() > 1 && Character.isLetter(words.get(0).charAt(1))) {
                pp.directive(at, words);
                continue;
            }
            if (!pp.active()) {
                continue;
            }
            line(at, words);
        }
        // a section ends with its file
        endCache();
        pp.finish();
    }

    /** An environment variable as the lines read so far left it (HAPROXY_LOCALPEER: -L, localpeer, the host name). */
    private String getenv(String name) {
        return name.equals("HAPROXY_LOCALPEER") ? PeersKeywords.localName(settings, global) : global.environment.get(settings.env(), name);
    }

    private static String stripCr(String s) {
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    private static boolean endsWithContinuation(String line) {
        int n = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            n++;
        }
        return n % 2 == 1;
    }

    private void line(SourceRef at, List<String> words) {
        String first = words.get(0);
        switch (first) {
            case "global" -> {
                startSection(Section.GLOBAL, null);
                if (words.size() > 1) {
                    diags.error(at, "'global' takes no argument (got '" + words.get(1) + "').");
                }
                return;
            }
            case "defaults", "frontend", "backend", "listen" -> {
                proxyHeader(at, words);
                return;
            }
            case "http-errors" -> {
                if (words.size() != 2) {
                    diags.error(at, "'http-errors' expects a name.");
                }
                String name = words.size() > 1 ? words.get(1) : "<unnamed>";
                if (httpErrors.containsKey(name)) {
                    diags.error(at, "http-errors section '" + name + "' is already defined.");
                }
                currentErrors = new HashMap<>();
                httpErrors.put(name, currentErrors);
                startSection(Section.HTTP_ERRORS, null);
                return;
            }
            case "userlist" -> {
                userlistHeader(at, words);
                return;
            }
            case "resolvers" -> {
                currentResolvers = ResolversKeywords.header(at, words, resolvers, diags);
                startSection(Section.RESOLVERS, null);
                // as HAProxy: the lines of a section whose header failed are not read
                skippingUnsupported = currentResolvers == null;
                if (currentResolvers != null) {
                    resolvers.put(currentResolvers.name, currentResolvers);
                }
                return;
            }
            case "fcgi-app" -> {
                FcgiAppKeywords.Builder b = FcgiAppKeywords.header(at, words, fcgiApps, diags);
                startSection(Section.FCGI_APP, null);
                // as HAProxy: the lines of a section whose header failed are not read
                skippingUnsupported = b == null;
                if (b != null) {
                    currentFcgiApp = b;
                    fcgiApps.put(b.name, b);
                }
                return;
            }
            case "cache" -> {
                CacheKeywords.Builder b = CacheKeywords.header(at, words, caches, diags);
                startSection(Section.CACHE, null);
                if (b == null) {
                    // as HAProxy: the lines of a section whose header failed are not read
                    skippingUnsupported = true;
                } else {
                    currentCache = b;
                    caches.put(b.name, b);
                }
                return;
            }
            case "peers" -> {
                peersHeader(at, words);
                return;
            }
            case "ring" -> {
                RingKeywords.RingBuilder b = RingKeywords.ringHeader(at, words, rings, diags);
                startSection(Section.RING, null);
                currentRing = b;
                skippingUnsupported = b == null;
                return;
            }
            case "mailers" -> {
                currentMailers = MailersKeywords.header(at, words, mailers, diags);
                startSection(Section.MAILERS, null);
                // as HAProxy: a bad header aborts the reading of the section
                skippingUnsupported = currentMailers == null;
                return;
            }
            case "program" -> {
                currentProgram = ProgramKeywords.header(at, words, programs, diags);
                startSection(Section.PROGRAM, null);
                // as HAProxy: a bad header aborts the reading of the section
                skippingUnsupported = currentProgram == null;
                return;
            }
            case "log-forward" -> {
                RingKeywords.ForwardBuilder b = RingKeywords.forwardHeader(at, words, logForwards, diags);
                startSection(Section.LOG_FORWARD, null);
                currentForward = b;
                skippingUnsupported = b == null;
                return;
            }
            default -> {
            }
        }
        String unsupportedSection = Unsupported.SECTIONS.get(first);
        if (unsupportedSection != null) {
            diags.error(at, "section '" + first + "' is not supported by Sluice yet: " + unsupportedSection + ".");
            startSection(null, null);
            skippingUnsupported = true;
            return;
        }
        if (skippingUnsupported) {
            return;
        }
        if (section == null) {
            diags.error(at, "unknown keyword '" + first + "' out of section.");
            return;
        }
        if (section == Section.PEERS) {
            PeersKeywords.line(currentPeers, at, words, proxies, diags);
            return;
        }
        if (section == Section.PROGRAM) {
            ProgramKeywords.line(currentProgram, at, words, diags);
            return;
        }
        if (section == Section.MAILERS) {
            MailersKeywords.line(currentMailers, at, words, diags);
            return;
        }
        if (section == Section.RING) {
            RingKeywords.ringLine(currentRing, at, words, diags);
            return;
        }
        if (section == Section.LOG_FORWARD && !first.equals("log")) {
            RingKeywords.forwardLine(currentForward, at, words, diags);
            return;
        }
        keyword(at, words);
    }

    private void peersHeader(SourceRef at, List<String> words) {
        global.peersSeen = true;
        currentPeers = PeersKeywords.header(at, words, peers, PeersKeywords.localName(settings, global), diags);
        if (currentPeers != null) {
            currentPeers.directory = paths.directory();
        }
        startSection(Section.PEERS, null);
        skippingUnsupported = currentPeers == null; // as HAProxy: a bad header aborts the reading of the section
    }

    private void userlistHeader(SourceRef at, List<String> words) {
        if (words.size() != 2) {
            diags.error(at, words.size() < 2 ? "'userlist' expects a name." : "'userlist " + words.get(1) + "' : unexpected argument '"
                    + words.get(2) + "'.");
        }
        String name = words.size() > 1 ? words.get(1) : "<unnamed>";
        currentUserlist = new UserlistKeywords.Builder(at, name);
        boolean duplicate = false;
        for (UserlistKeywords.Builder u : userlists) {
            duplicate |= u.name.equals(name);
        }
        if (duplicate) {
            // as HAProxy: the lines of a second section of the same name are read and dropped
            diags.warning(at, "ignoring duplicated userlist '" + name + "'.");
        } else {
            userlists.add(currentUserlist);
        }
        startSection(Section.USERLIST, null);
    }

    private void startSection(Section s, ProxyBuilder p) {
        endCache();
        currentFcgiApp = null;
        section = s;
        current = p;
        skippingUnsupported = false;
    }

    /** The cache section being parsed ends: its cache, when it has what it needs. */
    private void endCache() {
        if (currentCache != null) {
            Cache c = CacheKeywords.end(currentCache, diags);
            if (c != null) {
                builtCaches.put(c.name(), c);
            }
            currentCache = null;
        }
    }

    private void proxyHeader(SourceRef at, List<String> words) {
        String kw = words.get(0);
        Section s = Section.valueOf(kw.toUpperCase(Locale.ROOT));
        String name = null;
        String from = null;
        int i = 1;
        if (i < words.size() && !words.get(i).equals("from")) {
            name = words.get(i++);
        }
        if (i < words.size() && words.get(i).equals("from")) {
            if (i + 1 >= words.size()) {
                diags.error(at, "'" + kw + "' : 'from' expects the name of a defaults section.");
            } else {
                from = words.get(i + 1);
            }
            i += 2;
        }
        if (i < words.size()) {
            String extra = words.get(i);
            diags.error(at, "'" + kw + (name != null ? " " + name : "") + "' : unexpected argument '" + extra + "'"
                    + (extra.indexOf(':') >= 0 ? " (an address on the section line is not supported: use 'bind " + extra + "')" : "") + ".");
        }
        if (s != Section.DEFAULTS && name == null) {
            diags.error(at, "'" + kw + "' expects a name.");
            name = "<unnamed>";
        } else if (name != null && !ProxyKeywords.validName(name)) {
            diags.error(at, "'" + kw + "' : invalid character in name '" + name + "'.");
        }
        ProxyBuilder p = new ProxyBuilder(s, name, at);
        p.directory = paths.directory();
        // as in HAProxy, only proxies inherit the last defaults section; a defaults section starts afresh
        ProxyBuilder base = s == Section.DEFAULTS ? null : lastDefaults;
        if (from != null) {
            base = namedDefaults.get(from);
            if (base == null) {
                diags.error(at, "'" + kw + "' : defaults section '" + from + "' not found" + (namedDefaults.isEmpty() ? "" : Suggestions.didYouMean(
                        Suggestions.closest(from, namedDefaults.keySet()))) + ".");
            }
        }
        if (base != null) {
            p.inherit(base);
            TcpRuleKeywords.useDefaults(p, base, at, diags);
        }
        if (s == Section.DEFAULTS) {
            lastDefaults = p;
            if (name != null) {
                namedDefaults.put(name, p);
            }
        } else {
            proxies.add(p);
        }
        startSection(s, p);
    }

    private void keyword(SourceRef at, List<String> words) {
        boolean negated = false;
        List<String> w = words;
        if ((w.get(0).equals("no") || w.get(0).equals("default")) && w.size() > 1 && (w.get(1).equals("option") || w.get(1).equals("log"))) {
            negated = w.get(0).equals("no");
            w = w.subList(1, w.size());
            if (!negated) {
                diags.error(at, "'default option' is not supported by Sluice.");
                return;
            }
        }
        if ((w.get(0).equals("no") || w.get(0).equals("default")) && section == Section.GLOBAL && w.size() > 1) {
            // as HAProxy 2.6: a few global keywords take "no"
            if (!CpuKeywords.NEGATABLE.contains(w.get(1))) {
                diags.error(at, CpuKeywords.NOT_NEGATABLE);
                return;
            }
            negated = w.get(0).equals("no");
            w = negated ? w.subList(1, w.size()) : w;
        }
        String first = w.get(0);
        String second = w.size() > 1 ? w.get(1) : null;
        Keyword k = registry.lookup(first, second);
        if (k == null) {
            unknownKeyword(at, w);
            return;
        }
        if (!k.sections().contains(section)) {
            String feature = Unsupported.KEYWORDS.get(k.name());
            if (feature != null) {
                // 'user' and 'group' of the global section are not those of a userlist
                diags.error(at, "'" + k.name() + "' is not supported by Sluice yet: " + feature + ".");
                return;
            }
            diags.error(at, "'" + k.name() + "' is not allowed in '" + section.keyword() + "' section (allowed in: "
                    + String.join(", ", k.sections().stream().map(Section::keyword).toList()) + ").");
            return;
        }
        int kwWords = k.name().indexOf(' ') < 0 ? 1 : 2;
        KeywordContext ctx = new KeywordContext(at, w, kwWords, negated, section, current, global, diags, settings, paths);
        ctx.httpErrors(httpErrors, currentErrors);
        ctx.userlist(currentUserlist);
        ctx.cache(currentCache);
        ctx.fcgiApp(currentFcgiApp);
        ctx.resolvers(currentResolvers);
        ctx.logForward(currentForward);
        k.parser().parse(ctx);
    }

    private void unknownKeyword(SourceRef at, List<String> w) {
        String first = w.get(0);
        String second = w.size() > 1 ? KeywordRegistry.stripParens(w.get(1)) : null;
        if ((first.equals("tcp-request") || first.equals("tcp-response")) && current != null) {
            diags.error(at, TcpRuleKeywords.unknownRuleset(first, w.size() > 1 ? w.get(1) : null, section, current));
            return;
        }
        String feature = second != null ? Unsupported.KEYWORDS.get(first + " " + second) : null;
        if (feature == null && !(registry.isFamily(first) && second != null && Unsupported.KEYWORDS.get(first) == null)) {
            feature = Unsupported.KEYWORDS.get(first);
        }
        if (feature != null) {
            String kw = second != null && Unsupported.KEYWORDS.containsKey(first + " " + second) ? first + " " + second : first;
            diags.error(at, "'" + kw + "' is not supported by Sluice yet: " + feature + ".");
            return;
        }
        if (registry.isFamily(first)) {
            String member = registry.familyMember(first);
            List<String> known = registry.familyMembers(first, section);
            if (first.equals("tcp-check")) {
                diags.error(at, TcpCheckKeywords.unknownRule(second == null ? null : w.get(1)));
            } else if (second == null) {
                diags.error(at, "'" + first + "' expects a " + member + " (one of: " + String.join(", ", known) + ").");
            } else if (first.equals("http-after-response")) {
                // HAProxy 2.6's wording and order: this rule set has far fewer actions than the other two (no deny, return,
                // redirect); the variable actions come last
                List<String> vars = List.of("set-var-fmt", "set-var", "unset-var");
                List<String> quoted = new ArrayList<>();
                for (String k : new TreeSet<>(known)) {
                    if (!vars.contains(k)) {
                        quoted.add("'" + k + "'");
                    }
                }
                for (String k : vars) {
                    if (known.contains(k)) {
                        quoted.add("'" + k + "(*)'");
                    }
                }
                diags.error(at, "'" + first + "' expects " + String.join(", ", quoted) + ", but got '" + w.get(1) + "'."
                        + Suggestions.didYouMean(Suggestions.closest(second, known)));
            } else {
                diags.error(at, "unknown " + member + " '" + second + "' in '" + section.keyword() + "' section"
                        + Suggestions.didYouMean(Suggestions.closest(second, known)));
            }
            return;
        }
        diags.error(at, "unknown keyword '" + first + "' in '" + section.keyword() + "' section"
                + Suggestions.didYouMean(Suggestions.closest(first, registry.namesIn(section))));
    }

    /** Layers the global TLS defaults under each bind and server line and freezes the result. */
    // ---------------------------------------------------------------- semantic checks

    private void check(List<Proxy> built) {
        Map<String, Proxy> frontends = new LinkedHashMap<>();
        Map<String, Proxy> backends = new LinkedHashMap<>();
        for (Proxy p : built) {
            StatsPage st = p.stats();
            if (!st.rules().isEmpty() && (!st.auth().isEmpty() || !st.realm().equals(StatsPage.DEFAULT_REALM))) {
                // HAProxy 2.6 refuses the mix: the rules would have to decide where the implicit auth rule goes
                diags.error(p.where(), "proxy '" + p.name() + "': stats 'auth'/'realm' and 'http-request' can't be used at the same time.");
            }
            if (p.kind().hasFrontend()) {
                Proxy prev = frontends.putIfAbsent(p.name(), p);
                if (prev != null) {
                    diags.error(p.where(), "proxy name '" + p.name() + "' is already used by " + prev.kind().keyword() + " at " + prev.where()
                            + ".");
                    continue;
                }
            }
            if (p.kind().hasBackend()) {
                Proxy prev = backends.putIfAbsent(p.name(), p);
                if (prev != null) {
                    diags.error(p.where(), "proxy name '" + p.name() + "' is already used by " + prev.kind().keyword() + " at " + prev.where()
                            + ".");
                }
            }
        }
        for (ProxyBuilder pb : proxies) {
            if (pb.kind() == ProxyKind.BACKEND && !pb.binds.isEmpty()) {
                diags.error(pb.binds.get(0).where(), "'bind' is not allowed in backend '" + pb.name
                        + "': a backend has no frontend capability (use 'frontend' or 'listen').");
            }
            if (pb.kind() == ProxyKind.FRONTEND) {
                // HAProxy keeps a frontend's use-server rules (ignored, with a warning) and finds no server for them
                for (var u : pb.useServers) {
                    if (!u.isDynamic()) {
                        diags.error(u.where(), "frontend '" + pb.name + "' : unable to find server '" + u.server()
                                + "' referenced in a 'use-server' rule.");
                    }
                }
            }
        }
        for (Proxy p : built) {
            checkProxy(p, backends);
        }
        ModeChecks.check(proxies, built, backends, diags);
    }

    private void checkProxy(Proxy p, Map<String, Proxy> backends) {
        String what = p.kind().keyword() + " '" + p.name() + "'";
        if (p.options().serverState().from() == ServerStateFiles.From.GLOBAL && global.serverStateFile == null) {
            diags.warning(p.where(), "backend '" + p.name() + "' configured to load server state file from global section 'server-state-file'"
                    + " directive. Unfortunately, 'server-state-file' is not set!");
        }
        if (p.kind().hasFrontend()) {
            if (p.binds().isEmpty()) {
                diags.error(p.where(), what + " has no 'bind' directive. Please declare it as a backend if this was intended.");
            }
            if (p.http().h3AltSvcMaxAge() >= 0 && p.binds().stream().noneMatch(Bind::isQuic)) {
                diags.warning(p.where(), what + " : 'option h3-alt-svc' has no effect: the frontend has no QUIC bind (quic4@ or quic6@) to advertise.");
            }
            for (UseBackend u : p.useBackends()) {
                if (!u.isDynamic() && !backends.containsKey(u.backend())) {
                    diags.error(u.where(), "Proxy '" + p.name() + "': unable to find required use_backend: '" + u.backend() + "'"
                            + Suggestions.didYouMean(Suggestions.closest(u.backend(), backends.keySet())) + ".");
                }
            }
            if (p.defaultBackend() != null) {
                Proxy be = backends.get(p.defaultBackend());
                SourceRef where = findDefaultBackendWhere(p);
                if (be == null) {
                    diags.error(where, "Proxy '" + p.name() + "': unable to find required default_backend: '" + p.defaultBackend() + "'"
                            + Suggestions.didYouMean(Suggestions.closest(p.defaultBackend(), backends.keySet())) + ".");
                } else if (be.name().equals(p.name()) && p.kind() == ProxyKind.LISTEN) {
                    diags.error(where, "Proxy '" + p.name() + "': default_backend cannot point to itself.");
                }
            }
        }
        if (p.kind().hasBackend()) {
            Set<String> names = new HashSet<>();
            for (Server s : p.servers()) {
                if (!names.add(s.name())) {
                    diags.error(s.where(), "'server " + p.name() + "/" + s.name() + "' : server name '" + s.name() + "' is already used in "
                            + p.kind().keyword() + " '" + p.name() + "'.");
                }
            }
            for (var u : p.useServers()) {
                if (!u.isDynamic() && !names.contains(u.server())) {
                    // proxy_type_str: a listen section is a "proxy"
                    diags.error(u.where(), (p.kind() == ProxyKind.LISTEN ? "proxy" : "backend") + " '" + p.name()
                            + "' : unable to find server '" + u.server() + "' referenced in a 'use-server' rule.");
                }
            }
        }
        checkAcls(p);
        List<String> missing = new ArrayList<>();
        Timeouts t = p.timeouts();
        if (p.kind().hasFrontend() && t.client() <= 0) {
            missing.add("'client'");
        }
        if (p.kind().hasBackend() && t.connect() <= 0) {
            missing.add("'connect'");
        }
        if (p.kind().hasBackend() && t.server() <= 0) {
            missing.add("'server'");
        }
        if (!missing.isEmpty()) {
            diags.warning(p.where(), "missing timeouts for " + what + ". While not properly invalid, you will certainly encounter"
                    + " various problems with such a configuration. To fix this, please ensure that all following timeouts are set"
                    + " to a non-zero value: " + String.join(", ", missing) + ".");
        }
    }

    private SourceRef findDefaultBackendWhere(Proxy p) {
        for (ProxyBuilder pb : proxies) {
            if (pb.name.equals(p.name()) && pb.section.name().equals(p.kind().name())) {
                return pb.defaultBackendWhere != null ? pb.defaultBackendWhere : p.where();
            }
        }
        return p.where();
    }

    private void checkAcls(Proxy p) {
        Set<String> declared = new HashSet<>();
        for (Acl a : p.acls()) {
            declared.add(a.name());
        }
        for (UseBackend u : p.useBackends()) {
            checkCondition(u.where(), "switching rule", u.condition(), declared);
        }
        for (var u : p.useServers()) {
            checkCondition(u.where(), "switching rule", u.condition(), declared);
        }
        for (var r : p.httpRequestRules()) {
            checkCondition(r.where(), "'http-request' rule", r.condition(), declared);
        }
        for (var r : p.httpResponseRules()) {
            checkCondition(r.where(), "'http-response' rule", r.condition(), declared);
        }
        for (var r : p.httpAfterResponseRules()) {
            checkCondition(r.where(), "'http-after-response' rule", r.condition(), declared);
        }
        for (Condition c : p.monitor().fail()) {
            checkCondition(p.where(), "'monitor fail' condition", c, declared);
        }
    }

    private void checkCondition(SourceRef at, String what, Condition c, Set<String> declared) {
        if (c == null) {
            return;
        }
        for (List<Condition.Term> and : c.alternatives()) {
            for (Condition.Term t : and) {
                if (t.aclName() != null && !declared.contains(t.aclName()) && !Predefined.ACLS.contains(t.aclName())) {
                    diags.error(at, "error detected while parsing " + what + " : no such ACL : '" + t.aclName() + "'"
                            + Suggestions.didYouMean(Suggestions.closest(t.aclName(), declared)) + ".");
                }
            }
        }
    }
}

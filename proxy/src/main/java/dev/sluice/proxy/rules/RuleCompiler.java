package dev.sluice.proxy.rules;

import dev.sluice.config.Suggestions;
import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Condition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compiles the rule language of one proxy: sample expressions, ACLs (named ones ORed by name, the
 * predefined ones, anonymous ones) and conditions. Every problem is an {@link IllegalArgumentException}
 * with HAProxy-like wording, which the runtime reports with the line it comes from.
 */
public final class RuleCompiler {
    private final Map<String, List<AclExpr>> named;
    private final Map<String, Acl[]> compiled = new HashMap<>();
    /** Whether the proxy is a TCP one: its predefined ACLs read the held content ({@code REQ_CONTENT} is {@code req.len gt 0}). */
    private final boolean tcp;

    /** @param named the proxy's named ACL lines (a name may have several lines) */
    public RuleCompiler(Map<String, List<AclExpr>> named) {
        this(named, false);
    }

    /** @param tcp whether the proxy is in {@code mode tcp} */
    public RuleCompiler(Map<String, List<AclExpr>> named, boolean tcp) {
        this.named = named;
        this.tcp = tcp;
    }

    /** Set while the rules of a TCP proxy compile: its HTTP fetches read a request that may not be there (yet). */
    private static final ThreadLocal<Boolean> TCP_PROXY = new ThreadLocal<>();

    /**
     * Runs {@code body} compiling the rules of a TCP proxy ({@code tcp}) or an HTTP one. In a TCP proxy an HTTP fetch has
     * no sample without a request head (a layer-4 stream's target parses one from the bytes it holds, as HAProxy does,
     * and reports "may change" while it is incomplete), and its ACLs may miss during content inspection.
     */
    static <T> T forMode(boolean tcp, java.util.function.Supplier<T> body) {
        Boolean was = TCP_PROXY.get();
        TCP_PROXY.set(tcp);
        try {
            return body.get();
        } finally {
            if (was == null) {
                TCP_PROXY.remove();
            } else {
                TCP_PROXY.set(was);
            }
        }
    }

    private static boolean tcpProxy() {
        return Boolean.TRUE.equals(TCP_PROXY.get());
    }

    /** Where rules run: what they can read. */
    public enum Phase {
        /** tcp-request connection rules: no HTTP message yet. */
        CONNECTION, REQUEST, RESPONSE,
        /** log-format: the messages are gone; what was captured, the connection and the variables remain. */
        LOG
    }

    /** Fetches of what the exchange kept (captures, its unique id, whether it came first): every HTTP phase, logs included. */
    private static final Set<String> KEPT = Set.of("capture.req.hdr", "capture.res.hdr", "capture.req.method",
            "capture.req.uri", "capture.req.ver", "capture.res.ver", "unique-id", "http_first_req");

    /** Fetches that read neither message: usable in every phase. */
    private static final Set<String> ANY_PHASE = Set.of("src", "src_port", "dst", "dst_port", "ssl_fc", "ssl_fc_sni",
            "ssl_fc_has_sni", "ssl_fc_alpn", "ssl_fc_protocol", "ssl_fc_cipher", "ssl_fc_is_resumed", "fc_rcvd_proxy", "fc_pp_authority", "fc_pp_unique_id", "var", "str", "int", "bool", "always_true", "always_false", "env", "fe_name", "be_name",
            "wait_end");

    /** Sample fetches that read the message of the current phase ({@code hdr} is {@code res.hdr} in responses). */
    private static final Set<String> CONTEXTUAL = Set.of("hdr", "hdr_cnt", "hdr_val", "hdr_ip", "cookie");

    /** The phase whose message fetch {@code name} reads, or null. */
    static Phase needs(String name) {
        Fetches.Def d = Fetches.get(name);
        if (d == null || ANY_PHASE.contains(name) || StickFetches.isStickSample(name) || FetchesState.anyPhase(name)
                || FetchesConnection.anyPhase(name) || TlsFetches.clientSide(name)) {
            return null;
        }
        return d.response() || TlsFetches.serverSide(name) ? Phase.RESPONSE : Phase.REQUEST;
    }

    /**
     * Checks that sample expression {@code text} can be evaluated in {@code phase}; throws with
     * HAProxy's wording when it cannot.
     */
    public static void checkPhase(String text, Phase phase) {
        String name = SampleArgs.parse(text).get(0).name();
        Phase n = needs(name);
        if (n == null || n == phase || phase == Phase.RESPONSE && CONTEXTUAL.contains(name)
                || phase != Phase.CONNECTION && KEPT.contains(name) || phase == Phase.LOG && loggedAfterResponse(name)) {
            return;
        }
        String what = n == Phase.REQUEST ? "HTTP request headers" : name.startsWith("srv_") ? "server" : permanentResponse(name) ? "HTTP response"
                : TlsFetches.serverSide(name) ? "server-side connection" : "HTTP response headers";
        throw new IllegalArgumentException("sample fetch '" + name + "' may not be reliably used here because it needs '" + what
                + "' which is not available here");
    }

    /**
     * The response-side fetches a log line may read, as HAProxy 2.6 allows them at the end of a stream: the server and its
     * connection ({@code srv_id}, {@code bc_*}, the server-side TLS), {@code status} (see {@link #sample(String, Phase)}) and
     * {@code res.comp}/{@code res.comp_algo};
     * not the response's headers, which are gone by then.
     */
    private static boolean loggedAfterResponse(String name) {
        return name.equals("srv_id") || name.equals("srv_name") || permanentResponse(name) || name.startsWith("bc_") || TlsFetches.serverSide(name);
    }

    /** HAProxy's SMP_USE_HRSHP fetches ("HTTP response", kept to the end of the stream, unlike the headers' values). */
    private static boolean permanentResponse(String name) {
        return name.equals("status") || name.equals("res.comp") || name.equals("res.comp_algo");
    }

    private static final String[] SUFFIXES = {"beg", "end", "sub", "reg", "dir", "dom", "len", "found", "ip", "val", "cnt", "int", "str"};

    /** Compiles {@code fetch(args),conv(args)...}. */
    public static SampleExpr sample(String text) {
        return sample(text, null);
    }

    /**
     * Compiles {@code fetch(args),conv(args)...} for {@code phase} (null: any). In a log line ({@link Phase#LOG})
     * {@code status} gives no sample: HAProxy 2.6 accepts it there and reads the response's start line from the buffer,
     * which a response forwarded whole has left by then (a keep-alive server's, the proxy's own answers). Only a
     * response it still holds when it logs (an HTTP/1.0 server's closing one) shows a status; use {@code %ST}.
     */
    public static SampleExpr sample(String text, Phase phase) {
        List<SampleArgs.Call> calls = SampleArgs.parse(text);
        SampleArgs.Call f = calls.get(0);
        Fetches.Def def = Fetches.get(f.name());
        if (def == null) {
            String missing = Fetches.MISSING.get(f.name());
            throw new IllegalArgumentException(missing != null ? "fetch method '" + f.name() + "' is not supported by Sluice yet: " + missing
                    : "unknown fetch method '" + f.name() + "'" + suggest(f.name(), Fetches.names()));
        }
        checkArgs("fetch method", f, def.minArgs(), def.maxArgs());
        Fetch fetch = def.build().apply(f.args());
        if (tcpProxy() && needs(f.name()) == Phase.REQUEST && !def.content()) {
            // no request head (yet) on a layer-4 stream: no sample
            Fetch http = fetch;
            fetch = t -> t.request() == null ? null : http.get(t);
        }
        if (phase == Phase.LOG && f.name().equals("status")) {
            fetch = t -> null;
        }
        Converter[] convs = new Converter[calls.size() - 1];
        for (int i = 1; i < calls.size(); i++) {
            SampleArgs.Call c = calls.get(i);
            Converters.Def cd = Converters.get(c.name());
            if (cd == null) {
                String missing = Converters.MISSING.get(c.name());
                throw new IllegalArgumentException(missing != null ? "converter '" + c.name() + "' is not supported by Sluice yet: " + missing
                        : "unknown converter '" + c.name() + "'" + suggest(c.name(), Converters.names()));
            }
            checkArgs("converter", c, cd.minArgs(), cd.maxArgs());
            try {
                convs[i - 1] = cd.build().apply(c.args());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid argument in converter '" + c.name() + "': " + e.getMessage());
            }
        }
        return new SampleExpr(fetch, convs, text);
    }

    private static void checkArgs(String what, SampleArgs.Call c, int min, int max) {
        int n = c.args().size();
        if (n < min) {
            throw new IllegalArgumentException(what + " '" + c.name() + "' expects at least " + min + " argument(s), got " + n);
        }
        if (n > max) {
            throw new IllegalArgumentException(what + " '" + c.name() + "' expects at most " + max + " argument(s), got " + n);
        }
    }

    private static String suggest(String name, Collection<String> all) {
        String s = Suggestions.closest(name, all);
        return s == null ? "" : "; did you mean '" + s + "' maybe ?";
    }

    /** Compiles an ACL expression: the sample (with an ACL-only suffix like {@code path_beg}), flags, patterns. */
    public static Acl acl(AclExpr e) {
        String sampleText = e.sample();
        Match match = null;
        String head = SampleArgs.parse(sampleText).get(0).name();
        String fetchText = sampleText;
        if (Fetches.get(head) == null) {
            for (String suf : SUFFIXES) {
                if (head.endsWith("_" + suf)) {
                    String base = head.substring(0, head.length() - suf.length() - 1);
                    if (Fetches.get(base) != null) {
                        fetchText = base + sampleText.substring(head.length());
                        match = switch (suf) {
                            case "val", "int" -> Match.INT;
                            case "cnt" -> null;
                            case "ip" -> Match.IP;
                            case "str" -> Match.STR;
                            default -> Match.of(suf);
                        };
                        if (suf.equals("cnt")) {
                            fetchText = base + "_cnt" + sampleText.substring(head.length());
                        }
                        if (suf.equals("val") || suf.equals("ip")) {
                            fetchText = base + "_" + suf + sampleText.substring(head.length());
                            match = null;
                        }
                        break;
                    }
                }
            }
        }
        SampleExpr sample;
        try {
            sample = sample(fetchText);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(ex.getMessage() + " in ACL expression '" + e.sample() + "'");
        }
        boolean ignoreCase = false;
        List<String> patterns = new ArrayList<>(e.values());
        List<String> f = e.flags();
        for (int i = 0; i < f.size(); i++) {
            switch (f.get(i)) {
                case "-i" -> ignoreCase = true;
                case "-n", "-M" -> {
                }
                case "-m" -> {
                    Match m = Match.of(f.get(++i));
                    if (m == null) {
                        throw new IllegalArgumentException("unknown pattern matching method '" + f.get(i) + "'");
                    }
                    match = m;
                }
                case "-f" -> patterns.addAll(patternFile(f.get(++i)));
                case "-u" -> i++;
                default -> throw new IllegalArgumentException("unknown ACL flag '" + f.get(i) + "'");
            }
        }
        String fetchName = SampleArgs.parse(fetchText).get(0).name();
        if (match == null) {
            Fetches.Def d = Fetches.get(fetchName);
            if (d.dflt() == null && !sample.hasConverters()) {
                throw new IllegalArgumentException("matching method must be specified first (using '-m') when using a sample fetch of this type ('"
                        + fetchName + "')");
            }
            match = sample.hasConverters() ? Match.STR : d.dflt();
            if (sample.hasConverters() && !patterns.isEmpty() && patterns.get(0).matches("-?\\d+|eq|ne|lt|le|gt|ge")) {
                match = Match.INT;
            }
        }
        if (match == Match.STR && patterns.isEmpty() && Fetches.get(fetchName).dflt() == Match.BOOL) {
            match = Match.BOOL;
        }
        // what the exchange kept can be tested in both directions
        Phase needs = KEPT.contains(fetchName) ? null : needs(fetchName);
        Fetches.Def d = Fetches.get(fetchName);
        // in a TCP proxy an HTTP fetch waits for a whole request head during content inspection
        boolean content = d.content() || tcpProxy() && needs == Phase.REQUEST;
        if (patterns.isEmpty() && match != Match.FOUND && match != Match.BOOL) {
            // no pattern: HAProxy matches nothing, except for boolean fetches
            return new Acl(sample, v -> false, head, needs, content, d.l6());
        }
        return new Acl(sample, match.compile(patterns, ignoreCase), head, needs, content, d.l6());
    }

    private static List<String> patternFile(String file) {
        List<String> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(CompileScope.file(file), StandardCharsets.ISO_8859_1)) {
                String l = line.strip();
                if (!l.isEmpty() && !l.startsWith("#")) {
                    out.add(l);
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("failed to open pattern file '" + file + "'");
        }
        return out;
    }

    private Acl[] named(String name) {
        Acl[] a = compiled.get(name);
        if (a != null) {
            return a;
        }
        List<AclExpr> lines = named.get(name);
        if (lines == null) {
            a = new Acl[] {Predefined.acl(name, tcp)};
            if (a[0] == null) {
                throw new IllegalArgumentException("no such ACL : '" + name + "'");
            }
        } else {
            a = new Acl[lines.size()];
            for (int i = 0; i < a.length; i++) {
                a[i] = acl(lines.get(i));
            }
        }
        compiled.put(name, a);
        return a;
    }

    /** Compiles a condition of a request rule or switching rule without diagnostics; null stays null. */
    public Cond condition(Condition c) {
        return condition(c, Phase.REQUEST, "", new ArrayList<>());
    }

    /**
     * Compiles a condition; null stays null (always true). An ACL whose sample does not exist in
     * {@code phase} never matches and adds a warning (HAProxy's wording) naming {@code context}.
     */
    public Cond condition(Condition c, Phase phase, String context, List<String> warnings) {
        return condition(c, phase, null, context, warnings);
    }

    /**
     * The same for a rule of {@code ruleSet} ({@code tcp-request connection}, {@code tcp-request content}): its warnings
     * say where the ACL will never match, as HAProxy's tcp_rules.c words them; null for other rules.
     */
    public Cond condition(Condition c, Phase phase, String ruleSet, String context, List<String> warnings) {
        String in = ruleSet == null ? "" : " in '" + ruleSet + "'";
        if (c == null) {
            return null;
        }
        Cond.Term[][] alts = new Cond.Term[c.alternatives().size()][];
        for (int i = 0; i < alts.length; i++) {
            List<Condition.Term> and = c.alternatives().get(i);
            alts[i] = new Cond.Term[and.size()];
            for (int j = 0; j < and.size(); j++) {
                Condition.Term t = and.get(j);
                Acl[] acls;
                if (t.aclName() != null) {
                    acls = named(t.aclName()).clone();
                    boolean any = false;
                    for (int k = 0; k < acls.length; k++) {
                        if (acls[k].usableIn(phase)) {
                            any = true;
                        } else {
                            acls[k] = acls[k].never();
                        }
                    }
                    if (!any) {
                        warnings.add("acl '" + t.aclName() + "' will never match" + in
                                + " because it only involves keywords that are incompatible with '" + context + "'");
                    }
                } else {
                    Acl a = acl(t.anonymous());
                    if (!a.usableIn(phase)) {
                        warnings.add("anonymous acl will never match" + in + " because it uses keyword '" + a.keyword()
                                + "' which is incompatible with '" + context + "'");
                        a = a.never();
                    }
                    acls = new Acl[] {a};
                }
                alts[i][j] = new Cond.Term(acls, t.negated());
            }
        }
        return new Cond(alts, c.unless());
    }

    /**
     * HAProxy's predefined ACLs. {@code WAIT_END} is {@code wait_end} (true at once outside content inspection); in a
     * TCP proxy {@code REQ_CONTENT} is HAProxy's {@code req.len gt 0}, in an HTTP one whether the request has a body.
     */
    static final class Predefined {
        private Predefined() {
        }

        static Acl acl(String name, boolean tcp) {
            return switch (name) {
                case "TRUE" -> new Acl(t -> Boolean.TRUE, Samples::bool, name, null);
                case "HTTP" -> tcp ? RuleCompiler.acl(new AclExpr("req.proto_http", List.of(), List.of()))
                        : new Acl(t -> Boolean.TRUE, Samples::bool, name, null);
                case "WAIT_END" -> RuleCompiler.acl(new AclExpr("wait_end", List.of(), List.of()));
                case "FALSE" -> new Acl(t -> Boolean.FALSE, Samples::bool, name, null);
                case "HTTP_1.0" -> RuleCompiler.acl(new AclExpr("req.ver", List.of(), List.of("1.0")));
                case "HTTP_1.1" -> RuleCompiler.acl(new AclExpr("req.ver", List.of(), List.of("1.1")));
                case "HTTP_2.0" -> RuleCompiler.acl(new AclExpr("req.ver", List.of(), List.of("2.0")));
                case "HTTP_3.0" -> RuleCompiler.acl(new AclExpr("req.ver", List.of(), List.of("3.0")));
                case "HTTP_CONTENT" -> new Acl(t -> t.request() != null && t.request().hasBody(), Samples::bool, name, Phase.REQUEST);
                case "REQ_CONTENT" -> tcp ? RuleCompiler.acl(new AclExpr("req.len", List.of(), List.of("gt", "0")))
                        : new Acl(t -> t.request().hasBody(), Samples::bool, name, Phase.REQUEST);
                case "HTTP_URL_ABS" -> RuleCompiler.acl(new AclExpr("url", List.of("-m", "reg"), List.of("^[^/:]*://")));
                case "HTTP_URL_SLASH" -> RuleCompiler.acl(new AclExpr("url", List.of("-m", "beg"), List.of("/")));
                case "HTTP_URL_STAR" -> RuleCompiler.acl(new AclExpr("url", List.of(), List.of("*")));
                case "LOCALHOST" -> RuleCompiler.acl(new AclExpr("src", List.of(), List.of("127.0.0.1/8", "::1")));
                case "METH_CONNECT", "METH_DELETE", "METH_HEAD", "METH_OPTIONS", "METH_POST", "METH_PUT", "METH_TRACE" ->
                        RuleCompiler.acl(new AclExpr("method", List.of(), List.of(name.substring(5))));
                case "METH_GET" -> RuleCompiler.acl(new AclExpr("method", List.of(), List.of("GET", "HEAD")));
                case "RDP_COOKIE" -> RuleCompiler.acl(new AclExpr("req.rdp_cookie_cnt", List.of(), List.of("gt", "0")));
                default -> null;
            };
        }
    }
}

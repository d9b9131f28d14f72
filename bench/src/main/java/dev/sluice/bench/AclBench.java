package dev.sluice.bench;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Proxy;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.Cond;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.RuleTarget;
import io.netty.util.AsciiString;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The rule work of one request in a realistic frontend: 13 named ACLs (several patterns each:
 * {@code hdr(host) -i}, {@code path_beg}, {@code path_end}, {@code src} ranges, {@code url_param},
 * {@code hdr_sub -i}, a {@code path_reg} regex, {@code method}) and 20 rules (7 {@code http-request},
 * 13 {@code use_backend} with named and anonymous ACLs, {@code ||} and {@code !}), over a mix of 8
 * requests. Each op runs the http-request rules and picks the backend, three ways:
 * <ul>
 * <li>{@code compiled}: Sluice's rules, compiled once when the configuration is loaded;</li>
 * <li>{@code recompiledPerRequest}: the same engine compiling the proxy's rules for every request (what
 * an interpreter of the configuration text costs);</li>
 * <li>{@code naiveStrings}: the same 20 rules hand-written the obvious way: the target and the fields turned
 * into {@code String}s, the query split into a map, host lower-cased, networks parsed and
 * {@code String.matches} for the regex, per request.</li>
 * </ul>
 * Every way chooses the same backend for every request (checked at set-up).
 * <p>
 * {@code compiledSamples} runs a second frontend, compiled, on the same requests: ACLs on the fetches and
 * matchers that build values ({@code cook}, {@code req.cook} and {@code cook_cnt}, {@code hdr} as a sample and
 * {@code hdr_cnt}, {@code base}, {@code -m dom}, {@code path_dir}, {@code -m reg}), to follow what they allocate.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar AclBench -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AclBench {

    static final String[] BACKENDS = {"be_static", "be_api_v2", "be_api", "be_admin", "be_legacy", "be_bots", "be_internal", "be_upload",
        "be_search", "be_shop", "be_img", "be_geo", "be_ws", "be_www"};

    static final String FRONTEND = """
            frontend fe
                bind 127.0.0.1:8080
                acl host_api hdr(host) -i api.example.com api2.example.com
                acl host_www hdr(host) -i www.example.com example.com
                acl is_static path_beg /static/ /assets/ /img/ /css/ /js/
                acl is_api path_beg /api/
                acl internal src 10.0.0.0/8 192.168.0.0/16 172.16.0.0/12
                acl office src 203.0.113.0/24 2001:db8::/32
                acl v2 url_param(version) 2 v2
                acl debug url_param(debug) -m found
                acl images path_end .png .jpg .gif .webp
                acl admin path_beg /admin
                acl legacy path_reg ^/(old|legacy)/[a-z]+/[0-9]+$
                acl bot hdr_sub(user-agent) -i bot crawler spider
                acl write method POST PUT
                http-request deny if admin !internal !office
                http-request deny deny_status 429 if bot is_api
                http-request deny if { path_sub /../ }
                http-request deny if legacy write
                http-request set-var(txn.api) str(1) if host_api
                http-request set-var(txn.dbg) str(1) if debug internal
                http-request set-header x-internal 1 if internal
                use_backend be_static if is_static || images
                use_backend be_api_v2 if host_api v2
                use_backend be_api if host_api || is_api
                use_backend be_admin if admin
                use_backend be_legacy if legacy
                use_backend be_bots if bot
                use_backend be_internal if internal host_www
                use_backend be_upload if write { path_beg /upload }
                use_backend be_search if { path_beg /search } { url_param(q) -m found }
                use_backend be_shop if { hdr(host) -i shop.example.com }
                use_backend be_img if { hdr_end(host) -i .img.example.com }
                use_backend be_geo if { req.hdr(x-country) -i de fr it }
                use_backend be_ws if { hdr(upgrade) -i websocket }
                default_backend be_www
            """;

    /** ACLs on value-building fetches and matchers, for {@code compiledSamples}. */
    static final String SAMPLES = """
            frontend fe2
                bind 127.0.0.1:8081
                acl dom_ex hdr(host) -m dom example.com
                acl dir_api path_dir api
                acl sess req.cook(sid) -m found
                acl theme cook(theme) dark light
                acl two_cookies cook_cnt ge 2
                acl many_accept hdr_cnt(accept) gt 1
                acl shop base_beg shop.example.com/products
                acl legacy_base base_reg ^example[.]com/legacy/
                acl ua_bot hdr(user-agent),lower -m sub bot
                acl lang_en hdr(accept-language) -m reg ^en(-|$)
                http-request deny if { hdr(x-forbidden) -m found }
                use_backend be_api if dom_ex dir_api
                use_backend be_shop if shop
                use_backend be_legacy if legacy_base
                use_backend be_bots if ua_bot
                use_backend be_admin if sess theme two_cookies
                use_backend be_search if lang_en
                use_backend be_static if many_accept
                default_backend be_www
            """;

    /** The request mix: method, target, client address, then field name/value pairs. */
    static final String[][] REQUESTS = {
        {"GET", "/static/app.js", "198.51.100.7", "host", "www.example.com", "user-agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0",
            "accept", "*/*", "accept-encoding", "gzip, br"},
        {"GET", "/api/v1/users?version=2&debug=1", "10.1.2.3", "host", "api.example.com", "user-agent", "curl/8.5.0", "accept",
            "application/json"},
        {"GET", "/admin/settings", "203.0.113.9", "host", "www.example.com", "user-agent", "Mozilla/5.0 Safari/605.1.15", "cookie",
            "sid=abc123; theme=dark"},
        {"POST", "/upload/file", "192.0.2.44", "host", "www.example.com", "user-agent", "Mozilla/5.0 Chrome/126.0", "content-type",
            "multipart/form-data; boundary=x"},
        {"GET", "/search?q=shoes&page=2", "198.51.100.99", "host", "www.example.com", "user-agent", "Mozilla/5.0 Chrome/126.0",
            "accept-language", "en-US,en;q=0.9"},
        {"GET", "/legacy/items/42", "66.249.66.1", "host", "example.com", "user-agent",
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
        {"GET", "/img/logo.png", "198.51.100.7", "host", "cdn.img.example.com", "user-agent", "Mozilla/5.0 Firefox/128.0"},
        {"GET", "/products/123?ref=home", "192.0.2.8", "host", "shop.example.com", "user-agent", "Mozilla/5.0 Chrome/126.0", "x-country",
            "de"}};

    private Proxy proxy;
    private ProxyRules rules;
    private ProxyRules sampleRules;
    private Target[] targets;
    private int next;

    @Setup
    public void setUp() {
        StringBuilder cfg = new StringBuilder("defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n    timeout connect 5s\n");
        cfg.append(FRONTEND);
        cfg.append(SAMPLES);
        for (String b : BACKENDS) {
            cfg.append("backend ").append(b).append("\n    server s1 127.0.0.1:8081\n");
        }
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), ConfigParser.Settings.fromSystem(Set.of()))
                .parse(List.of(new ConfigParser.Source("bench.cfg", cfg.toString())));
        if (!r.ok()) {
            throw new IllegalStateException(r.diagnostics().toString());
        }
        proxy = r.config().proxy("fe").orElseThrow();
        List<String> problems = new ArrayList<>();
        rules = ProxyRules.compile(proxy, problems);
        if (!problems.isEmpty()) {
            throw new IllegalStateException(problems.toString());
        }
        Proxy fe2 = r.config().proxy("fe2").orElseThrow();
        sampleRules = ProxyRules.compile(fe2, problems);
        if (!problems.isEmpty()) {
            throw new IllegalStateException(problems.toString());
        }
        targets = new Target[REQUESTS.length];
        for (int i = 0; i < targets.length; i++) {
            targets[i] = new Target(REQUESTS[i]);
        }
        for (Target t : targets) {
            String a = evaluate(rules, t);
            String b = evaluate(ProxyRules.compile(proxy, new ArrayList<>()), t);
            String c = naive(t);
            if (!a.equals(b) || !a.equals(c)) {
                throw new IllegalStateException(t.request.target() + ": compiled " + a + ", recompiled " + b + ", naive " + c);
            }
        }
        // the second frontend: what each request of the mix chooses there
        StringBuilder chosen = new StringBuilder();
        for (Target t : targets) {
            t.reset();
            chosen.append(evaluate(sampleRules, t)).append(' ');
        }
        if (!chosen.toString().equals(SAMPLES_CHOSEN)) {
            throw new IllegalStateException("compiledSamples chose " + chosen);
        }
    }

    private Target nextTarget() {
        Target t = targets[next];
        next = next + 1 == targets.length ? 0 : next + 1;
        t.reset();
        return t;
    }

    @Benchmark
    public String compiled() {
        return evaluate(rules, nextTarget());
    }

    @Benchmark
    public String compiledSamples() {
        return evaluate(sampleRules, nextTarget());
    }

    /** What {@code compiledSamples} picks for each request of the mix, in order. */
    static final String SAMPLES_CHOSEN = "be_www be_api be_admin be_www be_search be_legacy be_www be_shop ";

    @Benchmark
    public String recompiledPerRequest() {
        return evaluate(ProxyRules.compile(proxy, new ArrayList<>()), nextTarget());
    }

    @Benchmark
    public String naiveStrings() {
        return naive(nextTarget());
    }

    /** The http-request rules, then the first use_backend whose condition holds: the chosen backend or the verdict. */
    static String evaluate(ProxyRules rules, Target t) {
        Rule.run(rules.request(), t);
        if (t.denied != 0) {
            return "deny " + t.denied;
        }
        for (ProxyRules.Switch s : rules.switching()) {
            if (Cond.holds(s.cond(), t)) {
                return s.backend();
            }
        }
        return "be_www";
    }

    // ------------------------------------------------------------------ the naive way

    static boolean inAny(InetAddress a, String... cidrs) {
        for (String c : cidrs) {
            int slash = c.indexOf('/');
            byte[] net;
            try {
                net = InetAddress.getByName(c.substring(0, slash)).getAddress();
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
            int bits = Integer.parseInt(c.substring(slash + 1));
            byte[] ip = a.getAddress();
            if (ip.length != net.length) {
                continue;
            }
            boolean match = true;
            for (int i = 0; i < bits; i++) {
                int mask = 0x80 >> (i % 8);
                if ((ip[i / 8] & mask) != (net[i / 8] & mask)) {
                    match = false;
                    break;
                }
            }
            if (match) {
                return true;
            }
        }
        return false;
    }

    static String header(RequestHead r, String name) {
        String found = null;
        for (int i = 0; i < r.fields().size(); i++) {
            if (r.fields().name(i).toString().equalsIgnoreCase(name)) {
                found = r.fields().value(i).toString();
            }
        }
        return found;
    }

    static boolean startsWithAny(String s, String... p) {
        for (String x : p) {
            if (s.startsWith(x)) {
                return true;
            }
        }
        return false;
    }

    static String naive(Target t) {
        RequestHead r = t.request;
        String target = r.target().toString();
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        Map<String, String> params = new HashMap<>();
        if (q >= 0) {
            for (String kv : target.substring(q + 1).split("&")) {
                String[] p = kv.split("=", 2);
                params.putIfAbsent(p[0], p.length > 1 ? p[1] : "");
            }
        }
        String hostHeader = header(r, "host");
        String host = hostHeader == null ? "" : hostHeader.toLowerCase(Locale.ROOT);
        String ua = header(r, "user-agent");
        String uaLower = ua == null ? "" : ua.toLowerCase(Locale.ROOT);
        String method = r.method().toString();
        InetAddress src = t.client.getAddress();

        boolean hostApi = host.equals("api.example.com") || host.equals("api2.example.com");
        boolean hostWww = host.equals("www.example.com") || host.equals("example.com");
        boolean isStatic = startsWithAny(path, "/static/", "/assets/", "/img/", "/css/", "/js/");
        boolean isApi = path.startsWith("/api/");
        boolean internal = inAny(src, "10.0.0.0/8", "192.168.0.0/16", "172.16.0.0/12");
        boolean office = inAny(src, "203.0.113.0/24", "2001:db8::/32");
        String version = params.get("version");
        boolean v2 = "2".equals(version) || "v2".equals(version);
        boolean debug = params.containsKey("debug");
        boolean images = path.endsWith(".png") || path.endsWith(".jpg") || path.endsWith(".gif") || path.endsWith(".webp");
        boolean admin = path.startsWith("/admin");
        boolean legacy = path.matches("^/(old|legacy)/[a-z]+/[0-9]+$");
        boolean bot = uaLower.contains("bot") || uaLower.contains("crawler") || uaLower.contains("spider");
        boolean write = method.equals("POST") || method.equals("PUT");

        if (admin && !internal && !office) {
            return "deny 403";
        }
        if (bot && isApi) {
            return "deny 429";
        }
        if (path.contains("/../")) {
            return "deny 403";
        }
        if (legacy && write) {
            return "deny 403";
        }
        if (hostApi) {
            t.vars().put("txn.api", "1");
        }
        if (debug && internal) {
            t.vars().put("txn.dbg", "1");
        }
        if (internal) {
            r.fields().set(AsciiString.cached("x-internal"), AsciiString.cached("1"));
        }
        if (isStatic || images) {
            return "be_static";
        }
        if (hostApi && v2) {
            return "be_api_v2";
        }
        if (hostApi || isApi) {
            return "be_api";
        }
        if (admin) {
            return "be_admin";
        }
        if (legacy) {
            return "be_legacy";
        }
        if (bot) {
            return "be_bots";
        }
        if (internal && hostWww) {
            return "be_internal";
        }
        if (write && path.startsWith("/upload")) {
            return "be_upload";
        }
        if (path.startsWith("/search") && params.containsKey("q")) {
            return "be_search";
        }
        if (host.equals("shop.example.com")) {
            return "be_shop";
        }
        if (host.endsWith(".img.example.com")) {
            return "be_img";
        }
        String country = header(r, "x-country");
        if (country != null && Set.of("de", "fr", "it").contains(country.toLowerCase(Locale.ROOT))) {
            return "be_geo";
        }
        String upgrade = header(r, "upgrade");
        if (upgrade != null && upgrade.equalsIgnoreCase("websocket")) {
            return "be_ws";
        }
        return "be_www";
    }

    // ------------------------------------------------------------------ a request as the rules see it

    /** One request of the mix; the rules' actions only record what they would do. */
    static final class Target implements RuleTarget {
        final RequestHead request;
        final InetSocketAddress client;
        final InetSocketAddress local = new InetSocketAddress("127.0.0.1", 8080);
        final Map<String, Object> vars = new HashMap<>();
        int denied;

        Target(String[] spec) {
            HttpFields f = new HttpFields();
            for (int i = 3; i < spec.length; i += 2) {
                f.add(spec[i], spec[i + 1]);
            }
            request = new RequestHead(new AsciiString(spec[0]), new AsciiString(spec[1]), HttpVersion.HTTP_1_1, f);
            client = new InetSocketAddress(spec[2], 40000);
        }

        void reset() {
            denied = 0;
        }

        @Override
        public RequestHead request() {
            return request;
        }

        @Override
        public ResponseHead response() {
            return null;
        }

        @Override
        public InetSocketAddress clientAddress() {
            return client;
        }

        @Override
        public InetSocketAddress frontendAddress() {
            return local;
        }

        @Override
        public boolean tls() {
            return false;
        }

        @Override
        public String sni() {
            return null;
        }

        @Override
        public String frontendName() {
            return "fe";
        }

        @Override
        public String backendName() {
            return null;
        }

        @Override
        public Map<String, Object> vars() {
            return vars;
        }

        @Override
        public MessageHead head() {
            return request;
        }

        @Override
        public boolean responsePhase() {
            return false;
        }

        @Override
        public void answer(ResponseHead head, byte[] body, char cause) {
            denied = head.status();
        }

        @Override
        public void answerStatus(int status, char cause) {
            denied = status;
        }

        @Override
        public void drop() {
            denied = -1;
        }

        @Override
        public void tarpit(int status) {
            denied = status;
        }

        @Override
        public void setTimeout(String which, long millis) {
        }

        @Override
        public void setRetries(int retries) {
        }
    }
}

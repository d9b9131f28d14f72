package dev.sluice.proxy.rules;

import dev.sluice.config.LogFormats;
import dev.sluice.config.model.Environment;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.LogFormat;
import dev.sluice.config.model.ProcVar;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What belongs to the process rather than to a stream: the {@code proc.*} variables, shared by every rule of every
 * proxy on every event loop (and set first by the global section's {@code set-var} and {@code set-var-fmt} lines, in
 * order, when the configuration is checked), and the environment as the global section's {@code setenv} lines left it
 * (the {@code env()} fetch). One per runtime; {@link Variables} gives each stream its view of the variables. Thread-safe.
 */
public final class ProcScope {
    private final Map<String, Object> vars = new ConcurrentHashMap<>();
    private final Function<String, String> env;

    /** Process variables and the environment as inherited ({@code System.getenv}): for tests and lone rule sets. */
    public ProcScope() {
        this(System::getenv);
    }

    public ProcScope(Function<String, String> env) {
        this.env = env;
    }

    /** The {@code proc.*} variables by full name. */
    public Map<String, Object> vars() {
        return vars;
    }

    /** An environment variable as the global section left it, or null. */
    public String env(String name) {
        return env.apply(name);
    }

    /**
     * The process scope of {@code global}: its environment over the inherited one, its variables set in order. Each
     * problem (an unknown fetch, one that reads what does not exist when the configuration is read) is added to
     * {@code problems} as {@code file:line: error: ...}, HAProxy's words.
     */
    public static ProcScope of(Global global, Function<String, String> inherited, List<String> problems) {
        Environment e = global.environment();
        ProcScope scope = new ProcScope(e.over(inherited));
        for (ProcVar v : global.vars()) {
            try {
                scope.set(v);
            } catch (IllegalArgumentException ex) {
                problems.add(v.where() + ": error: " + ex.getMessage());
            }
        }
        return scope;
    }

    /** Names of the fetches HAProxy can evaluate while it reads its configuration (SMP_USE_CONST and SMP_USE_INTRN ones). */
    private static final Set<String> CONFIG_TIME = Set.of("always_false", "always_true", "bin", "bool", "date", "date_us", "env", "hostname",
            "int", "ipv4", "ipv6", "meth", "nbproc", "nbthread", "pid", "proc", "rand", "str", "thread", "uuid", "var", "stopping");

    private void set(ProcVar v) {
        Object value;
        if (v.format()) {
            Template t = CompileScope.in(new StickTables(), "CFG", v.directory(), () -> Template.compile(v.expression()));
            for (LogFormat.Node n : LogFormats.parse(v.expression(), true).nodes()) {
                if (n instanceof LogFormat.Sample s) {
                    String fetch = SampleArgs.parse(s.expr()).get(0).name();
                    if (!CONFIG_TIME.contains(fetch) && Fetches.get(fetch) != null) {
                        throw new IllegalArgumentException("sample fetch <" + s.expr() + "]> may not be reliably used here because it needs '"
                                + needs(fetch) + "' which is not available here");
                    }
                }
            }
            value = render(t);
        } else {
            SampleExpr e = CompileScope.in(new StickTables(), "CFG", v.directory(), () -> RuleCompiler.sample(v.expression()));
            String fetch = SampleArgs.parse(v.expression()).get(0).name();
            if (!CONFIG_TIME.contains(fetch)) {
                throw new IllegalArgumentException("fetch method 'set-var(" + v.name() + ")' extracts information from '" + needs(fetch)
                        + "', none of which is available here");
            }
            value = evaluate(e);
        }
        if (value == null || !allowed(v, value)) {
            return;
        }
        vars.put(v.name(), value instanceof CharSequence cs ? cs.toString() : value);
    }

    private Object evaluate(SampleExpr e) {
        try {
            return e.get(new ConfigTxn(this));
        } catch (RuntimeException ex) {
            // a fetch that finds nothing to read gives no sample: the variable is not set, as in HAProxy
            return null;
        }
    }

    private String render(Template t) {
        try {
            return t.render(new ConfigTxn(this));
        } catch (RuntimeException ex) {
            return "";
        }
    }

    /**
     * The conditions of {@code set-var <name>,<cond>...} as HAProxy 2.6 applies them to process variables, which exist
     * from the moment the configuration names them: {@code ifexists} always holds, {@code ifnotexists} never.
     */
    private boolean allowed(ProcVar v, Object value) {
        Object current = vars.get(v.name());
        for (String c : v.conditions()) {
            boolean ok = switch (c) {
                case "ifexists" -> true;
                case "ifnotexists" -> false;
                case "ifset" -> current != null;
                case "ifnotset" -> current == null;
                case "ifempty" -> value instanceof CharSequence cs && cs.isEmpty();
                case "ifnotempty" -> !(value instanceof CharSequence cs) || !cs.isEmpty();
                case "ifgt", "iflt" -> {
                    Long now = current instanceof Long l ? l : null;
                    Long in = value instanceof Long l ? l : null;
                    yield now == null || in == null || (c.equals("ifgt") ? now > in : now < in);
                }
                default -> true;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** What a fetch HAProxy cannot evaluate at configuration time reads, in its words ({@code fetch_src_names}). */
    private static String needs(String fetch) {
        if (fetch.startsWith("sc") || fetch.startsWith("src_") && !fetch.equals("src_port") && !fetch.equals("src_is_local")) {
            return "track counters";
        }
        return switch (fetch) {
            case "src", "src_port", "dst", "dst_port", "src_is_local", "dst_is_local" -> "client address";
            case "fe_name", "fe_id", "fe_defbe" -> "frontend";
            case "be_name", "be_id" -> "backend";
            case "hdr", "hdr_cnt", "hdr_val", "hdr_ip", "cookie" -> "HTTP request headers,HTTP response headers";
            default -> {
                if (fetch.startsWith("ssl_fc") || fetch.startsWith("fc_")) {
                    yield "client-side connection";
                }
                Fetches.Def d = Fetches.get(fetch);
                if (d != null && d.l6()) {
                    yield d.response() ? "response buffer" : "request buffer";
                }
                yield d != null && d.response() ? "HTTP response headers" : "HTTP request headers";
            }
        };
    }
}

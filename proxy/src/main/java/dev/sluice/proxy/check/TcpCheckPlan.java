package dev.sluice.proxy.check;

import dev.sluice.config.Addresses;
import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.TcpCheck;
import dev.sluice.config.model.TcpCheck.ExpectKind;
import dev.sluice.config.model.TcpCheck.SendKind;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A backend's tcp-check rule set compiled once ({@link TcpCheck} from the configuration): HAProxy's implicit first
 * connect when the rules start otherwise, comments given to the rules that follow them, the chain head each expect
 * goes back to when it waits, patterns, regexes, log-format strings and sample expressions compiled, addresses
 * resolved. {@link TcpCheckRun} plays it. Immutable; shared by the checks of the backend.
 */
public final class TcpCheckPlan {

    /** One step; {@code index} is the rule's place in its set (HAProxy's step number is index + 1), {@code comment} its comment. */
    sealed interface Step permits Connect, Send, Expect, SetVar {
        int index();

        String comment();
    }

    /**
     * Opens a connection. {@code implicit}: the one HAProxy adds before rules that do not start with a connect (step 0,
     * "initial connection step"); {@code useDefault}: the server's check settings (address, port, TLS, PROXY header, SNI).
     */
    record Connect(int index, String comment, boolean implicit, boolean useDefault, int port, CheckSamples.Value portExpr, InetAddress addr,
            int addrPort, boolean sendProxy, boolean ssl, String sni, List<String> alpn, boolean linger) implements Step {
    }

    /** Sends bytes: fixed ones, or a log-format string rendered at each check (as hex digits for the binary form). */
    record Send(int index, String comment, byte[] data, CheckSamples.Format format, boolean hex) implements Step {
    }

    /**
     * Waits for bytes matching a pattern. {@code head} is the step (in the plan) the evaluation goes back to when it has
     * to wait: the first inverted expect of the chain it ends. Statuses are null when the rule keeps HAProxy's defaults.
     */
    record Expect(int index, String comment, ExpectKind kind, boolean inverse, byte[] bytes, Pattern regex, CheckSamples.Format format,
            String custom, int minRecv, CheckStatus ok, CheckStatus error, CheckStatus timeout, CheckSamples.Format onSuccess,
            CheckSamples.Format onError, CheckSamples.Value statusCode, int head) implements Step {

        /** The pattern as HAProxy prints it in a failure ({@code 'text'}, the bytes of a binary pattern). */
        String text() {
            return bytes == null ? "" : new String(bytes, StandardCharsets.ISO_8859_1);
        }
    }

    /** Sets a variable (an expression, or a log-format string), or unsets it ({@code value} and {@code format} null). */
    record SetVar(int index, String name, CheckSamples.Value value, CheckSamples.Format format) implements Step {
        @Override
        public String comment() {
            return null;
        }
    }

    /** A rule that does not compile: where it was written, the keyword and HAProxy's message. */
    public static final class Problem extends IllegalArgumentException {
        private final SourceRef where;

        Problem(SourceRef where, String message) {
            super(message);
            this.where = where;
        }

        public SourceRef where() {
            return where;
        }
    }

    private final TcpCheck.Kind kind;
    private final Step[] steps;
    private final List<TcpCheck.Var> vars;
    private final int lastRule;

    private TcpCheckPlan(TcpCheck.Kind kind, Step[] steps, List<TcpCheck.Var> vars) {
        this.kind = kind;
        this.steps = steps;
        this.vars = vars;
        int last = -1;
        for (int i = 0; i < steps.length; i++) {
            if (!(steps[i] instanceof SetVar)) {
                last = i;
            }
        }
        this.lastRule = last;
    }

    /** Compiles a rule set; throws {@link Problem} for the first rule that does not compile. */
    public static TcpCheckPlan compile(TcpCheck tcp) {
        return compile(tcp, null);
    }

    /** Compiles a rule set; a rule that does not compile goes to {@code problems} (when given; else it is thrown). */
    private static TcpCheckPlan compile(TcpCheck tcp, List<Problem> problems) {
        List<TcpCheck.Rule> rules = new ArrayList<>(tcp.rules());
        TcpCheck.Rule first = rules.stream().filter(r -> !(r instanceof TcpCheck.Comment) && !(r instanceof TcpCheck.SetVar)).findFirst()
                .orElse(null);
        boolean implicit = !(first instanceof TcpCheck.Connect);
        List<Step> steps = new ArrayList<>();
        if (implicit) {
            steps.add(new Connect(0, null, true, true, 0, null, null, 0, false, false, null, List.of(), false));
        }
        // comments go to the following rules of one kind (HAProxy's check_proxy_tcpcheck); a connect or set-var ends them
        String comment = null;
        Class<?> prev = TcpCheck.Comment.class;
        for (TcpCheck.Rule r : rules) {
            if (r.getClass() != prev && prev != TcpCheck.Comment.class) {
                comment = null;
            }
            prev = r.getClass();
            String own = r.comment() != null ? r.comment() : comment;
            try {
                switch (r) {
                    case TcpCheck.Comment c -> comment = c.comment();
                    case TcpCheck.Connect c -> {
                        steps.add(connect(c, own));
                        comment = null;
                    }
                    case TcpCheck.SetVar v -> {
                        steps.add(setVar(v, "tcp-check"));
                        comment = null;
                    }
                    case TcpCheck.Send snd -> steps.add(send(snd, own));
                    case TcpCheck.Expect e -> steps.add(expect(e, own, head(steps)));
                }
            } catch (Problem p) {
                if (problems == null) {
                    throw p;
                }
                problems.add(p);
            }
        }
        return new TcpCheckPlan(tcp.kind(), steps.toArray(Step[]::new), tcp.vars());
    }

    /** The problems of a proxy's tcp-check rules, as {@code -c} prints them (empty when it has none or they compile). */
    public static List<String> problems(Proxy p) {
        TcpCheck tcp = p.checks().tcp();
        var http = p.checks().http();
        if (!p.kind().hasBackend() || tcp == null && (http == null || http.connect() == null && !http.multiStep())) {
            return List.of();
        }
        List<Problem> found = new ArrayList<>();
        if (tcp != null) {
            compile(tcp, found);
        } else if (http.multiStep()) {
            found.addAll(HttpCheckSteps.problems(http));
            if (http.fcgi() && p.fcgiApp() == null) {
                found.add(problem(http.connect(), "http-check connect", "'proto fcgi' needs the backend's FastCGI application ('use-fcgi-app')"));
            }
        } else {
            try {
                connect(http.connect(), null);
            } catch (Problem e) {
                found.add(e);
            }
            if (http.fcgi() && p.fcgiApp() == null) {
                found.add(problem(http.connect(), "http-check connect", "'proto fcgi' needs the backend's FastCGI application ('use-fcgi-app')"));
            }
        }
        return found.stream().map(e -> e.where() + ": error: " + e.getMessage()).toList();
    }

    /**
     * Where an expect added now goes back to when it waits: the first inverted expect of the chain of expects just before
     * it (set-var steps do not break it), or itself.
     */
    private static int head(List<Step> steps) {
        int head = steps.size();
        for (int i = steps.size() - 1; i >= 0; i--) {
            Step s = steps.get(i);
            if (s instanceof Expect e) {
                if (e.inverse()) {
                    head = i;
                }
            } else if (!(s instanceof SetVar)) {
                break;
            }
        }
        return head;
    }

    private static Problem problem(TcpCheck.Rule r, String keyword, String message) {
        return new Problem(r.where(), "'" + keyword + "' : " + message + ".");
    }

    /** Compiles a connect rule ({@code http-check connect} too); throws a {@link Problem} when it does not compile. */
    static Connect connect(TcpCheck.Connect c, String comment) {
        CheckSamples.Value portExpr = null;
        if (c.portExpr() != null) {
            try {
                portExpr = CheckSamples.compile(c.portExpr());
            } catch (IllegalArgumentException e) {
                throw problem(c, "tcp-check connect", "error detected while parsing port expression : " + e.getMessage());
            }
        }
        InetAddress addr = null;
        if (c.addr() != null) {
            addr = Addresses.literal(c.addr());
            if (addr == null) {
                try {
                    addr = InetAddress.getByName(c.addr());
                } catch (UnknownHostException e) {
                    throw problem(c, "tcp-check connect", "'addr' : invalid address: '" + c.addr() + "' in '" + c.addr() + "'");
                }
            }
        }
        List<String> alpn = c.alpn() == null ? List.of() : List.of(c.alpn().split(","));
        return new Connect(c.index(), comment, false, c.useDefault(), c.port(), portExpr, addr, c.addrPort(), c.sendProxy(), c.ssl(), c.sni(), alpn,
                c.linger());
    }

    private static Send send(TcpCheck.Send s, String comment) {
        String keyword = "tcp-check " + switch (s.kind()) {
            case STRING -> "send";
            case BINARY -> "send-binary";
            case STRING_LF -> "send-lf";
            case BINARY_LF -> "send-binary-lf";
        };
        return switch (s.kind()) {
            case STRING -> new Send(s.index(), comment, s.data().getBytes(StandardCharsets.ISO_8859_1), null, false);
            case BINARY -> new Send(s.index(), comment, HexFormat.of().parseHex(s.data()), null, false);
            case STRING_LF, BINARY_LF -> new Send(s.index(), comment, null, format(s, keyword, s.data()), s.kind() == SendKind.BINARY_LF);
        };
    }

    private static Expect expect(TcpCheck.Expect e, String comment, int head) {
        String keyword = "tcp-check expect";
        byte[] bytes = null;
        Pattern regex = null;
        CheckSamples.Format fmt = null;
        switch (e.kind()) {
            case STRING -> bytes = e.pattern().getBytes(StandardCharsets.ISO_8859_1);
            case BINARY -> bytes = HexFormat.of().parseHex(e.pattern());
            case RSTRING, RBINARY -> regex = Pattern.compile(e.pattern());
            case STRING_LF, BINARY_LF -> fmt = format(e, keyword, e.pattern());
            case CUSTOM -> {
            }
        }
        CheckSamples.Value code = null;
        if (e.statusCode() != null) {
            try {
                code = CheckSamples.compile(e.statusCode());
            } catch (IllegalArgumentException x) {
                throw problem(e, keyword, "error detected while parsing status-code expression : " + x.getMessage());
            }
        }
        return new Expect(e.index(), comment, e.kind(), e.inverse(), bytes, regex, fmt, e.kind() == ExpectKind.CUSTOM ? e.pattern() : null,
                e.minRecv(), status(e.okStatus()), status(e.errorStatus()), status(e.timeoutStatus()), format(e, keyword, e.onSuccess()),
                format(e, keyword, e.onError()), code, head);
    }

    /** Compiles a variable rule of {@code family} ({@code tcp-check}, {@code http-check}). */
    static SetVar setVar(TcpCheck.SetVar v, String family) {
        String action = v.value() == null ? "unset-var" : v.format() ? "set-var-fmt" : "set-var";
        String keyword = family + " " + action + "(" + v.name() + ")";
        if (v.value() == null) {
            return new SetVar(v.index(), v.name(), null, null);
        }
        try {
            // an HTTP check's variables may read its response (once there is one)
            boolean http = family.equals("http-check");
            return v.format() ? new SetVar(v.index(), v.name(), null, CheckSamples.Format.compile(v.value(), http))
                    : new SetVar(v.index(), v.name(), CheckSamples.compile(v.value(), http), null);
        } catch (IllegalArgumentException e) {
            throw problem(v, keyword, "'" + action + "' : " + e.getMessage());
        }
    }

    private static CheckSamples.Format format(TcpCheck.Rule r, String keyword, String text) {
        if (text == null) {
            return null;
        }
        try {
            return CheckSamples.Format.compile(text);
        } catch (IllegalArgumentException e) {
            throw problem(r, keyword, "'" + text + "' invalid log-format string (" + e.getMessage() + ")");
        }
    }

    private static CheckStatus status(String name) {
        return name == null ? null : CheckStatus.named(name);
    }

    /** The protocol option the rules come from ({@link TcpCheck.Kind#TCP}: {@code option tcp-check}). */
    TcpCheck.Kind kind() {
        return kind;
    }

    /**
     * Whether failures and successes are described the generic way ("TCPCHK did not match content ... at step 2",
     * "(tcp-check)"): for {@code option tcp-check}; a protocol option's rules say what they say, or nothing.
     */
    boolean generic() {
        return kind == TcpCheck.Kind.TCP;
    }

    Step[] steps() {
        return steps;
    }

    int size() {
        return steps.length;
    }

    Step step(int i) {
        return steps[i];
    }

    /** Whether step {@code i} is the last one that is not a variable step. */
    boolean last(int i) {
        return i >= lastRule;
    }

    /** The variables set before the first step. */
    List<TcpCheck.Var> vars() {
        return vars;
    }

    /** HAProxy's step number of a step: 0 for the implicit connect, else the rule's index + 1. */
    static int stepId(Step s) {
        return s instanceof Connect c && c.implicit() ? 0 : s.index() + 1;
    }
}

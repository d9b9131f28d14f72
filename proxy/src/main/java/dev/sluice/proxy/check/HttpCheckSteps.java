package dev.sluice.proxy.check;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.HealthChecks;
import dev.sluice.config.model.HealthChecks.Expect;
import dev.sluice.config.model.TcpCheck;
import java.util.ArrayList;
import java.util.List;

/**
 * A multi-step HTTP check ({@code http-check connect|send|expect|set-var|unset-var} as HAProxy 2.2+ has them) compiled
 * once: HAProxy 2.6 allows one request per connection (a second send must follow a connect), so the rule list is a
 * sequence of {@link Segment}s, each a connection (the rule's, or the server's check settings), the variable rules
 * before its request, the request (log-format values rendered at each check) and the expect rules its response must
 * pass, then the variable rules after them. {@link HttpCheckChain} plays the segments, one {@link CheckRun} each.
 * Immutable; shared by the checks of the backend.
 */
final class HttpCheckSteps {

    /** A request whose URI, header values or body may be log-format strings (null format: the text as is). */
    record Request(String method, String uri, CheckSamples.Format uriFormat, String version, List<Header> headers, String body,
            CheckSamples.Format bodyFormat) {

        boolean head() {
            return method.equals("HEAD");
        }

        /**
         * The request's bytes for one check: an empty rendered URI is {@code /}, a header whose value renders empty is
         * left out (HAProxy's rules); {@code state} is the {@code X-Haproxy-Server-State} value (null: none).
         */
        byte[] render(CheckSession s, String state) {
            String u = uriFormat == null ? uri : uriFormat.render(s);
            List<HealthChecks.Header> hs = new ArrayList<>(headers.size());
            for (Header h : headers) {
                String v = h.format() == null ? h.value() : h.format().render(s);
                if (!v.isEmpty()) {
                    hs.add(new HealthChecks.Header(h.name(), v));
                }
            }
            String b = bodyFormat == null ? body : bodyFormat.render(s);
            return CheckPlan.requestBytes(method, u.isEmpty() ? "/" : u, version, hs, b, state);
        }
    }

    record Header(String name, String value, CheckSamples.Format format) {
    }

    /**
     * One connection of the check: {@code connect} null for the server's check settings; {@code request} null when the
     * rules end with a connect (the connection is the check); {@code proto} the connect's {@code proto} (null: none).
     */
    record Segment(TcpCheckPlan.Connect connect, String proto, List<TcpCheckPlan.SetVar> before, Request request, Expectations expects,
            List<TcpCheckPlan.SetVar> after) {
    }

    private final List<Segment> segments;

    private HttpCheckSteps(List<Segment> segments) {
        this.segments = List.copyOf(segments);
    }

    /** Compiles the steps; throws {@link TcpCheckPlan.Problem} for a value that does not compile. */
    static HttpCheckSteps compile(HealthChecks.HttpCheck http, boolean disableOn404) {
        return compile(http, disableOn404, null);
    }

    private static HttpCheckSteps compile(HealthChecks.HttpCheck http, boolean disableOn404, List<TcpCheckPlan.Problem> problems) {
        List<Segment> out = new ArrayList<>();
        TcpCheckPlan.Connect connect = null;
        String proto = null;
        List<TcpCheckPlan.SetVar> before = new ArrayList<>();
        Request request = null;
        List<Expect> expects = new ArrayList<>();
        List<TcpCheckPlan.SetVar> after = new ArrayList<>();
        boolean open = false;
        SourceRef where = null;
        for (HealthChecks.Step s : http.steps()) {
            try {
                switch (s) {
                    case HealthChecks.Connect c -> {
                        if (open) {
                            out.add(new Segment(connect, proto, before, request, expectations(expects, disableOn404, where, problems), after));
                            before = new ArrayList<>();
                            request = null;
                            expects = new ArrayList<>();
                            after = new ArrayList<>();
                        }
                        open = true;
                        connect = c.rule() == null ? null : TcpCheckPlan.connect(c.rule(), c.rule().comment());
                        proto = c.proto();
                    }
                    case HealthChecks.Var v -> (request == null ? before : after).add(TcpCheckPlan.setVar(v.rule(), "http-check"));
                    case HealthChecks.Request r -> {
                        open = true;
                        where = r.where();
                        request = request(r, problems);
                    }
                    case Expect e -> {
                        open = true;
                        expects.add(e);
                    }
                }
            } catch (TcpCheckPlan.Problem p) {
                if (problems == null) {
                    throw p;
                }
                problems.add(p);
            }
        }
        out.add(new Segment(connect, proto, before, request, expectations(expects, disableOn404, where, problems), after));
        return new HttpCheckSteps(out);
    }

    /**
     * The expect rules of a segment; a log-format string or {@code status-code} expression that does not compile is a
     * problem reported at its rule's line ({@code where}, the segment's request, for a rule without one).
     */
    private static Expectations expectations(List<Expect> expects, boolean disableOn404, SourceRef where, List<TcpCheckPlan.Problem> problems) {
        try {
            return new Expectations(expects, disableOn404);
        } catch (Expectations.RuleProblem e) {
            SourceRef at = e.rule().where() != null ? e.rule().where() : where;
            TcpCheckPlan.Problem p = new TcpCheckPlan.Problem(at, "'http-check expect' : " + e.getMessage());
            if (problems == null) {
                throw p;
            }
            problems.add(p);
            return new Expectations(List.of(), disableOn404);
        }
    }

    /** The messages of the values that do not compile, as {@code -c} prints them (where: the connect rules' lines). */
    static List<TcpCheckPlan.Problem> problems(HealthChecks.HttpCheck http) {
        List<TcpCheckPlan.Problem> found = new ArrayList<>();
        compile(http, false, found);
        return found;
    }

    private static Request request(HealthChecks.Request r, List<TcpCheckPlan.Problem> problems) {
        List<Header> hs = new ArrayList<>(r.headers().size());
        for (HealthChecks.Header h : r.headers()) {
            hs.add(new Header(h.name(), h.value(), h.value().indexOf('%') >= 0 ? format(r, h.value(), problems) : null));
        }
        // HAProxy's defaults for what a later send does not say (the first one has the option's)
        String uri = r.uri() == null ? "/" : r.uri();
        return new Request(r.method() == null ? "OPTIONS" : r.method(), uri, r.uriLf() ? format(r, uri, problems) : null,
                r.version() == null ? "HTTP/1.0" : r.version(), hs, r.body(), r.bodyLf() ? format(r, r.body(), problems) : null);
    }

    private static CheckSamples.Format format(HealthChecks.Request r, String text, List<TcpCheckPlan.Problem> problems) {
        try {
            return CheckSamples.Format.compile(text);
        } catch (IllegalArgumentException e) {
            TcpCheckPlan.Problem p = new TcpCheckPlan.Problem(r.where(), "'http-check send' : " + e.getMessage() + ".");
            if (problems == null) {
                throw p;
            }
            problems.add(p);
            return null;
        }
    }

    int size() {
        return segments.size();
    }

    Segment segment(int i) {
        return segments.get(i);
    }
}

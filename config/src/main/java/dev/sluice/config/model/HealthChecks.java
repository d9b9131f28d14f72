package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The health-check settings of a backend: the HTTP check ({@code option httpchk}, {@code http-check send|expect}) or
 * the tcp-check rule set ({@code option tcp-check} and the protocol options), both null for a plain connection
 * check; {@code log} is {@code option log-health-checks}; {@code sendState} adds {@code X-Haproxy-Server-State};
 * {@code disableOn404} makes a 404 put a running server in NOLB; {@code external} is {@code option external-check} (null:
 * none; then http and tcp are null).
 */
public record HealthChecks(HttpCheck http, boolean log, boolean sendState, boolean disableOn404, TcpCheck tcp, ExternalCheck external) {

    public static final HealthChecks NONE = new HealthChecks(null, false, false, false);

    public HealthChecks(HttpCheck http, boolean log, boolean sendState, boolean disableOn404) {
        this(http, log, sendState, disableOn404, null);
    }

    public HealthChecks(HttpCheck http, boolean log, boolean sendState, boolean disableOn404, TcpCheck tcp) {
        this(http, log, sendState, disableOn404, tcp, null);
    }

    /**
     * {@code option external-check}: each check runs {@code command} (found in {@code path}, HAProxy's
     * {@code external-check path}, when it has no '/': "" when unset, as HAProxy's default) and its exit status 0 passes.
     * {@code forkAllowed} is the global {@code insecure-fork-wanted}: without it no program is started and every check
     * fails, as in HAProxy whose process may not fork then.
     */
    public record ExternalCheck(String command, String path, boolean forkAllowed) {
    }

    /**
     * The request of an HTTP check and the rules its response must pass. {@code headers} are name/value pairs in
     * order; {@code body} is null for none. {@code expects} empty means HAProxy's implicit rule: a 2xx or 3xx status.
     * {@code connect} is {@code http-check connect} (null: none, the server's check settings say where and how);
     * {@code fcgi}: its {@code proto fcgi}, the check speaks FastCGI to the backend's application.
     */
    public record HttpCheck(String method, String uri, String version, List<Header> headers, String body, List<Expect> expects,
            TcpCheck.Connect connect, boolean fcgi, List<Step> steps) {
        public static final HttpCheck DEFAULT = new HttpCheck("OPTIONS", "/", "HTTP/1.0", List.of(), null, List.of());

        public HttpCheck {
            headers = List.copyOf(headers);
            expects = List.copyOf(expects);
            steps = List.copyOf(steps);
        }

        /** A single-step check ({@code steps} empty). */
        public HttpCheck(String method, String uri, String version, List<Header> headers, String body, List<Expect> expects,
                TcpCheck.Connect connect, boolean fcgi) {
            this(method, uri, version, headers, body, expects, connect, fcgi, List.of());
        }

        /** Without {@code http-check connect}. */
        public HttpCheck(String method, String uri, String version, List<Header> headers, String body, List<Expect> expects) {
            this(method, uri, version, headers, body, expects, null, false);
        }

        /** Whether the check is HAProxy's rule list played step by step (else one request on one connection). */
        public boolean multiStep() {
            return !steps.isEmpty();
        }
    }

    /**
     * One step of a multi-step HTTP check ({@link HttpCheck#steps}), in configuration order: a connection, a request, an
     * expect rule on its response, a variable set or unset.
     */
    public sealed interface Step permits Connect, Request, Expect, Var {
    }

    /**
     * {@code http-check connect}; null {@code rule}: HAProxy's implicit first connect (the server's check settings).
     * {@code proto} is its {@code proto} ({@code h1}, {@code h2}, {@code fcgi}; null: none, the server's or ALPN's).
     */
    public record Connect(TcpCheck.Connect rule, String proto) implements Step {
        public Connect(TcpCheck.Connect rule) {
            this(rule, null);
        }
    }

    /**
     * {@code http-check send} (merged with {@code option httpchk} for the first one): {@code uri} and {@code body} are
     * log-format strings when {@code uriLf}/{@code bodyLf}; a header value holding a {@code %} is a log-format string.
     */
    public record Request(SourceRef where, String method, String uri, boolean uriLf, String version, List<Header> headers, String body,
            boolean bodyLf) implements Step {
        public Request {
            headers = List.copyOf(headers);
        }
    }

    /** {@code http-check set-var|set-var-fmt|unset-var}. */
    public record Var(TcpCheck.SetVar rule) implements Step {
    }

    public record Header(String name, String value) {
    }

    /**
     * One {@code http-check expect} rule. {@code kind} says which of the other fields apply: {@code codes} (pairs of
     * inclusive bounds) for STATUS, {@code pattern} (a regex source for RSTATUS and RSTRING, the text for STRING), and
     * for HDR/FHDR the name and the optional value with how each matches ({@code nameLf}/{@code valueLf}: the pattern is
     * a log-format string, {@code name-lf}/{@code value-lf}). Status overrides are check status codes (L7OK ...), null
     * when unset; {@code minRecv} is -1 when unset. {@code onSuccess}/{@code onError} are log-format strings that become
     * the check's message, {@code statusCode} a sample expression that becomes its code (null: unset); {@code where} is
     * the rule's line (null for the implicit rule).
     */
    public record Expect(Kind kind, boolean inverse, int[] codes, String pattern, Match nameMatch, String name, Match valueMatch,
            String value, String comment, String okStatus, String errorStatus, String timeoutStatus, int minRecv, boolean nameLf,
            boolean valueLf, String onSuccess, String onError, String statusCode, SourceRef where) implements Step {

        /** Without log-format patterns, messages nor status-code. */
        public Expect(Kind kind, boolean inverse, int[] codes, String pattern, Match nameMatch, String name, Match valueMatch,
                String value, String comment, String okStatus, String errorStatus, String timeoutStatus, int minRecv) {
            this(kind, inverse, codes, pattern, nameMatch, name, valueMatch, value, comment, okStatus, errorStatus, timeoutStatus, minRecv, false,
                    false, null, null, null, null);
        }

        /** The same rule with {@code comment}. */
        public Expect withComment(String c) {
            return new Expect(kind, inverse, codes, pattern, nameMatch, name, valueMatch, value, c, okStatus, errorStatus, timeoutStatus, minRecv,
                    nameLf, valueLf, onSuccess, onError, statusCode, where);
        }

        /** Whether the rule renders log-format strings or evaluates samples at each check (it then needs the check's session). */
        public boolean samples() {
            return kind == Kind.STRING_LF || nameLf || valueLf || onSuccess != null || onError != null || statusCode != null;
        }

        /** {@code STRING_LF}: {@code string-lf}, the pattern a log-format string. */
        public enum Kind { STATUS, RSTATUS, STRING, RSTRING, STRING_LF, HDR, FHDR }

        /** How a header name or value is compared ({@code -m}); names always without case. */
        public enum Match { STR, BEG, END, SUB, REG }

        @Override
        public boolean equals(Object o) {
            return o instanceof Expect e && kind == e.kind && inverse == e.inverse && Arrays.equals(codes, e.codes)
                    && Objects.equals(pattern, e.pattern) && nameMatch == e.nameMatch && Objects.equals(name, e.name)
                    && valueMatch == e.valueMatch && Objects.equals(value, e.value) && Objects.equals(comment, e.comment)
                    && Objects.equals(okStatus, e.okStatus) && Objects.equals(errorStatus, e.errorStatus)
                    && Objects.equals(timeoutStatus, e.timeoutStatus) && minRecv == e.minRecv && nameLf == e.nameLf && valueLf == e.valueLf
                    && Objects.equals(onSuccess, e.onSuccess) && Objects.equals(onError, e.onError) && Objects.equals(statusCode, e.statusCode);
        }

        @Override
        public int hashCode() {
            return Objects.hash(kind, inverse, Arrays.hashCode(codes), pattern, name, value);
        }
    }
}

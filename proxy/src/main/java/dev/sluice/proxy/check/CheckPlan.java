package dev.sluice.proxy.check;

import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.config.model.HealthChecks;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * What the checks of one backend share: the HTTP request (built once; only {@code X-Haproxy-Server-State} is
 * rendered per check) or the tcp-check rules ({@link TcpCheckPlan}), the compiled expect rules, the timeouts and
 * whether every check result is logged.
 * Immutable.
 */
public final class CheckPlan {
    private final Backend backend;
    private final HealthChecks config;
    private final Expectations expectations;
    /** The request line and configured fields, then (after the state field) the framing fields, the blank line and the body. */
    private final byte[] head;
    private final byte[] tail;
    private final boolean headRequest;
    private final String node;
    private final long timeoutCheck;
    private final long timeoutConnect;
    private final int bufsize;
    /** The tcp-check rules ({@code option tcp-check}, a protocol option), null for an HTTP or a connection check. */
    private final TcpCheckPlan tcp;
    /** {@code http-check connect}, compiled; null: none. */
    private final TcpCheckPlan.Connect httpConnect;
    /** A multi-step HTTP check, compiled; null: the single-step check ({@link #request}). */
    private final HttpCheckSteps httpSteps;

    /** The process's variables and environment, which tcp-check rules read and set ({@code proc.}, {@code env()}). */
    private ProcScope process = new ProcScope();

    /** Shares the runtime's process scope with the checks of this plan; before they start. */
    public CheckPlan process(ProcScope scope) {
        this.process = scope;
        return this;
    }

    ProcScope process() {
        return process;
    }

    public CheckPlan(Backend backend, String node, int bufsize) {
        this.backend = backend;
        this.config = backend.config().checks();
        this.expectations = Expectations.of(config);
        this.tcp = config.tcp() == null ? null : TcpCheckPlan.compile(config.tcp());
        this.node = node;
        this.bufsize = bufsize;
        Timeouts t = backend.config().timeouts();
        this.timeoutCheck = t.check() == Timeouts.UNSET ? 0 : t.check();
        this.timeoutConnect = t.connect() == Timeouts.UNSET ? 0 : t.connect();
        HealthChecks.HttpCheck http = config.http();
        this.httpConnect = http == null || http.connect() == null ? null : TcpCheckPlan.connect(http.connect(), http.connect().comment());
        this.httpSteps = http == null || !http.multiStep() ? null : HttpCheckSteps.compile(http, config.disableOn404());
        if (http == null) {
            head = null;
            tail = null;
            headRequest = false;
            return;
        }
        headRequest = http.method().equals("HEAD");
        StringBuilder h = new StringBuilder(64).append(http.method()).append(' ').append(http.uri()).append(' ').append(http.version())
                .append("\r\n");
        boolean http11 = !http.version().equals("HTTP/1.0");
        boolean connection = false;
        for (HealthChecks.Header f : http.headers()) {
            String name = f.name().toLowerCase(Locale.ROOT);
            if (name.equals("connection")) {
                connection = true;
                // the HTTP/1 encoder drops what is the version's default, as HAProxy's does
                if (http11 && f.value().equalsIgnoreCase("keep-alive") || !http11 && f.value().equalsIgnoreCase("close")) {
                    continue;
                }
            }
            h.append(name).append(": ").append(f.value()).append("\r\n");
        }
        this.head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
        StringBuilder tl = new StringBuilder(48);
        byte[] body = http.body() == null ? new byte[0] : http.body().getBytes(StandardCharsets.ISO_8859_1);
        if (http.body() != null) {
            tl.append("content-length: ").append(body.length).append("\r\n");
        }
        if (http11 && !connection) {
            // checks never keep their connection
            tl.append("connection: close\r\n");
        }
        tl.append("\r\n");
        byte[] t1 = tl.toString().getBytes(StandardCharsets.ISO_8859_1);
        this.tail = new byte[t1.length + body.length];
        System.arraycopy(t1, 0, tail, 0, t1.length);
        System.arraycopy(body, 0, tail, t1.length, body.length);
    }

    public Backend backend() {
        return backend;
    }

    /** {@code http-check connect ... proto fcgi}: the HTTP check speaks FastCGI whatever the server's {@code proto}. */
    boolean httpFcgi() {
        return config.http() != null && config.http().fcgi();
    }

    /** {@code http-check connect}: where and how an HTTP check connects; null: as the server's check settings say. */
    TcpCheckPlan.Connect httpConnect() {
        return httpConnect;
    }

    /** The steps of a multi-step HTTP check, or null. */
    HttpCheckSteps httpSteps() {
        return httpSteps;
    }

    /** The {@code X-Haproxy-Server-State} value for a check of {@code check}'s server, or null without send-state. */
    String state(HealthCheck check) {
        return config.sendState() ? stateField(check) : null;
    }

    /**
     * The bytes of a check request as the single-step check builds them (see the constructor), for a multi-step check's
     * rendered values; {@code state} the {@code X-Haproxy-Server-State} value or null.
     */
    static byte[] requestBytes(String method, String uri, String version, java.util.List<HealthChecks.Header> headers, String body, String state) {
        StringBuilder h = new StringBuilder(128).append(method).append(' ').append(uri).append(' ').append(version).append("\r\n");
        boolean http11 = !version.equals("HTTP/1.0");
        boolean connection = false;
        for (HealthChecks.Header f : headers) {
            String name = f.name().toLowerCase(Locale.ROOT);
            if (name.equals("connection")) {
                connection = true;
                if (http11 && f.value().equalsIgnoreCase("keep-alive") || !http11 && f.value().equalsIgnoreCase("close")) {
                    continue;
                }
            }
            h.append(name).append(": ").append(f.value()).append("\r\n");
        }
        if (state != null) {
            h.append("x-haproxy-server-state: ").append(state).append("\r\n");
        }
        byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.ISO_8859_1);
        if (body != null) {
            h.append("content-length: ").append(b.length).append("\r\n");
        }
        if (http11 && !connection) {
            h.append("connection: close\r\n");
        }
        h.append("\r\n");
        byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = java.util.Arrays.copyOf(head, head.length + b.length);
        System.arraycopy(b, 0, out, head.length, b.length);
        return out;
    }

    /** The tcp-check rules the checks play, or null. */
    public TcpCheckPlan tcp() {
        return tcp;
    }

    /** Whether checks send an HTTP request (else a connection, or the tcp-check rules, are the whole check). */
    public boolean http() {
        return head != null;
    }

    public Expectations expectations() {
        return expectations;
    }

    /** {@code option log-health-checks}. */
    public boolean logsEveryCheck() {
        return config.log();
    }

    /** The check request was HEAD: its response has no body. */
    public boolean headRequest() {
        return headRequest;
    }

    /** {@code timeout check} in milliseconds, 0 when unset. */
    public long timeoutCheck() {
        return timeoutCheck;
    }

    /** {@code timeout connect} in milliseconds, 0 when unset. */
    public long timeoutConnect() {
        return timeoutConnect;
    }

    /** How much of a response is read (HAProxy: {@code tune.bufsize}). */
    public int bufsize() {
        return bufsize;
    }

    /** The request bytes for one check of {@code check}'s server. */
    byte[] request(HealthCheck check) {
        if (!config.sendState()) {
            byte[] out = new byte[head.length + tail.length];
            System.arraycopy(head, 0, out, 0, head.length);
            System.arraycopy(tail, 0, out, head.length, tail.length);
            return out;
        }
        byte[] state = ("x-haproxy-server-state: " + stateField(check) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = new byte[head.length + state.length + tail.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(state, 0, out, head.length, state.length);
        System.arraycopy(tail, 0, out, head.length + state.length, tail.length);
        return out;
    }

    /**
     * HAProxy's {@code X-Haproxy-Server-State} value: {@code UP 1/3; address=127.0.0.1; port=8080; name=be/s1; node=host;
     * weight=1/2; scur=0/0; qcur=0}.
     */
    String stateField(HealthCheck check) {
        Server s = check.server();
        StringBuilder b = new StringBuilder(128).append(check.stateText());
        String ip = s.address().getAddress().getHostAddress();
        b.append("; address=").append(ip).append("; port=").append(s.address().getPort()).append("; name=").append(backend.name()).append('/')
                .append(s.name()).append("; node=").append(node).append("; weight=").append(s.weight()).append('/').append(backend.usableWeight())
                .append("; scur=").append(s.currentSessions()).append('/').append(backend.activeStreams() - backend.queue().length())
                .append("; qcur=").append(s.queue().length());
        int throttle = s.throttle();
        if (throttle >= 0) {
            b.append("; throttle=").append(throttle).append('%');
        }
        return b.toString();
    }
}

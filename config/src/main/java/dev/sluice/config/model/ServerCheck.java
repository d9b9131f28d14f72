package dev.sluice.config.model;

/**
 * The health-check options of a {@code server} line ({@code default-server} values applied). {@code enabled} is
 * {@code check}; intervals are in milliseconds ({@code fastinter} and {@code downinter} 0 when unset: {@code inter}
 * is used); {@code port} is 0 and {@code addr} null when the check goes to the server's own address. {@code ssl} is
 * {@code check-ssl}: a check with its own address or port only speaks TLS with it, otherwise it inherits the
 * server's {@code ssl}, as in HAProxy. {@code sni} is {@code check-sni} (null: none). {@code sendProxy} is
 * {@code check-send-proxy}: the check's connection starts with a PROXY protocol header even when it goes elsewhere
 * (without it, a check sends one when the server does and the check is not {@link #redirected()}). {@code agent} is the
 * server's agent check ({@link ServerAgent#NONE} when it has none). {@code observe} is the analysis of its live traffic and
 * what its state changes do to its streams ({@link ServerObserve#DEFAULT}: nothing). {@code proto} is {@code check-proto}
 * (h1, h2 or fcgi: the checks' protocol whatever the server's; null: the server's), {@code alpn} {@code check-alpn} (the
 * protocols a TLS check offers; empty: the server's).
 */
public record ServerCheck(boolean enabled, long inter, long fastinter, long downinter, int rise, int fall, int port, String addr,
        boolean ssl, String sni, boolean sendProxy, ServerAgent agent, ServerObserve observe, String proto, java.util.List<String> alpn) {

    /** HAProxy's defaults: no check, every 2 s, rise 2, fall 3. */
    public static final ServerCheck DEFAULT = new ServerCheck(false, 2000, 0, 0, 2, 3, 0, null, false, null, false);

    public ServerCheck {
        agent = agent == null ? ServerAgent.NONE : agent;
        observe = observe == null ? ServerObserve.DEFAULT : observe;
        alpn = alpn == null ? java.util.List.of() : java.util.List.copyOf(alpn);
    }

    public ServerCheck(boolean enabled, long inter, long fastinter, long downinter, int rise, int fall, int port, String addr,
            boolean ssl, String sni, boolean sendProxy, ServerAgent agent, ServerObserve observe) {
        this(enabled, inter, fastinter, downinter, rise, fall, port, addr, ssl, sni, sendProxy, agent, observe, null, null);
    }

    public ServerCheck(boolean enabled, long inter, long fastinter, long downinter, int rise, int fall, int port, String addr,
            boolean ssl, String sni, boolean sendProxy, ServerAgent agent) {
        this(enabled, inter, fastinter, downinter, rise, fall, port, addr, ssl, sni, sendProxy, agent, ServerObserve.DEFAULT);
    }

    public ServerCheck(boolean enabled, long inter, long fastinter, long downinter, int rise, int fall, int port, String addr,
            boolean ssl, String sni, boolean sendProxy) {
        this(enabled, inter, fastinter, downinter, rise, fall, port, addr, ssl, sni, sendProxy, ServerAgent.NONE);
    }

    public ServerCheck(boolean enabled, long inter, long fastinter, long downinter, int rise, int fall, int port, String addr,
            boolean ssl, String sni) {
        this(enabled, inter, fastinter, downinter, rise, fall, port, addr, ssl, sni, false);
    }

    /** The interval while the server is fully up or fully down, or in between ({@code fastinter}). */
    public long interval(boolean fullyUp, boolean fullyDown) {
        if (fullyUp) {
            return inter;
        }
        if (fullyDown) {
            return downinter > 0 ? downinter : inter;
        }
        return fastinter > 0 ? fastinter : inter;
    }

    /** Whether the check goes somewhere else than the server's traffic (then it does not inherit the server's TLS). */
    public boolean redirected() {
        return port > 0 || addr != null;
    }
}

package dev.sluice.config.model;

/**
 * Proxy options that change how requests are served: {@code option prefer-last-server} (backend side: a balanced
 * request goes to the server its client connection holds a private connection to) and {@code fullconn} (backend side:
 * the load at which servers with a {@code minconn} reach their {@code maxconn}; 0 when not set, HAProxy's default then
 * applies: a tenth of the maxconn of the frontends that use the backend), {@code option abortonclose} (backend side: a
 * client's half-close aborts a request not yet answered), {@code option contstats} (frontend side: byte counters follow
 * a transfer instead of growing at its end), {@code option http-ignore-probes} (frontend side: a connection that sends no
 * byte is neither answered, logged nor counted as an error).
 */
public record ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes) {

    public static final ProxyOptions DEFAULT = new ProxyOptions(false, 0, false, false, false);
}

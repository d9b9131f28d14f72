package dev.sluice.config.model;

/**
 * Proxy options that change how requests are served: {@code option prefer-last-server} (backend side: a balanced
 * request goes to the server its client connection holds a private connection to).
 */
public record ProxyOptions(boolean preferLastServer) {

    public static final ProxyOptions DEFAULT = new ProxyOptions(false);
}

package dev.sluice.proxy.metrics;

import java.util.Locale;

/**
 * The scopes of HAProxy's exporter ({@code scope=<name>} on the scrape URI). A family belongs to the scope its
 * name's second word names ({@code haproxy_server_weight}: server, {@code sluice_frontend_quic_...}: frontend;
 * {@code haproxy_process_*} and every other word, such as {@code sluice_pool_*} or
 * {@code sluice_prometheus_omitted_series}, are global).
 */
public enum Scope {
    GLOBAL, FRONTEND, LISTENER, BACKEND, SERVER, STICKTABLE;

    /** The name in {@code scope=<name>}. */
    public String keyword() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The scope of a family, from its name. */
    public static Scope of(String family) {
        int a = family.indexOf('_');
        int b = a < 0 ? -1 : family.indexOf('_', a + 1);
        if (b < 0) {
            return GLOBAL;
        }
        return switch (family.substring(a + 1, b)) {
            case "frontend" -> FRONTEND;
            case "listener" -> LISTENER;
            case "backend" -> BACKEND;
            case "server" -> SERVER;
            case "sticktable" -> STICKTABLE;
            default -> GLOBAL;
        };
    }
}

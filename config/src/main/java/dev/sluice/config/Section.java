package dev.sluice.config;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The configuration sections Sluice parses. */
public enum Section {
    GLOBAL, DEFAULTS, FRONTEND, BACKEND, LISTEN, HTTP_ERRORS, USERLIST, CACHE, RESOLVERS, PEERS, RING, LOG_FORWARD, MAILERS, PROGRAM, FCGI_APP;

    public static final Set<Section> PROXIES = EnumSet.of(DEFAULTS, FRONTEND, BACKEND, LISTEN);
    /** Sections where frontend keywords apply (defaults pass them on). */
    public static final Set<Section> FRONTEND_SIDE = EnumSet.of(DEFAULTS, FRONTEND, LISTEN);
    /** Sections where backend keywords apply (defaults pass them on). */
    public static final Set<Section> BACKEND_SIDE = EnumSet.of(DEFAULTS, BACKEND, LISTEN);

    public String keyword() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}

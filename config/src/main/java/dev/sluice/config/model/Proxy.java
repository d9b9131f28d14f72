package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * One frontend, backend or listen section with the defaults it inherited already applied. Frontend-only
 * parts are empty on a backend and backend-only parts are empty on a frontend. {@code retries} is what the
 * backend side does with failed requests ({@code retries}, {@code retry-on}, {@code option redispatch}); {@code checks} how
 * it checks its servers' health, {@code cookie} its persistence cookie (null: none), {@code options} the options of
 * {@link ProxyOptions}; {@code useServers} its {@code use-server} rules, in order; {@code emailAlert} its {@code email-alert} settings (null: none); {@code directory} the directory its lines' relative file paths start from ({@code default-path}; null:
 * the one the process was started in), for the files its rules open when they are compiled (maps, pattern files);
 * {@code fcgiApp} the FastCGI application of a backend ({@code use-fcgi-app}; null: none).
 */
public record Proxy(
        String name,
        ProxyKind kind,
        SourceRef where,
        Mode mode,
        List<Bind> binds,
        int maxconn,
        Timeouts timeouts,
        HttpOptions http,
        List<Acl> acls,
        List<HttpRule> httpRequestRules,
        List<HttpRule> httpResponseRules,
        List<HttpRule> httpAfterResponseRules,
        List<UseBackend> useBackends,
        String defaultBackend,
        Balance balance,
        List<Server> servers,
        Logging logging,
        ErrorPages errors,
        StickTableDecl stickTable,
        TcpRules tcpRules,
        Monitor monitor,
        List<StickRule> stickRules,
        StatsPage stats,
        Retries retries,
        HealthChecks checks,
        Cookie cookie,
        ProxyOptions options,
        String description,
        String directory,
        List<UseServer> useServers,
        EmailAlert emailAlert,
        FcgiApp fcgiApp) {

    public Proxy(String name, ProxyKind kind, SourceRef where, Mode mode, List<Bind> binds, int maxconn, Timeouts timeouts, HttpOptions http,
            List<Acl> acls, List<HttpRule> httpRequestRules, List<HttpRule> httpResponseRules, List<HttpRule> httpAfterResponseRules,
            List<UseBackend> useBackends, String defaultBackend, Balance balance, List<Server> servers, Logging logging, ErrorPages errors,
            StickTableDecl stickTable, TcpRules tcpRules, Monitor monitor, List<StickRule> stickRules, StatsPage stats, Retries retries,
            HealthChecks checks, Cookie cookie, ProxyOptions options, String description, String directory, List<UseServer> useServers) {
        this(name, kind, where, mode, binds, maxconn, timeouts, http, acls, httpRequestRules, httpResponseRules, httpAfterResponseRules,
                useBackends, defaultBackend, balance, servers, logging, errors, stickTable, tcpRules, monitor, stickRules, stats, retries, checks,
                cookie, options, description, directory, useServers, null, null);
    }

    public Proxy(String name, ProxyKind kind, SourceRef where, Mode mode, List<Bind> binds, int maxconn, Timeouts timeouts, HttpOptions http,
            List<Acl> acls, List<HttpRule> httpRequestRules, List<HttpRule> httpResponseRules, List<HttpRule> httpAfterResponseRules,
            List<UseBackend> useBackends, String defaultBackend, Balance balance, List<Server> servers, Logging logging, ErrorPages errors,
            StickTableDecl stickTable, TcpRules tcpRules, Monitor monitor, List<StickRule> stickRules, StatsPage stats, Retries retries,
            HealthChecks checks, Cookie cookie, ProxyOptions options, String description, String directory) {
        this(name, kind, where, mode, binds, maxconn, timeouts, http, acls, httpRequestRules, httpResponseRules, httpAfterResponseRules,
                useBackends, defaultBackend, balance, servers, logging, errors, stickTable, tcpRules, monitor, stickRules, stats, retries, checks,
                cookie, options, description, directory, List.of());
    }

    public Proxy(String name, ProxyKind kind, SourceRef where, Mode mode, List<Bind> binds, int maxconn, Timeouts timeouts, HttpOptions http,
            List<Acl> acls, List<HttpRule> httpRequestRules, List<HttpRule> httpResponseRules, List<HttpRule> httpAfterResponseRules,
            List<UseBackend> useBackends, String defaultBackend, Balance balance, List<Server> servers, Logging logging, ErrorPages errors,
            StickTableDecl stickTable, TcpRules tcpRules, Monitor monitor, List<StickRule> stickRules, StatsPage stats, Retries retries,
            HealthChecks checks, Cookie cookie, ProxyOptions options, String description) {
        this(name, kind, where, mode, binds, maxconn, timeouts, http, acls, httpRequestRules, httpResponseRules, httpAfterResponseRules,
                useBackends, defaultBackend, balance, servers, logging, errors, stickTable, tcpRules, monitor, stickRules, stats, retries, checks,
                cookie, options, description, null);
    }

    public Proxy(String name, ProxyKind kind, SourceRef where, Mode mode, List<Bind> binds, int maxconn, Timeouts timeouts, HttpOptions http,
            List<Acl> acls, List<HttpRule> httpRequestRules, List<HttpRule> httpResponseRules, List<HttpRule> httpAfterResponseRules,
            List<UseBackend> useBackends, String defaultBackend, Balance balance, List<Server> servers, Logging logging, ErrorPages errors,
            StickTableDecl stickTable, TcpRules tcpRules, Monitor monitor, List<StickRule> stickRules, StatsPage stats, Retries retries,
            HealthChecks checks, Cookie cookie, ProxyOptions options) {
        this(name, kind, where, mode, binds, maxconn, timeouts, http, acls, httpRequestRules, httpResponseRules, httpAfterResponseRules,
                useBackends, defaultBackend, balance, servers, logging, errors, stickTable, tcpRules, monitor, stickRules, stats, retries, checks,
                cookie, options, null);
    }

    public Proxy {
        binds = List.copyOf(binds);
        acls = List.copyOf(acls);
        httpRequestRules = List.copyOf(httpRequestRules);
        httpResponseRules = List.copyOf(httpResponseRules);
        httpAfterResponseRules = List.copyOf(httpAfterResponseRules);
        useBackends = List.copyOf(useBackends);
        servers = List.copyOf(servers);
        stickRules = List.copyOf(stickRules);
        useServers = useServers == null ? List.of() : List.copyOf(useServers);
    }

    /** A proxy without stick table, tcp-request rules or monitor URI. */
    public Proxy(String name, ProxyKind kind, SourceRef where, Mode mode, List<Bind> binds, int maxconn, Timeouts timeouts, HttpOptions http,
            List<Acl> acls, List<HttpRule> httpRequestRules, List<HttpRule> httpResponseRules, List<HttpRule> httpAfterResponseRules,
            List<UseBackend> useBackends, String defaultBackend, Balance balance, List<Server> servers, Logging logging, ErrorPages errors) {
        this(name, kind, where, mode, binds, maxconn, timeouts, http, acls, httpRequestRules, httpResponseRules, httpAfterResponseRules,
                useBackends, defaultBackend, balance, servers, logging, errors, null, TcpRules.NONE, Monitor.NONE, List.of(), StatsPage.NONE, Retries.DEFAULT,
                HealthChecks.NONE, null, ProxyOptions.DEFAULT);
    }

    /** The same proxy with other binds (the daemon's, once their owner names are resolved). */
    public Proxy withBinds(List<Bind> b) {
        return new Proxy(name, kind, where, mode, b, maxconn, timeouts, http, acls, httpRequestRules, httpResponseRules, httpAfterResponseRules,
                useBackends, defaultBackend, balance, servers, logging, errors, stickTable, tcpRules, monitor, stickRules, stats, retries, checks,
                cookie, options, description, directory, useServers, emailAlert, fcgiApp);
    }
}

package dev.sluice.proxy.runtime;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.h1.H1Limits;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.rules.ForwardFor;
import dev.sluice.proxy.rules.HttpRequestRule;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A frontend at run time: its rules, where its requests go, its timeouts and limits, and its counters.
 * Immutable apart from the counters; shared by every connection it accepts.
 */
public final class Frontend {
    private final Proxy config;
    private final Workers workers;
    private final List<HttpRequestRule> requestRules;
    private final List<Backend> switching;
    private final Backend defaultBackend;
    private final ConnectionLimit limit;
    private final H1Limits h1Limits;
    private final ForwardFor forwardFor;
    private final dev.sluice.proxy.log.AccessLog accessLog;
    private final dev.sluice.proxy.http.ErrorResponses errors;
    final LongAdder connections = new LongAdder();
    final LongAdder requests = new LongAdder();

    public Frontend(Proxy config, Workers workers, List<HttpRequestRule> requestRules, List<Backend> switching, Backend defaultBackend,
            ConnectionLimit limit, H1Limits h1Limits, dev.sluice.proxy.log.AccessLog accessLog) {
        this.config = config;
        this.workers = workers;
        this.requestRules = List.copyOf(requestRules);
        this.switching = List.copyOf(switching);
        this.defaultBackend = defaultBackend;
        this.limit = limit;
        this.h1Limits = h1Limits;
        this.accessLog = accessLog;
        this.errors = new dev.sluice.proxy.http.ErrorResponses(config.errors());
        this.forwardFor = config.http().forwardFor() == null ? null : new ForwardFor(config.http().forwardFor());
    }

    /** The frontend's errorfile pages. */
    public dev.sluice.proxy.http.ErrorResponses errors() {
        return errors;
    }

    /** The access log, or null when the frontend has no log target. */
    public dev.sluice.proxy.log.AccessLog accessLog() {
        return accessLog;
    }

    /** The process-wide connection count (the log's %ac). */
    public int globalConnections() {
        return limit.parentCurrent();
    }

    /** The compiled {@code option forwardfor} of this frontend, or null. */
    public ForwardFor forwardFor() {
        return forwardFor;
    }

    public String name() {
        return config.name();
    }

    public Proxy config() {
        return config;
    }

    public Workers workers() {
        return workers;
    }

    public List<HttpRequestRule> requestRules() {
        return requestRules;
    }

    /** The backend for a request: the first {@code use_backend} rule, else the default backend, else null. */
    public Backend selectBackend() {
        return switching.isEmpty() ? defaultBackend : switching.get(0);
    }

    public ConnectionLimit limit() {
        return limit;
    }

    public H1Limits h1Limits() {
        return h1Limits;
    }

    public Timeouts timeouts() {
        return config.timeouts();
    }

    public HttpOptions http() {
        return config.http();
    }

    public void countConnection() {
        connections.increment();
    }

    public void countRequest() {
        requests.increment();
    }

    public long totalConnections() {
        return connections.sum();
    }

    public long totalRequests() {
        return requests.sum();
    }
}

package dev.sluice.proxy.metrics;

/**
 * What a subsystem gives the Prometheus exporter: at each scrape, the current value of each of its series.
 * A subsystem registers one with {@link PrometheusExporter#register} (through {@code ProxyRuntime.metrics()})
 * and reads its own snapshots there, the ones its admin commands print: the exporter keeps no second set of
 * numbers. Called on the scraping request's event loop; scrapes on different loops run at the same time, so
 * a source reads only what is safe to read from any thread (snapshots, atomics) and takes no lock the request
 * path takes.
 */
@FunctionalInterface
public interface MetricSource {
    void collect(MetricSink sink);
}

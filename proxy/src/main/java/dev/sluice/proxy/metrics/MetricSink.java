package dev.sluice.proxy.metrics;

/**
 * Where a {@link MetricSource} writes one scrape. Names are the final Prometheus names (a counter's ends with
 * {@code _total}); {@code labels} are name, value pairs, the same names in the same order for every series of
 * a family; {@code help} is the family's HELP line.
 */
public interface MetricSink {
    void gauge(String name, String help, double value, String... labels);

    void counter(String name, String help, double value, String... labels);
}

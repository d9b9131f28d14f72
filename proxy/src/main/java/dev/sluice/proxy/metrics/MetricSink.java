package dev.sluice.proxy.metrics;

/**
 * Where a {@link MetricSource} writes one scrape. Names are the final Prometheus names (a counter's ends with
 * {@code _total}); {@code labels} are name, value pairs, the same names in the same order for every series of
 * a family; {@code help} is the family's HELP line.
 *
 * <p>{@code tune.prometheus.max-series} bounds each family by whole objects: a {@link #gauge}/{@link #counter} call
 * writes one object's one series, a {@link #gauges}/{@link #counters} call one object's several series of one
 * family (a server's five states, a proxy's six response classes), which are all written or none.
 */
public interface MetricSink {
    void gauge(String name, String help, double value, String... labels);

    void counter(String name, String help, double value, String... labels);

    /**
     * One object's series of a family, one per value of the label {@code key} ({@code keyValues[i]} has
     * {@code values[i]}), after {@code labels}: all written, or none when the family's bound would be passed.
     */
    void gauges(String name, String help, String key, String[] keyValues, double[] values, String... labels);

    /** {@link #gauges} for a counter family. */
    void counters(String name, String help, String key, String[] keyValues, double[] values, String... labels);

    /**
     * What this scrape asked for. A source may skip the families of scopes not wanted (the sink drops them
     * anyway) and must leave out servers in maintenance when {@link ScrapeQuery#noMaint()} holds.
     */
    ScrapeQuery query();
}

/**
 * The Prometheus exporter ({@code http-request use-service prometheus-exporter}): metric families read from
 * the same counter snapshots as the admin socket, written by Micrometer's Prometheus registry.
 */
package dev.sluice.proxy.metrics;

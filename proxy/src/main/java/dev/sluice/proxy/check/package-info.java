/**
 * Health checks: one {@link dev.sluice.proxy.check.HealthCheck} per checked server, run on an event loop, with
 * HAProxy's health counter, statuses and log lines.
 */
package dev.sluice.proxy.check;

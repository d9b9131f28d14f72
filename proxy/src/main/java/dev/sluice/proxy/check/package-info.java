/**
 * Health checks: one {@link HealthCheck} per checked server, run on an event loop, with
 * HAProxy's health counter, statuses and log lines.
 */
package dev.sluice.proxy.check;

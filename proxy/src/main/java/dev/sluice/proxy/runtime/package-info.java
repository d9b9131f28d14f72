/**
 * Assembles the running proxy from the configuration model (event loops, frontends, backends, servers, checks,
 * listeners, the admin commands, statistics and the exporter), starts it and stops it. The top layer: nothing
 * else of the proxy depends on it.
 */
package dev.sluice.proxy.runtime;

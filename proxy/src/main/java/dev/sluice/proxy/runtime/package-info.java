/**
 * Builds the running proxy from the configuration model: event loops, frontends, backends, servers and
 * listeners; starts it and stops it.
 */
package dev.sluice.proxy.runtime;

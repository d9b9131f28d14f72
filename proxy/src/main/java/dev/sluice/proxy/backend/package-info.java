/**
 * Backends and servers at run time: server selection (load balancing), the per-event-loop idle pools of
 * server connections, and connection establishment with retries.
 */
package dev.sluice.proxy.backend;

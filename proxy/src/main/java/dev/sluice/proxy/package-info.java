/**
 * The Sluice daemon: command line, runtime built from the configuration model, listeners, the HTTP
 * engine, backends and load balancing. Sub-packages split it by concern (see DESIGN.md).
 */
package dev.sluice.proxy;

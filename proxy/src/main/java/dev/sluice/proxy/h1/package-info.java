/**
 * HTTP/1.x connections: the handlers of client connections (front, with the h2c upgrade and lingering close) and
 * of server connections (back). The wire syntax they read and write is {@code http.h1}'s.
 */
package dev.sluice.proxy.h1;

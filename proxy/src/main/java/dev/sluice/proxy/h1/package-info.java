/**
 * HTTP/1.x: the strict parser, the head encoder, and the connection handlers for client connections
 * (front) and server connections (back). The only place that knows HTTP/1 framing.
 */
package dev.sluice.proxy.h1;

/**
 * HTTP/1.1 wire syntax of the message model: the parser (framing, request target, chunked bodies, validity rules),
 * the encoder, their limits and errors, and {@code errorfile} pages (raw HTTP/1 responses). Used by the HTTP/1
 * connections, the health checks and the error pages; depends only on {@code http}.
 */
package dev.sluice.proxy.http.h1;

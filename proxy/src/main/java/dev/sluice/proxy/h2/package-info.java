/**
 * HTTP/2: the client-connection handler (one {@code ClientSide} per stream), the server-connection
 * handler (streams multiplexed over few connections per event loop), request validation and the
 * translation between HTTP/2 header blocks and the protocol-neutral model. The only place that knows
 * HTTP/2.
 */
package dev.sluice.proxy.h2;

/**
 * HTTP/3 client connections on the quic module's listeners: request streams enter the protocol-neutral
 * {@code Stream} model exactly as HTTP/2 streams do, so rules, load balancing and logs see no difference.
 */
package dev.sluice.proxy.h3;

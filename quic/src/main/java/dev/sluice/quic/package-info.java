/**
 * QUIC listeners on Netty's QUIC codec: one UDP socket per event loop, connection IDs that share a prefix per
 * connection, Retry tokens and stateless-reset tokens, and the compact record a closing connection shrinks to.
 */
package dev.sluice.quic;

/**
 * QUIC listeners on Netty's QUIC codec: connection-ID generation, address-validation tokens, stateless
 * resets, and the compact closing-connection record that only re-sends its CONNECTION_CLOSE datagram.
 * Filled by the QUIC issue.
 */
package dev.sluice.quic;

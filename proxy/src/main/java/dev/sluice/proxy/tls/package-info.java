/**
 * TLS: PEM certificates and keys (Bouncy Castle), server contexts of {@code bind ... ssl} with SNI
 * selection, ALPN and session resumption, client contexts of {@code server ... ssl}, on BoringSSL through
 * netty-tcnative (JDK provider as a fallback). Everything costly is computed once at start-up
 * ({@link TlsContexts}); per connection only an engine is created.
 */
package dev.sluice.proxy.tls;

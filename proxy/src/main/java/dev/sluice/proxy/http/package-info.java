/**
 * The protocol-neutral HTTP message model: request and response heads, header fields, versions, status texts,
 * the responses the proxy generates itself, and the syntax of cookie fields ({@code Cookies}).
 * Depends on nothing else of the proxy; the exchange that carries a message is {@code stream}'s.
 */
package dev.sluice.proxy.http;

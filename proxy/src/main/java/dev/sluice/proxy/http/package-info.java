/**
 * The protocol-neutral HTTP message model (heads, header fields, generated responses) and the stream
 * that carries one request/response exchange between a client side and a server side.
 */
package dev.sluice.proxy.http;

/**
 * The request path: a {@link dev.sluice.proxy.stream.Stream} carries one request/response exchange between a
 * client side (an HTTP/1, HTTP/2 or HTTP/3 connection or stream: {@link dev.sluice.proxy.stream.ClientSide})
 * and a server side ({@link dev.sluice.proxy.stream.ServerSide}): it runs the frontend's and backend's rules,
 * picks a server, queues, connects and retries, relays the bodies and logs. The run-time
 * {@link dev.sluice.proxy.stream.Frontend} and its connection rules live here too. Above {@code backend},
 * {@code rules} and {@code log}; below the protocol packages ({@code h1}, {@code h2}, {@code h3}) that drive it.
 */
package dev.sluice.proxy.stream;

/**
 * The request path: a {@link dev.sluice.proxy.stream.Stream} carries one request/response exchange between a
 * client side (an HTTP/1, HTTP/2 or HTTP/3 connection or stream: {@link dev.sluice.proxy.stream.ClientSide})
 * and a server side ({@link dev.sluice.proxy.stream.ServerSide}). The stream is the state machine; its parts each have a
 * class: what rules see of it ({@code StreamTarget}), the request rules and their wait-for-body re-entry
 * ({@code RequestRules}), persistence ({@code Persistence}), the held request body ({@code RequestBody}), the server
 * slot, connection and retries ({@code ServerSlot}, {@code Connecting}, {@code Attempts}), the proxy's own answers
 * ({@code Answers}), response compression ({@code Compression}), counters and timers ({@code Accounting}), how it ended
 * ({@link dev.sluice.proxy.stream.Termination}) and its log line ({@link dev.sluice.proxy.stream.RequestLog}). The run-time
 * {@link dev.sluice.proxy.stream.Frontend} and its connection rules live here too. Above {@code backend},
 * {@code rules} and {@code log}; below the protocol packages ({@code h1}, {@code h2}, {@code h3}) that drive it.
 */
package dev.sluice.proxy.stream;

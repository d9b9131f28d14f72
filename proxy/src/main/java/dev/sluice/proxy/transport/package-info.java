/**
 * The socket transport (epoll or NIO) with its event loop group and channel types, and the index of the event
 * loops ({@link Workers}) by which per-loop state is found. Depends on nothing else of
 * the proxy.
 */
package dev.sluice.proxy.transport;

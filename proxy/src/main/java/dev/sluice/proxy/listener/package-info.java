/**
 * Listeners: TCP sockets bound from {@code bind} lines or inherited as file descriptors, and the
 * connection limits ({@code maxconn}) that pause accepting.
 */
package dev.sluice.proxy.listener;

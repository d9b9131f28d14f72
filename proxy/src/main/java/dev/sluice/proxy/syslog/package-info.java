/**
 * Rings and syslog forwarding: the {@code ring} sections' buffers with their forwarders to TCP syslog servers
 * ({@link dev.sluice.proxy.syslog.RingForwarder}), the {@code log-forward} sections' listeners
 * ({@link dev.sluice.proxy.syslog.LogForwardListener}), {@code show events}, all held by
 * {@link dev.sluice.proxy.syslog.LogServices}, built with each runtime (an in-process reload rebuilds them). None of it
 * runs on an event loop: the rings are written by the log writer thread, the rest runs on its own threads.
 */
package dev.sluice.proxy.syslog;

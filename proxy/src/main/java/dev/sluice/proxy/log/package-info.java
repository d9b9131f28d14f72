/**
 * Access logs: the per-request record, HAProxy's log-format rendering (httplog and friends), syslog
 * framing and the sinks (stdout, stderr, UDP, UNIX datagram). Lines are queued and written by one
 * background thread, so logging never blocks an event loop; a full queue drops lines and counts them.
 */
package dev.sluice.proxy.log;

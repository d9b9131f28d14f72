/**
 * Black-box tests: the packaged daemon started as a real process through the {@code ./sluice} launcher,
 * driven by real clients (raw sockets, the JDK HttpClient, curl) against test origin servers.
 */
package dev.sluice.regtests;

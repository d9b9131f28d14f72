/**
 * What the daemon says about its own faults: exceptions that no handler expected (bugs, not bad input). Below every
 * other package of the proxy; imports nothing of it.
 */
package dev.sluice.proxy.diag;

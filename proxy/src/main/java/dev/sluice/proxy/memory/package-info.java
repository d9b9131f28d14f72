/**
 * The proxy's memory accounting: its pools and budgets (issue 7's {@code pools} module) with the {@code -m}
 * ceiling, Netty's buffer arenas as seen by {@code show pools}, and the {@code show pools} command.
 */
package dev.sluice.proxy.memory;

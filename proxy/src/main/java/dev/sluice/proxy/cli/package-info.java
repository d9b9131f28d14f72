/** The command line: HAProxy-compatible flags, configuration check, daemon mode and the main entry point. */
package dev.sluice.proxy.cli;

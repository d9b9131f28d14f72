/**
 * The HAProxy configuration language: text in, a list of diagnostics and an immutable model out.
 * No Netty here; the proxy's runtime turns the model into running objects.
 */
package dev.sluice.config;

/**
 * Traffic rules compiled from the configuration: {@code http-request} actions and the content switching
 * that picks a backend. Compiled once into small objects; evaluated on the request path without parsing.
 */
package dev.sluice.proxy.rules;

/**
 * HAProxy 2.6's HTTP cache: the {@code cache} sections' stores ({@link dev.sluice.proxy.cache.HttpCache}), what may be
 * stored and served (HAProxy's cacheability rules, Vary's secondary keys) and {@code show cache}. Shared by every event loop.
 */
package dev.sluice.proxy.cache;

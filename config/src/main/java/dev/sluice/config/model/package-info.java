/**
 * The immutable configuration model: records and enums produced by the parser and read by the proxy's
 * runtime. Nothing here changes after parsing; a reload builds a new model.
 */
package dev.sluice.config.model;

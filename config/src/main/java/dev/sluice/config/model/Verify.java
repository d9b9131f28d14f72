package dev.sluice.config.model;

/** Peer certificate verification: {@code verify none|optional|required}. */
public enum Verify {
    NONE, OPTIONAL, REQUIRED
}

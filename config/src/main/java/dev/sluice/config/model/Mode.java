package dev.sluice.config.model;

/** {@code mode http} (layer 7) or {@code mode tcp} (layer 4). */
public enum Mode {
    HTTP, TCP
}

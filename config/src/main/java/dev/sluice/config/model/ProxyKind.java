package dev.sluice.config.model;

import java.util.Locale;

/** The kind of a proxy section; {@code listen} is a frontend and a backend in one. */
public enum ProxyKind {
    FRONTEND, BACKEND, LISTEN;

    public boolean hasFrontend() {
        return this != BACKEND;
    }

    public boolean hasBackend() {
        return this != FRONTEND;
    }

    public String keyword() {
        return name().toLowerCase(Locale.ROOT);
    }
}

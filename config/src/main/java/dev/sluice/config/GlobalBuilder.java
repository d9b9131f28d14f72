package dev.sluice.config;

import dev.sluice.config.model.Global;

/** The mutable {@code global} section while parsing; {@link #build} freezes it. Parse-time only. */
public final class GlobalBuilder {
    public int maxconn;
    public int nbthread;
    public boolean daemon;
    public String pidfile;

    public Global build() {
        return new Global(maxconn, nbthread, daemon, pidfile);
    }
}

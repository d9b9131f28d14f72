package dev.sluice.proxy.stream;

/** Whether the process may splice at all (HAProxy's {@code -dS} turns it off; {@code nosplice} is per configuration). */
public final class Splicing {
    private static volatile boolean disabled;

    private Splicing() {
    }

    public static boolean enabled() {
        return !disabled;
    }

    /** {@code -dS}: no kernel splicing, whatever the configuration says. */
    public static void disable() {
        disabled = true;
    }
}

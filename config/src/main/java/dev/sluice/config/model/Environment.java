package dev.sluice.config.model;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * What the {@code global} section's {@code setenv}, {@code presetenv}, {@code unsetenv} and {@code resetenv} did to the
 * environment the process inherited, in order: the variables set, those removed, and whether {@code resetenv} removed
 * every other one ({@code cleared}). HAProxy changes its own environment; Sluice keeps the changes beside the inherited
 * environment, which later lines' {@code "${VAR}"}, {@code .if defined(VAR)} and the {@code env()} fetch read
 * through {@link #get}. Immutable; each change makes a new one.
 */
public record Environment(boolean cleared, Map<String, String> set, Set<String> unset) {
    /** The inherited environment, unchanged. */
    public static final Environment INHERITED = new Environment(false, Map.of(), Set.of());

    public Environment {
        set = Map.copyOf(set);
        unset = Set.copyOf(unset);
    }

    /** The value of {@code name}: set here, removed here, or else as inherited ({@code inherited} answers null when unset). */
    public String get(Function<String, String> inherited, String name) {
        String v = set.get(name);
        if (v != null) {
            return v;
        }
        return cleared || unset.contains(name) ? null : inherited.apply(name);
    }

    /** {@code setenv} ({@code overwrite}) or {@code presetenv} (only when not set yet). */
    public Environment with(Function<String, String> inherited, String name, String value, boolean overwrite) {
        if (!overwrite && get(inherited, name) != null) {
            return this;
        }
        Map<String, String> s = new HashMap<>(set);
        s.put(name, value);
        Set<String> u = new HashSet<>(unset);
        u.remove(name);
        return new Environment(cleared, s, u);
    }

    /** {@code unsetenv}: these are gone. */
    public Environment without(Collection<String> names) {
        Map<String, String> s = new HashMap<>(set);
        Set<String> u = new HashSet<>(unset);
        for (String n : names) {
            s.remove(n);
            u.add(n);
        }
        return new Environment(cleared, s, u);
    }

    /** {@code resetenv}: every variable but these is gone; these keep their current values. */
    public Environment keepOnly(Function<String, String> inherited, Collection<String> names) {
        Map<String, String> s = new HashMap<>();
        for (String n : names) {
            String v = get(inherited, n);
            if (v != null) {
                s.put(n, v);
            }
        }
        return new Environment(true, s, Set.of());
    }

    /** This environment as a lookup function over {@code inherited}. */
    public Function<String, String> over(Function<String, String> inherited) {
        return this == INHERITED || set.isEmpty() && unset.isEmpty() && !cleared ? inherited : n -> get(inherited, n);
    }
}

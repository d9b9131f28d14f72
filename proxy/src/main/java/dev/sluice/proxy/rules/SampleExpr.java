package dev.sluice.proxy.rules;

import java.util.function.Predicate;

/** A fetch followed by converters, compiled. Immutable; shared by all streams. */
public final class SampleExpr implements Fetch {
    private final Fetch fetch;
    private final Converter[] converters;
    private final String text;
    /** Whether the fetch has one value at most (it keeps {@link Fetch#any}'s default): tested without a wrapper. */
    private final boolean single;

    SampleExpr(Fetch fetch, Converter[] converters, String text) {
        this.fetch = fetch;
        this.converters = converters;
        this.text = text;
        this.single = singleValued(fetch);
    }

    private static boolean singleValued(Fetch f) {
        try {
            return f.getClass().getMethod("any", Txn.class, Predicate.class).getDeclaringClass() == Fetch.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    @Override
    public Object get(Txn t) {
        Object v = fetch.get(t);
        for (int i = 0; i < converters.length && v != null; i++) {
            v = converters[i].apply(t, v);
        }
        return v;
    }

    @Override
    public boolean any(Txn t, Predicate<Object> p) {
        if (converters.length == 0) {
            return fetch.any(t, p);
        }
        if (single) {
            // what the wrapper below would do for the one value, without making it
            Object v = get(t);
            return v != null && p.test(v);
        }
        return fetch.any(t, v -> {
            Object x = v;
            for (int i = 0; i < converters.length && x != null; i++) {
                x = converters[i].apply(t, x);
            }
            return x != null && p.test(x);
        });
    }

    public boolean hasConverters() {
        return converters.length > 0;
    }

    @Override
    public String toString() {
        return text;
    }
}

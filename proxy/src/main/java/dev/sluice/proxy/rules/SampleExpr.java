package dev.sluice.proxy.rules;

import java.util.function.Predicate;

/** A fetch followed by converters, compiled. Immutable; shared by all streams. */
public final class SampleExpr implements Fetch {
    private final Fetch fetch;
    private final Converter[] converters;
    private final String text;

    SampleExpr(Fetch fetch, Converter[] converters, String text) {
        this.fetch = fetch;
        this.converters = converters;
        this.text = text;
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

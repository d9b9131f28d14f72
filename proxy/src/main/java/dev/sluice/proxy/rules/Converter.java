package dev.sluice.proxy.rules;

/** A compiled converter: a sample in, a sample out (null when it does not apply). Immutable. */
@FunctionalInterface
public interface Converter {
    Object apply(Txn t, Object in);
}

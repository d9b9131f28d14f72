package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.Stream;

/** A compiled {@code http-request} action. Immutable; shared by every stream of its proxy. */
public interface RequestAction {
    /** Applies the action; returns true when it is final (the stream answered or stopped rule processing). */
    boolean apply(Stream stream);
}

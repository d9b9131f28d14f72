package dev.sluice.proxy.rules;

/** A compiled rule action. Immutable; shared by every stream of its proxy. */
@FunctionalInterface
public interface Action {
    /** What rule processing does after an action. */
    enum Verdict {
        /** Go on with the next rule. */
        CONTINUE,
        /** {@code allow}: skip the remaining rules of this set. */
        STOP,
        /** The stream was answered or closed: no more rules, no forwarding. */
        DONE,
        /**
         * The stream must wait ({@code wait-for-body}): the rules stop here and the stream resumes them at the
         * next rule when it is ready.
         */
        YIELD
    }

    Verdict apply(RuleTarget t);
}

package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * One {@code http-request}, {@code http-response} or {@code http-after-response} rule. {@code condition}
 * is null when the rule is unconditional.
 */
public sealed interface HttpRule {
    SourceRef where();

    Condition condition();

    /**
     * Any other action, as written: its name ({@code set-header}, {@code set-var(txn.x)}, ...) and its
     * arguments up to the condition. The syntax was checked when parsing; the runtime compiles the
     * expressions, formats and regexes in it.
     */
    record Action(SourceRef where, Condition condition, String name, List<String> args) implements HttpRule {
        public Action {
            args = List.copyOf(args);
        }
    }

}

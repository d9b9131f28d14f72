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
     * {@code http-request return [status <code>] [content-type <type>] [string <text>] [hdr <name> <value>]*}:
     * answer from the proxy itself. {@code body} is null for an empty body.
     */
    record Return(SourceRef where, Condition condition, int status, String contentType, String body,
            List<Header> headers) implements HttpRule {
        public Return {
            headers = List.copyOf(headers);
        }
    }

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

    /** A header name and value given in a rule. */
    record Header(String name, String value) {
    }
}

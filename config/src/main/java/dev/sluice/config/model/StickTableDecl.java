package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A proxy's {@code stick-table} line as written: the words after the keyword. The runtime parses and
 * checks them with the sticktable module (which the config module does not depend on) and reports
 * problems with {@code where}.
 */
public record StickTableDecl(SourceRef where, List<String> args) {
    public StickTableDecl {
        args = List.copyOf(args);
    }
}

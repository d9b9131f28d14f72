package dev.sluice.config;

import java.util.Locale;

/**
 * One problem found in a configuration: where, how bad, what. Printed as
 * {@code file:line: error|warning: message}; a problem that belongs to no line omits the line.
 */
public record Diagnostic(String file, int line, Severity severity, String message) {

    /** How bad a diagnostic is; only errors make a configuration invalid. */
    public enum Severity {
        ERROR, WARNING, NOTICE,
        /** A {@code .diag} message: shown only in diagnostic mode ({@code -dD}), as HAProxy does. */
        DIAG;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        if (file != null) {
            sb.append(file);
            if (line > 0) {
                sb.append(':').append(line);
            }
            sb.append(": ");
        }
        return sb.append(severity.label()).append(": ").append(message).toString();
    }
}

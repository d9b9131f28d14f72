package dev.sluice.sticktable;

/**
 * A {@code show/clear/set table} command the admin socket must refuse. The message is HAProxy's exact
 * text without the trailing newline ({@code Unknown data type}, {@code Filter entry #1: Unknown data type},
 * {@code Invalid key}, ...), ready to be printed as the command's answer.
 */
public final class TableCommandException extends IllegalArgumentException {

    public TableCommandException(String message) {
        super(message);
    }
}

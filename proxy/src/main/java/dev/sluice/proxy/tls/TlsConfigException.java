package dev.sluice.proxy.tls;

import dev.sluice.config.SourceRef;

/**
 * A {@code bind} or {@code server} line whose TLS settings cannot be used: missing or invalid certificate
 * or CA files, a key that does not match, an unknown cipher or curve. The message is one diagnostic line
 * in the form {@code -c} prints ({@code file:line: error: 'bind :443' in proxy 'fe' : reason}).
 */
public final class TlsConfigException extends RuntimeException {
    private final SourceRef where;
    private final String subject;
    private final String reason;

    public TlsConfigException(SourceRef where, String subject, String reason, Throwable cause) {
        super(where + ": error: " + subject + " : " + reason, cause);
        this.where = where;
        this.subject = subject;
        this.reason = reason;
    }

    /** The configuration line. */
    public SourceRef where() {
        return where;
    }

    /** What the line declares, as HAProxy names it: {@code 'bind :443' in proxy 'fe'} or {@code 'server be/s1'}. */
    public String subject() {
        return subject;
    }

    /** Why it cannot be used, naming the file when a file is at fault. */
    public String reason() {
        return reason;
    }

    /** The line {@code -c} prints. */
    public String diagnostic() {
        return getMessage();
    }
}

package dev.sluice.proxy.http.h1;

/**
 * Why an HTTP/1 message was rejected: the status to answer (for requests; responses always give 502),
 * a short reason for logs and {@code show errors}, and the offset in the message where it was found.
 */
public record H1Error(int status, String reason, int offset) {
}

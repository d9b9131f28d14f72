package dev.sluice.proxy.http;

import java.nio.charset.StandardCharsets;

/** The protocol version of a message as received or sent. */
public enum HttpVersion {
    HTTP_1_0("HTTP/1.0"), HTTP_1_1("HTTP/1.1"), HTTP_2("HTTP/2.0"), HTTP_3("HTTP/3.0");

    /** HTTP/2's connection preface, which an HTTP/2 client with prior knowledge sends first (read only). */
    public static final byte[] H2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final String text;

    HttpVersion(String text) {
        this.text = text;
    }

    public String text() {
        return text;
    }
}

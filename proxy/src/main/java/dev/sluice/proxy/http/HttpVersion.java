package dev.sluice.proxy.http;

/** The protocol version of a message as received or sent. */
public enum HttpVersion {
    HTTP_1_0("HTTP/1.0"), HTTP_1_1("HTTP/1.1"), HTTP_2("HTTP/2.0"), HTTP_3("HTTP/3.0");

    private final String text;

    HttpVersion(String text) {
        this.text = text;
    }

    public String text() {
        return text;
    }
}

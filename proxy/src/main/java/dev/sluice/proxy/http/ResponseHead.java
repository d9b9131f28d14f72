package dev.sluice.proxy.http;

import io.netty.util.AsciiString;

/** A response head: status code, reason phrase (HTTP/1 only; may be empty) and fields. */
public final class ResponseHead extends MessageHead {
    private int status;
    private AsciiString reason;

    public ResponseHead(HttpVersion version, int status, AsciiString reason, HttpFields fields) {
        super(version, fields);
        this.status = status;
        this.reason = reason;
    }

    public int status() {
        return status;
    }

    public void status(int s, AsciiString reason) {
        this.status = s;
        this.reason = reason;
    }

    public AsciiString reason() {
        return reason;
    }

    /** 1xx responses other than 101 precede the final response. */
    public boolean isInterim() {
        return status >= 100 && status < 200 && status != 101;
    }

    @Override
    public String toString() {
        return version().text() + " " + status + " " + reason;
    }
}

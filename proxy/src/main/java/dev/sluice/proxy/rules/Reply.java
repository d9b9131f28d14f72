package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.Status;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A reply the proxy builds itself, as HAProxy's http_reply: a status, a content type, a body from a string, a file or a
 * log-format (rendered for each exchange), and headers whose values are log-formats (one that comes out empty is left out;
 * the content type only goes with a body), in HAProxy's order: the headers, content-length, content-type. What {@code http-request return}
 * sends and what {@code http-error} makes of an error code. Compiled once (in a {@link CompileScope} for the files);
 * immutable.
 */
public final class Reply {
    private record Hdr(AsciiString name, Template value) {
    }

    private final int status;
    private final AsciiString contentType;
    private final Template body;
    private final List<Hdr> hdrs;

    private Reply(int status, String contentType, Template body, List<Hdr> hdrs) {
        this.status = status;
        this.contentType = contentType == null ? null : AsciiString.cached(contentType);
        this.body = body;
        this.hdrs = List.copyOf(hdrs);
    }

    /** A reply rendered for one exchange. */
    public record Page(ResponseHead head, byte[] body) {
    }

    /**
     * The reply of {@code status} described by {@code args} ({@code content-type}, {@code string}, {@code lf-string},
     * {@code file}, {@code lf-file}, {@code hdr}; {@code status} is skipped: the caller read it).
     */
    public static Reply compile(int status, List<String> args) {
        String ct = null;
        Template body = null;
        List<Hdr> hdrs = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String w = args.get(i);
            switch (w) {
                case "status", "deny_status" -> i++;
                case "content-type" -> ct = args.get(++i);
                case "string" -> body = Template.literal(args.get(++i));
                case "lf-string" -> body = Template.compile(args.get(++i));
                case "file", "lf-file" -> {
                    String file = args.get(++i);
                    try {
                        String content = Files.readString(CompileScope.file(file), StandardCharsets.ISO_8859_1);
                        body = w.equals("file") ? Template.literal(content) : Template.compile(content);
                    } catch (IOException e) {
                        throw new IllegalArgumentException("cannot read file '" + file + "'");
                    }
                }
                case "hdr" -> {
                    hdrs.add(new Hdr(AsciiString.cached(args.get(i + 1).toLowerCase(Locale.ROOT)), Template.compile(args.get(i + 2))));
                    i += 2;
                }
                default -> throw new IllegalArgumentException("unexpected argument '" + w + "'");
            }
        }
        if (body != null && ct == null && !body.isEmpty()) {
            throw new IllegalArgumentException("a content type must be defined when non-empty payload is configured");
        }
        return new Reply(status, ct, body, hdrs);
    }

    public int status() {
        return status;
    }

    /** The reply for the exchange {@code t} (its samples read by the body and header formats). */
    public Page render(Txn t) {
        byte[] b = body == null ? new byte[0] : body.render(t).getBytes(StandardCharsets.ISO_8859_1);
        HttpFields f = new HttpFields(hdrs.size() + 2);
        for (Hdr h : hdrs) {
            String v = h.value().render(t);
            // as HAProxy: a header whose value comes out empty is left out
            if (!v.isEmpty()) {
                f.add(h.name(), new AsciiString(v));
            }
        }
        f.add(HeaderNames.CONTENT_LENGTH, AsciiString.of(Integer.toString(b.length)));
        if (contentType != null && b.length > 0) {
            f.add(HeaderNames.CONTENT_TYPE, contentType);
        }
        ResponseHead head = new ResponseHead(HttpVersion.HTTP_1_1, status, Status.reason(status), f);
        head.bodyLength(b.length);
        return new Page(head, b);
    }
}

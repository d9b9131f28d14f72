package dev.sluice.proxy.cache;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.util.AsciiString;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One stored response: its head as it was at the {@code cache-store} rule (without Age), its body, what conditional
 * requests compare (ETag, the last-modified date), when it was validated and when it expires (epoch seconds), its
 * primary key and, for a response with a Vary, its secondary key. Immutable but for its use count and removal mark;
 * shared by every event loop.
 */
public final class CacheEntry {
    final HttpCache.Key key;
    /** The secondary key, null for a response without Vary. */
    final byte[] secondary;
    final int signature;
    private final int status;
    private final AsciiString reason;
    private final AsciiString[] names;
    private final AsciiString[] values;
    private final boolean hasLength;
    private final byte[] body;
    private final String etag;
    final long lastModified;
    /** The origin's Age when it was stored. */
    private final long age;
    final long validated;
    final long expire;
    final int size;
    final int blocks;
    final AtomicInteger users = new AtomicInteger();
    final AtomicBoolean removed = new AtomicBoolean();

    CacheEntry(HttpCache.Key key, byte[] secondary, int signature, int status, AsciiString reason, HttpFields fields, boolean hasLength,
            byte[] body, String etag, long lastModified, long age, long validated, long expire, int size) {
        this.key = key;
        this.secondary = secondary;
        this.signature = signature;
        this.status = status;
        this.reason = reason;
        this.names = new AsciiString[fields.size()];
        this.values = new AsciiString[fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            names[i] = new AsciiString(fields.name(i).toByteArray(), false);
            values[i] = new AsciiString(fields.value(i).toByteArray(), false);
        }
        this.hasLength = hasLength;
        this.body = body;
        this.etag = etag;
        this.lastModified = lastModified;
        this.age = age;
        this.validated = validated;
        this.expire = expire;
        this.size = size;
        this.blocks = (size + HttpCache.BLOCK - 1) / HttpCache.BLOCK;
    }

    boolean expired(long now) {
        return expire <= now;
    }

    public byte[] body() {
        return body;
    }

    /**
     * A new head to send: the stored one with {@code Age} (seconds since validation plus the origin's Age) added last,
     * as 304 Not Modified when {@code notModified}, without body when {@code noBody} (a HEAD, a 304).
     */
    public ResponseHead head(long now, boolean notModified, boolean noBody) {
        HttpFields f = new HttpFields(names.length + 1);
        for (int i = 0; i < names.length; i++) {
            f.add(names[i], values[i]);
        }
        long a = Math.min(Math.max(0, now - validated) + age, 2147483648L);
        f.add(Cacheability.AGE, new AsciiString(Long.toString(a)));
        ResponseHead h = notModified ? new ResponseHead(HttpVersion.HTTP_1_1, 304, AsciiString.cached("Not Modified"), f)
                : new ResponseHead(HttpVersion.HTTP_1_1, status, reason, f);
        if (noBody || notModified) {
            h.bodyNone();
        } else if (hasLength) {
            h.bodyLength(body.length);
        } else {
            h.bodyStreamed();
        }
        return h;
    }

    /**
     * Whether a conditional request gets a 304: an If-None-Match element is {@code *} or matches the stored ETag (weakly);
     * without If-None-Match, an If-Modified-Since date at or after the stored last-modified date.
     */
    public boolean notModified(HttpFields request) {
        if (request.contains(INM)) {
            for (String v : Fields.elements(request, INM)) {
                if (v.equals("*")) {
                    return true;
                }
                if (etag == null) {
                    return false;
                }
                if (sameEtag(etag, v)) {
                    return true;
                }
            }
            return false;
        }
        Long ims = Fields.date(Fields.first(request, IMS));
        return ims != null && lastModified <= ims;
    }

    private static final AsciiString INM = AsciiString.cached("if-none-match");
    private static final AsciiString IMS = AsciiString.cached("if-modified-since");

    /** HAProxy's http_compare_etags: both valid entity tags, equal once a weak mark is dropped. */
    static boolean sameEtag(String a, String b) {
        String x = opaque(a);
        String y = opaque(b);
        return x != null && x.equals(y);
    }

    private static String opaque(String t) {
        String s = t.startsWith("W/") ? t.substring(2) : t;
        return s.length() >= 2 && s.charAt(0) == '"' && s.charAt(s.length() - 1) == '"' ? s : null;
    }
}

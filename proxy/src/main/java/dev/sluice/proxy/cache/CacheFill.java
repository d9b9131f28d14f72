package dev.sluice.proxy.cache;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import java.io.ByteArrayOutputStream;

/**
 * A response on its way into a cache, from its {@code cache-store} rule to the end of its body: the head as it was at
 * the rule, the body as it passes (a copy; the response goes on unchanged), abandoned as soon as it grows past
 * {@code max-object-size}. Owned by one stream, on its event loop; only the finished entry is shared.
 */
public final class CacheFill {
    private final HttpCache cache;
    private final HttpCache.Key key;
    private final byte[] secondary;
    /** The request's secondary key (reduced to the response's Vary), which finds the variant this one updates. */
    private byte[] requestKey;
    private final int signature;
    private final int status;
    private final AsciiString reason;
    private final HttpFields fields;
    private final boolean hasLength;
    private final String etag;
    private final long lastModified;
    private final long age;
    private final long validated;
    private final long expire;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int size;
    private boolean abandoned;
    /** The proxy whose rule stores it. */
    private String proxy;

    private CacheFill(HttpCache cache, HttpCache.Key key, byte[] secondary, int signature, ResponseHead head, String etag, long lastModified,
            long age, long validated, long expire) {
        this.cache = cache;
        this.key = key;
        this.secondary = secondary;
        this.signature = signature;
        this.status = head.status();
        this.reason = head.reason();
        HttpFields f = head.fields();
        this.fields = new HttpFields(f.size());
        for (int i = 0; i < f.size(); i++) {
            fields.add(f.name(i), f.value(i));
        }
        this.hasLength = head.body() == MessageHead.Body.LENGTH;
        this.etag = etag;
        this.lastModified = lastModified;
        this.age = age;
        this.validated = validated;
        this.expire = expire;
        this.size = HttpCache.ENTRY_OVERHEAD + headSize(head);
    }

    /** What the request told {@code cache-use}: its primary key (null: none), cacheability flags, full secondary key. */
    public record Request(HttpCache.Key key, int flags, byte[] secondary) {
    }

    /**
     * HAProxy's {@code cache-store}: starts storing the response of {@code request} when it may be stored, else
     * returns null. An unsafe method's successful response invalidates its URL instead. The response loses its Age field
     * when it is stored (as in HAProxy).
     */
    public static CacheFill start(HttpCache cache, Request asked, RequestHead request, ResponseHead response) {
        if (asked == null || request.version() == dev.sluice.proxy.http.HttpVersion.HTTP_1_0) {
            return null;
        }
        int status = response.status();
        if (!request.method().contentEquals("GET")) {
            if (status >= 200 && status < 400 && !Cacheability.safe(request.method()) && asked.key() != null) {
                cache.invalidate(asked.key());
            }
            return null;
        }
        if (asked.key() == null || status != 200) {
            return null;
        }
        HttpFields f = response.fields();
        long contentLength = response.body() == MessageHead.Body.LENGTH ? response.contentLength() : -1;
        if (contentLength >= 0 && headPayload(response) + contentLength > cache.config().maxObjectSize()) {
            return null;
        }
        int signature = 0;
        byte[] secondary = null;
        if (cache.config().processVary()) {
            signature = SecondaryKey.signature(f);
            if (signature < 0) {
                return null;
            }
            if (signature != 0) {
                if (asked.secondary() == null) {
                    return null;
                }
                secondary = SecondaryKey.reduce(asked.secondary(), signature);
            }
        } else if (SecondaryKey.varies(f)) {
            return null;
        }
        int flags = Cacheability.response(asked.flags(), status, f);
        if ((flags & Cacheability.CACHEABLE) == 0 || (flags & Cacheability.COOK) == 0) {
            return null;
        }
        long now = HttpCache.now();
        long[] explicit = new long[1];
        long maxAge = Cacheability.maxAge(f, cache.config().maxAge(), now, explicit);
        long age = 0;
        int ai = f.indexOf(Cacheability.AGE);
        if (ai >= 0) {
            long a = parseAge(f.value(ai).toString());
            if (a <= 0) {
                return null;
            }
            age = Math.min(a, 2147483648L);
            if (age > explicit[0]) {
                // older than its own max age: stale already
                return null;
            }
            f.remove(ai);
        }
        Long lm = Fields.date(Fields.first(f, Cacheability.LAST_MODIFIED));
        if (lm == null || lm == 0) {
            lm = Fields.date(Fields.first(f, Cacheability.DATE));
        }
        if (lm == null || lm == 0) {
            lm = now;
        }
        String etag = null;
        for (int i = f.indexOf(Cacheability.ETAG); i >= 0; i = f.indexOf(Cacheability.ETAG, i + 1)) {
            etag = f.value(i).toString().strip();
        }
        byte[] requestKey = secondary;
        if (signature != 0) {
            secondary = SecondaryKey.stored(secondary, f);
            if (secondary == null) {
                return null;
            }
        }
        CacheFill fill = new CacheFill(cache, asked.key(), secondary, signature, response, etag, lm, age, now, now + maxAge);
        fill.requestKey = requestKey;
        if (ai >= 0) {
            // HAProxy's removed Age field stays in its copy as an unused block: its 4 bytes of block info count
            fill.size += 4;
        }
        return fill;
    }

    /** strl2llrc of the whole value: -1 when it is not a number. */
    private static long parseAge(String v) {
        String s = v.strip();
        if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Long.parseLong(s);
    }

    /** The head's bytes as HAProxy's HTX holds them: the start line, then each field, 4 bytes of block info each. */
    private static int headSize(ResponseHead h) {
        int n = 4 + 20 + h.version().text().length() + 3 + h.reason().length();
        HttpFields f = h.fields();
        for (int i = 0; i < f.size(); i++) {
            n += 4 + f.name(i).length() + f.value(i).length();
        }
        // the end-of-headers block
        return n + 4;
    }

    /** The head's payload without block infos: what HAProxy compares with max-object-size before the body. */
    private static int headPayload(ResponseHead h) {
        int n = 20 + h.version().text().length() + 3 + h.reason().length();
        HttpFields f = h.fields();
        for (int i = 0; i < f.size(); i++) {
            n += f.name(i).length() + f.value(i).length();
        }
        return n;
    }

    /** Notes the proxy whose {@code cache-store} rule stores the response. */
    public CacheFill storedBy(String p) {
        this.proxy = p;
        return this;
    }

    /**
     * HAProxy's {@code cache_store_post_analyze}: a response that a compression filter declared before the cache filter
     * compresses is not stored, which happens when the frontend compresses and the cache is another proxy's.
     */
    public boolean compressedBefore(String compressingFrontend) {
        return compressingFrontend != null && !compressingFrontend.equals(proxy);
    }

    /** A piece of the body as it goes to the client (read, not consumed). */
    public void append(ByteBuf data) {
        int n = data.readableBytes();
        if (abandoned || n == 0) {
            return;
        }
        size += 4 + n;
        if (size > cache.config().maxObjectSize()) {
            abandoned = true;
            body.reset();
            return;
        }
        byte[] b = new byte[n];
        data.getBytes(data.readerIndex(), b);
        body.writeBytes(b);
    }

    /** The whole body passed: the entry is stored (when it still fits). */
    public boolean complete() {
        if (abandoned) {
            return false;
        }
        return cache.insert(new CacheEntry(key, secondary, signature, status, reason, fields, hasLength, body.toByteArray(), etag, lastModified, age,
                validated, expire, size), requestKey);
    }
}

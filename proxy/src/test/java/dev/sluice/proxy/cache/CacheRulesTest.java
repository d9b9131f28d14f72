package dev.sluice.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Cache;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HAProxy 2.6's cacheability rules (http_ana.c, cache.c) on heads, and the store: what is kept, what is served,
 * Vary's secondary keys, 304s, expiry, invalidation, the memory bound and {@code show cache}'s lines.
 */
class CacheRulesTest {
    private static HttpFields fields(String... kv) {
        HttpFields f = new HttpFields();
        for (int i = 0; i < kv.length; i += 2) {
            f.add(new AsciiString(kv[i]), new AsciiString(kv[i + 1]));
        }
        return f;
    }

    private static RequestHead get(String target, String... kv) {
        HttpFields f = fields(kv);
        f.add(new AsciiString("host"), new AsciiString("example.com"));
        return new RequestHead(AsciiString.of("GET"), new AsciiString(target), HttpVersion.HTTP_1_1, f);
    }

    private static ResponseHead ok(int bodyLength, String... kv) {
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), fields(kv));
        h.bodyLength(bodyLength);
        return h;
    }

    private static HttpCache cache(int megabytes, long maxObject, boolean vary) {
        return new HttpCache(new Cache(new SourceRef("t", 1), "c", megabytes * 1024L, maxObject > 0 ? maxObject : megabytes * 1024L * 1024 / 256, 60, vary, 10), null);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", value = {
            "- => 3",
            "cache-control: no-cache => 7",
            "cache-control: max-age=0 => 7",
            "cache-control: no-store => 0",
            "pragma: no-cache => 7",
            "authorization: Basic eA== => 4",
    })
    void requestFlags(String field, int flags) {
        RequestHead r = field.equals("-") ? get("/") : get("/", field.split(": ")[0], field.split(": ")[1]);
        assertThat(Cacheability.request(r)).isEqualTo(flags);
    }

    @Test
    void http10AndPostAreNotServedFromTheCache() {
        RequestHead r = new RequestHead(AsciiString.of("GET"), AsciiString.of("/"), HttpVersion.HTTP_1_0, fields("host", "x"));
        assertThat(Cacheability.request(r) & Cacheability.IGNORE).isNotZero();
        RequestHead p = new RequestHead(AsciiString.of("POST"), AsciiString.of("/"), HttpVersion.HTTP_1_1, fields("host", "x"));
        assertThat(Cacheability.request(p)).isEqualTo(Cacheability.IGNORE);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", value = {
            "cache-control: max-age=30 => true",
            "etag: \"a\" => true",
            "last-modified: Sun, 06 Dec 2026 10:00:00 GMT => true",
            "expires: Sun, 06 Dec 2099 10:00:00 GMT => true",
            "x-none: 1 => false",
            "cache-control: private, max-age=30 => false",
            "cache-control: no-store => false",
            "cache-control: s-maxage=0 => false",
            "cache-control: no-cache=\"set-cookie\", max-age=30 => false",
            "pragma: no-cache => false",
    })
    void responseCacheability(String field, boolean stored) {
        int i = field.indexOf(": ");
        int f = Cacheability.response(Cacheability.CACHEABLE | Cacheability.COOK, 200, fields(field.substring(0, i), field.substring(i + 2)));
        assertThat((f & Cacheability.CACHEABLE) != 0 && (f & Cacheability.COOK) != 0).isEqualTo(stored);
    }

    @Test
    void publicOverridesARequestsNoStore() {
        int flags = Cacheability.request(get("/", "cache-control", "no-store"));
        assertThat(Cacheability.response(flags, 200, fields("cache-control", "public, max-age=5")) & Cacheability.CACHEABLE).isNotZero();
    }

    @Test
    void maxAgeIsTheShortestOfTheResponsesAndTheCaches() {
        long[] own = new long[1];
        assertThat(Cacheability.maxAge(fields("cache-control", "max-age=30"), 60, 1000, own)).isEqualTo(30);
        assertThat(own[0]).isEqualTo(30);
        assertThat(Cacheability.maxAge(fields("cache-control", "max-age=300, s-maxage=100"), 60, 1000, own)).isEqualTo(60);
        assertThat(own[0]).isEqualTo(100);
        assertThat(Cacheability.maxAge(fields("etag", "\"x\""), 60, 1000, own)).isEqualTo(60);
        assertThat(own[0]).isZero();
        assertThat(Cacheability.maxAge(fields("expires", "garbage"), 60, 1000, own)).isZero();
        assertThat(Cacheability.maxAge(fields("cache-control", "max-age=abc"), 60, 1000, own)).isEqualTo(-1);
    }

    @Test
    void acceptEncodingBitmapsAsHaproxy() {
        assertThat(SecondaryKey.acceptedEncodings(null)).isEqualTo(0xffffffffL);
        assertThat(SecondaryKey.acceptedEncodings(java.util.List.of("gzip"))).isEqualTo(SecondaryKey.GZIP | SecondaryKey.IDENTITY);
        assertThat(SecondaryKey.acceptedEncodings(java.util.List.of("br", "identity;q=0"))).isEqualTo(SecondaryKey.BR);
        assertThat(SecondaryKey.acceptedEncodings(java.util.List.of("foo"))).isEqualTo(SecondaryKey.OTHER | SecondaryKey.IDENTITY);
        assertThat(SecondaryKey.acceptedEncodings(java.util.List.of("*", "gzip;q=0"))).isEqualTo(0xffffffffL & ~SecondaryKey.GZIP);
        assertThat(SecondaryKey.acceptedEncodings(java.util.Collections.nCopies(16, "gzip"))).isEqualTo(-1);
        // a stored identity response serves anyone that accepts identity; a gzip one only those that accept gzip
        byte[] identity = SecondaryKey.stored(new byte[8], fields());
        byte[] gzip = SecondaryKey.stored(new byte[8], fields("content-encoding", "gzip"));
        byte[] wantsBr = SecondaryKey.of(fields("accept-encoding", "br"), SecondaryKey.VARY_ACCEPT_ENCODING);
        assertThat(SecondaryKey.matches(identity, wantsBr)).isTrue();
        assertThat(SecondaryKey.matches(gzip, wantsBr)).isFalse();
        assertThat(SecondaryKey.hex(identity)).isEqualTo("0001000000000000");
        assertThat(SecondaryKey.stored(new byte[8], fields("content-encoding", "snappy"))).isNull();
    }

    private static CacheEntry store(HttpCache c, RequestHead req, ResponseHead res, String body, int sig) {
        CacheFill.Request asked = new CacheFill.Request(HttpCache.key(req), Cacheability.request(req),
                c.config().processVary() ? SecondaryKey.of(req.fields(), SecondaryKey.ALL) : null);
        CacheFill f = CacheFill.start(c, asked, req, res);
        if (f == null) {
            return null;
        }
        f.append(Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.US_ASCII)));
        assertThat(f.complete()).isTrue();
        return c.lookup(HttpCache.key(req), req.fields());
    }

    @Test
    void storedResponsesAreServedWithAgeAnd304s() {
        HttpCache c = cache(4, 0, false);
        RequestHead req = get("/a");
        CacheEntry e = store(c, req, ok(5, "etag", "\"v1\"", "last-modified", "Sun, 06 Dec 2026 10:00:00 GMT", "content-length", "5"), "hello", 0);
        assertThat(e).isNotNull();
        assertThat(new String(e.body(), StandardCharsets.US_ASCII)).isEqualTo("hello");
        ResponseHead h = e.head(e.validated + 3, false, false);
        assertThat(h.status()).isEqualTo(200);
        assertThat(h.fields().get(new AsciiString("age")).toString()).isEqualTo("3");
        assertThat(h.contentLength()).isEqualTo(5);
        assertThat(e.notModified(fields("if-none-match", "W/\"v1\", \"v2\""))).isTrue();
        assertThat(e.notModified(fields("if-none-match", "\"v2\""))).isFalse();
        assertThat(e.notModified(fields("if-none-match", "*"))).isTrue();
        assertThat(e.notModified(fields("if-modified-since", "Sun, 06 Dec 2026 10:00:00 GMT"))).isTrue();
        assertThat(e.notModified(fields("if-modified-since", "Sun, 06 Dec 2026 09:59:59 GMT"))).isFalse();
        // an ETag decides alone when the request has If-None-Match
        assertThat(e.notModified(fields("if-none-match", "\"v2\"", "if-modified-since", "Sun, 06 Dec 2026 10:00:00 GMT"))).isFalse();
        ResponseHead nm = e.head(HttpCache.now(), true, false);
        assertThat(nm.status()).isEqualTo(304);
        assertThat(nm.hasBody()).isFalse();
        assertThat(e.head(HttpCache.now(), false, true).hasBody()).isFalse();
        assertThat(c.lookup(HttpCache.key(get("/b")), fields())).isNull();
    }

    @Test
    void whatIsNotStored() {
        HttpCache c = cache(4, 0, false);
        assertThat(store(c, get("/v"), ok(1, "cache-control", "max-age=9", "vary", "accept-encoding"), "x", 0)).as("Vary without process-vary").isNull();
        assertThat(store(c, get("/n"), ok(1, "x-a", "b"), "x", 0)).as("no freshness nor validator").isNull();
        assertThat(store(c, get("/p"), ok(1, "cache-control", "private, max-age=9"), "x", 0)).isNull();
        assertThat(store(c, get("/auth", "authorization", "Basic eA=="), ok(1, "cache-control", "max-age=9"), "x", 0)).isNull();
        assertThat(store(c, get("/age0"), ok(1, "cache-control", "max-age=9", "age", "0"), "x", 0)).as("Age: 0, as HAProxy").isNull();
        assertThat(store(c, get("/stale"), ok(1, "cache-control", "max-age=9", "age", "10"), "x", 0)).as("older than its max-age").isNull();
        assertThat(store(c, get("/big"), ok(20_000, "cache-control", "max-age=9"), "x", 0)).as("over max-object-size (16 kB)").isNull();
        ResponseHead notFound = new ResponseHead(HttpVersion.HTTP_1_1, 404, AsciiString.of("Not Found"), fields("cache-control", "max-age=9"));
        assertThat(store(c, get("/404"), notFound, "x", 0)).isNull();
        CacheEntry aged = store(c, get("/aged"), ok(1, "cache-control", "max-age=9", "age", "4"), "x", 0);
        assertThat(aged.head(aged.validated, false, false).fields().get(new AsciiString("age")).toString()).isEqualTo("4");
        assertThat(c.size()).isEqualTo(1);
    }

    @Test
    void varyKeepsOneEntryPerEncoding() {
        HttpCache c = cache(4, 0, true);
        ResponseHead gz = ok(1, "cache-control", "max-age=9", "vary", "accept-encoding", "content-encoding", "gzip");
        assertThat(store(c, get("/v", "accept-encoding", "gzip"), gz, "x", 1)).isNotNull();
        assertThat(c.lookup(HttpCache.key(get("/v")), fields("accept-encoding", "br"))).isNull();
        assertThat(store(c, get("/v", "accept-encoding", "br"), ok(1, "cache-control", "max-age=9", "vary", "accept-encoding"), "y", 1)).isNotNull();
        assertThat(c.size()).isEqualTo(2);
        assertThat(new String(c.lookup(HttpCache.key(get("/v")), fields("accept-encoding", "gzip, br")).body(), StandardCharsets.US_ASCII))
                .isEqualTo("x");
        // show cache prints the first variant of a key only, as HAProxy walks its tree
        assertThat(c.show()).hasSize(2).allMatch(l -> !l.contains("vary:0x0000000000000000") || l.contains("shctx"));
        assertThat(store(c, get("/v", "accept-encoding", "br"), ok(1, "cache-control", "max-age=9", "vary", "cookie"), "z", 1)).isNull();
    }

    @Test
    void unsafeMethodsInvalidateAndTheMemoryIsBounded() {
        HttpCache c = cache(1, 600 * 1024, false);
        assertThat(store(c, get("/a"), ok(1, "cache-control", "max-age=9"), "x", 0)).isNotNull();
        RequestHead post = new RequestHead(AsciiString.of("POST"), AsciiString.of("/a"), HttpVersion.HTTP_1_1, fields("host", "example.com"));
        CacheFill.Request asked = new CacheFill.Request(HttpCache.key(post), Cacheability.request(post), null);
        assertThat(CacheFill.start(c, asked, post, ok(0))).isNull();
        assertThat(c.lookup(HttpCache.key(get("/a")), fields())).isNull();
        // 1 MB: two objects of 400 kB fit, the third pushes the oldest out
        String big = "b".repeat(400 * 1024);
        for (String p : new String[] {"/1", "/2", "/3"}) {
            assertThat(store(c, get(p), ok(big.length(), "cache-control", "max-age=9"), big, 0)).isNotNull();
        }
        assertThat(c.lookup(HttpCache.key(get("/1")), fields())).isNull();
        assertThat(c.lookup(HttpCache.key(get("/3")), fields())).isNotNull();
        assertThat(c.usedBlocks()).isLessThanOrEqualTo(1024).isEqualTo(2 * 401);
        assertThat(c.show().getFirst()).endsWith("c (shctx:" + c.show().getFirst().substring(0, c.show().getFirst().indexOf(':')) + ", available blocks:1024)");
    }

    @Test
    void primaryKeyIsHaproxysSha1() {
        // HAProxy 2.6's show cache printed hash:959492281 for GET /cc with Host 127.0.0.1:18080
        RequestHead r = new RequestHead(AsciiString.of("GET"), AsciiString.of("/cc"), HttpVersion.HTTP_1_1, fields("host", "127.0.0.1:18080"));
        assertThat(HttpCache.key(r).hash32() & 0xffffffffL).isEqualTo(959492281L);
    }
}

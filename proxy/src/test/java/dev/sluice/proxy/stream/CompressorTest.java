package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.config.model.Compression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.Test;

class CompressorTest {
    private static final Compression ALL = new Compression(List.of("gzip", "deflate", "raw-deflate", "identity"), List.of(), false);

    private static RequestHead request(String... headers) {
        HttpFields f = new HttpFields();
        for (int i = 0; i < headers.length; i += 2) {
            f.add(headers[i], headers[i + 1]);
        }
        return new RequestHead(AsciiString.of("GET"), AsciiString.of("/"), HttpVersion.HTTP_1_1, f);
    }

    private static ResponseHead response(String... headers) {
        HttpFields f = new HttpFields();
        for (int i = 0; i < headers.length; i += 2) {
            f.add(headers[i], headers[i + 1]);
        }
        f.add("content-length", "1000");
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), f);
        h.bodyLength(1000);
        return h;
    }

    /** Decided and started as a stream does (the response rules between the two do nothing here); null when not eligible. */
    private static Compressor start(String algo, Compression backend, Compression frontend, RequestHead request, ResponseHead response) {
        return Compressor.eligible(algo, backend, frontend, request, response) ? Compressor.start(algo, backend, frontend, response) : null;
    }

    @Test
    void theBestQValueWinsAndStarTakesTheLastConfigured() {
        assertThat(Compressor.select(ALL, null, request("accept-encoding", "gzip;q=0.5, deflate;q=0.8"))).isEqualTo("raw-deflate");
        Compression gd = new Compression(List.of("gzip", "deflate"), List.of(), false);
        assertThat(Compressor.select(gd, null, request("accept-encoding", "gzip;q=0.5, deflate;q=0.8"))).isEqualTo("deflate");
        assertThat(Compressor.select(gd, null, request("accept-encoding", "*"))).isEqualTo("deflate");
        assertThat(Compressor.select(gd, null, request("accept-encoding", "GZIP"))).isEqualTo("gzip");
        assertThat(Compressor.select(gd, null, request("accept-encoding", "br, gzip;q=0"))).isNull();
        assertThat(Compressor.select(gd, null, request("accept-encoding", "gzip;q=0.001", "accept-encoding", "deflate;q=0.002"))).isEqualTo("deflate");
        assertThat(Compressor.select(ALL, null, request())).isEqualTo("identity");
        assertThat(Compressor.select(gd, null, request())).isNull();
        assertThat(Compressor.qvalue(" q=1.0")).isEqualTo(1000);
        assertThat(Compressor.qvalue("level=1; Q=0.25")).isEqualTo(250);
        assertThat(Compressor.qvalue("q=x")).isZero();
    }

    @Test
    void offloadRemovesAcceptEncodingOnlyWhenAnAlgorithmIsChosen() {
        Compression off = new Compression(List.of("gzip"), List.of(), true);
        RequestHead r = request("accept-encoding", "gzip", "accept-encoding", "br");
        assertThat(Compressor.select(off, null, r)).isEqualTo("gzip");
        assertThat(r.fields().contains(AsciiString.of("accept-encoding"))).isFalse();
        RequestHead kept = request("accept-encoding", "br");
        assertThat(Compressor.select(off, null, kept)).isNull();
        assertThat(kept.fields().contains(AsciiString.of("accept-encoding"))).isTrue();
    }

    @Test
    void oldMozillaAgentsAsHaproxyTellsThem() {
        assertThat(Compressor.oldMozilla("Mozilla/4.0 (compatible; MSIE 5.5; Windows 98)")).isTrue();
        assertThat(Compressor.oldMozilla("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)")).isTrue();
        assertThat(Compressor.oldMozilla("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)")).isFalse();
        assertThat(Compressor.oldMozilla("Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0)")).isFalse();
        assertThat(Compressor.oldMozilla("Mozilla/5.0 (X11; Linux x86_64)")).isFalse();
    }

    @Test
    void theHeadChangesAsHaproxyChangesIt() {
        ResponseHead h = response("content-type", "text/plain", "etag", "\"v1\"");
        Compressor z = start("gzip", ALL, null, request(), h);
        try {
            assertThat(z).isNotNull();
            assertThat(h.body()).isEqualTo(MessageHead.Body.STREAMED);
            assertThat((Object) h.fields().get(HeaderNames.CONTENT_LENGTH)).isNull();
            assertThat(h.fields().get(AsciiString.of("etag")).toString()).isEqualTo("W/\"v1\"");
            assertThat(h.fields().get(AsciiString.of("vary")).toString()).isEqualTo("Accept-Encoding");
            assertThat(h.fields().get(AsciiString.of("content-encoding")).toString()).isEqualTo("gzip");
        } finally {
            z.release();
        }
        Compressor raw = start("raw-deflate", ALL, null, request(), response());
        ResponseHead rh = response();
        Compressor raw2 = start("raw-deflate", ALL, null, request(), rh);
        assertThat(rh.fields().get(AsciiString.of("content-encoding")).toString()).isEqualTo("deflate");
        raw.release();
        raw2.release();
        ResponseHead ih = response();
        Compressor id = start("identity", ALL, null, request(), ih);
        assertThat((Object) ih.fields().get(AsciiString.of("content-encoding"))).isNull();
        assertThat(id.compressing()).isFalse();
        id.release();
    }

    @Test
    void responsesThatDoNotQualify() {
        assertThat(start(null, ALL, null, request(), response())).isNull();
        assertThat(start("gzip", ALL, null, request(), response("content-encoding", "br"))).isNull();
        assertThat(start("gzip", ALL, null, request(), response("cache-control", "max-age=1, NO-TRANSFORM"))).isNull();
        assertThat(start("gzip", ALL, null, request(), response("content-type", "Multipart/mixed"))).isNull();
        assertThat(start("gzip", ALL, null, request(), response("etag", "\"a\"", "etag", "\"b\""))).isNull();
        assertThat(start("gzip", ALL, null, request(), response("etag", "W/x"))).isNull();
        Compression typed = new Compression(List.of("gzip"), List.of("text/"), false);
        assertThat(start("gzip", typed, null, request(), response())).isNull();
        assertThat(start("gzip", typed, null, request(), response("content-type", "image/png"))).isNull();
        ResponseHead notModified = response();
        ResponseHead partial = new ResponseHead(HttpVersion.HTTP_1_1, 206, AsciiString.of("Partial Content"), new HttpFields());
        partial.bodyLength(10);
        assertThat(start("gzip", ALL, null, request(), partial)).isNull();
        RequestHead head = new RequestHead(AsciiString.of("HEAD"), AsciiString.of("/"), HttpVersion.HTTP_1_1, new HttpFields());
        assertThat(start("gzip", ALL, null, head, notModified)).isNull();
        RequestHead old = new RequestHead(AsciiString.of("GET"), AsciiString.of("/"), HttpVersion.HTTP_1_0, new HttpFields());
        assertThat(start("gzip", ALL, null, old, response())).isNull();
        ResponseHead empty = response();
        empty.bodyLength(0);
        assertThat(start("gzip", ALL, null, request(), empty)).isNull();
    }

    @Test
    void bodiesDecodeWhateverPiecesTheyCameIn() throws Exception {
        byte[] text = "a streamed body that compresses well, ".repeat(300).getBytes(StandardCharsets.US_ASCII);
        for (String algo : List.of("gzip", "deflate", "raw-deflate", "identity")) {
            Compressor z = start(algo, ALL, null, request(), response());
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            try {
                for (int at = 0; at < text.length; at += 1000) {
                    ByteBuf piece = Unpooled.directBuffer().writeBytes(text, at, Math.min(1000, text.length - at));
                    ByteBuf out = z.compress(ByteBufAllocator.DEFAULT, piece);
                    // each piece is flushed: what came so far is decodable at once
                    wire.write(bytes(out));
                }
                ByteBuf tail = z.finish(ByteBufAllocator.DEFAULT);
                if (tail != null) {
                    wire.write(bytes(tail));
                }
            } finally {
                z.release();
            }
            byte[] w = wire.toByteArray();
            InputStream in = switch (algo) {
                case "gzip" -> new GZIPInputStream(new ByteArrayInputStream(w));
                case "deflate" -> new InflaterInputStream(new ByteArrayInputStream(w));
                case "raw-deflate" -> new InflaterInputStream(new ByteArrayInputStream(w), new Inflater(true));
                default -> new ByteArrayInputStream(w);
            };
            assertThat(in.readAllBytes()).as(algo).isEqualTo(text);
            assertThat(z.bytesIn()).isEqualTo(text.length);
            assertThat(z.bytesOut()).isEqualTo(w.length);
            if (!algo.equals("identity")) {
                assertThat(w.length).as(algo).isLessThan(text.length / 4);
            }
        }
    }

    @Test
    void tuneCompMaxLevelSetsTheLevelAndGzipsExtraFlags() throws Exception {
        byte[] text = "level nine squeezes a repetitive body harder than level one, ".repeat(400).getBytes(StandardCharsets.US_ASCII);
        int[] sizes = new int[10];
        for (int level : new int[] {1, 6, 9}) {
            Compression c = new Compression(List.of("gzip"), List.of(), false, level);
            Compressor z = start("gzip", c, null, request(), response());
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            try {
                wire.write(bytes(z.compress(ByteBufAllocator.DEFAULT, Unpooled.directBuffer().writeBytes(text))));
                wire.write(bytes(z.finish(ByteBufAllocator.DEFAULT)));
            } finally {
                z.release();
            }
            byte[] w = wire.toByteArray();
            assertThat(new GZIPInputStream(new ByteArrayInputStream(w)).readAllBytes()).isEqualTo(text);
            // zlib's XFL byte: 4 "fastest" at level 1, 2 "best" at level 9, else 0
            assertThat(w[8]).as("xfl at level %d", level).isEqualTo((byte) (level == 1 ? 4 : level == 9 ? 2 : 0));
            sizes[level] = w.length;
        }
        assertThat(sizes[9]).isLessThanOrEqualTo(sizes[1]);
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            byte[] r = new byte[b.readableBytes()];
            b.readBytes(r);
            return r;
        } finally {
            b.release();
        }
    }
}

package dev.sluice.proxy.http.h1;

import static dev.sluice.proxy.http.h1.RecordingSink.fields;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.MessageHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Request bodies: content-length and chunked framing, at every split of the input, trailers, and ownership of slices. */
class H1ParserBodyTest {

    private static final List<ByteBufAllocator> ALLOCATORS = List.of(UnpooledByteBufAllocator.DEFAULT, PooledByteBufAllocator.DEFAULT,
        new UnpooledByteBufAllocator(true), new PooledByteBufAllocator(false));

    // ------------------------------------------------------------------ content-length

    @Test
    void contentLengthBodyInOnePiece() {
        ParserDriver d = ParserDriver.parseRequest("POST /x HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.LENGTH);
        assertThat(m.body()).isEqualTo("hello world");
        assertThat(m.slices).isEqualTo(1);
        assertThat(m.trailers).isNull();
        assertThat(d.sink.events).containsExactly("head", "body", "end");
    }

    @Test
    void contentLengthBodyInPieces() {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed("POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\n");
            assertThat(d.sink.events).containsExactly("head");
            assertThat(d.parser.inBody()).isTrue();
            assertThat(d.parser.idle()).isFalse();
            d.feed("0123");
            d.feed("");
            d.feed("456");
            assertThat(d.sink.last().ended).isFalse();
            d.feed("789GET");
            RecordingSink.Message m = d.sink.only();
            assertThat(m.body()).isEqualTo("0123456789");
            assertThat(m.slices).isEqualTo(3);
            assertThat(m.ended).isTrue();
            assertThat(d.parser.paused()).isTrue();
            assertThat(d.parser.inBody()).isFalse();
            assertThat(d.remaining()).isEqualTo("GET");
        }
    }

    @Test
    void largeContentLength() {
        byte[] body = new byte[1 << 20];
        new Random(1).nextBytes(body);
        try (ParserDriver d = ParserDriver.pooled(true)) {
            d.feed("PUT /big HTTP/1.1\r\nContent-Length: " + body.length + "\r\n\r\n");
            for (int off = 0; off < body.length; off += 65536) {
                d.feed(body, off, Math.min(65536, body.length - off));
                d.in.discardReadBytes();
            }
            assertThat(d.sink.only().bodyBytes()).isEqualTo(body);
            assertThat(d.sink.only().head.contentLength()).isEqualTo(body.length);
        }
    }

    @Test
    void inputClosedDuringContentLengthBodyIsTruncated() {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc");
            assertThat(d.parser.inputClosed()).isFalse();
            assertThat(d.sink.events).containsExactly("head", "body", "error 400");
            assertThat(d.sink.error.reason()).contains("truncated");
        }
    }

    // ------------------------------------------------------------------ chunked

    @Test
    void chunkedBody() {
        ParserDriver d = ParserDriver.parseRequest(
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.STREAMED);
        assertThat(m.head.contentLength()).isEqualTo(-1);
        assertThat(m.body()).isEqualTo("hello world");
        assertThat(m.slices).isEqualTo(2);
        assertThat(m.trailers).isNull();
        assertThat(d.parser.paused()).isTrue();
        assertThat(d.leftover).isEmpty();
    }

    @Test
    void emptyChunkedBody() {
        ParserDriver d = ParserDriver.parseRequest("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        assertThat(d.sink.only().body()).isEmpty();
        assertThat(d.sink.events).containsExactly("head", "end");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\r\n0123456789\r\n", "A\r\n0123456789\r\n", "000a\r\n0123456789\r\n", "a \r\n0123456789\r\n",
        "a\t\r\n0123456789\r\n", "a;ext\r\n0123456789\r\n", "a;name=value;other=\"quoted ; value\"\r\n0123456789\r\n",
        "a ; ext=1\r\n0123456789\r\n", "a\n0123456789\n", "4\r\n0123\r\n6;x=y\r\n456789\r\n", "1\r\n0\r\n9\r\n123456789\r\n"})
    void chunkSizeForms(String chunks) {
        ParserDriver d = ParserDriver.parseRequest("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + "0\r\n\r\n");
        assertThat(d.sink.error).isNull();
        assertThat(d.sink.only().body()).isEqualTo("0123456789");
        assertThat(d.sink.only().ended).isTrue();
    }

    @Test
    void lastChunkMayCarryExtensions() {
        ParserDriver d = ParserDriver.parseRequest("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0;final=yes\r\n\r\n");
        assertThat(d.sink.only().body()).isEqualTo("x");
        assertThat(d.sink.only().ended).isTrue();
    }

    @Test
    void trailers() {
        ParserDriver d = ParserDriver.parseRequest("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n"
            + "3\r\nabc\r\n0\r\nX-Checksum: 900150983cd24fb0\r\nX-Other:  two words \r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.body()).isEqualTo("abc");
        assertThat(fields(m.head.fields())).containsExactly("trailer: X-Checksum");
        assertThat(fields(m.trailers)).containsExactly("x-checksum: 900150983cd24fb0", "x-other: two words");
    }

    @Test
    void trailersWithBareLfAndFolding() {
        ParserDriver d = ParserDriver.parseRequest("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\nX-A: 1\n b\n\n");
        assertThat(fields(d.sink.only().trailers)).containsExactly("x-a: 1  b");
    }

    @ParameterizedTest
    @ValueSource(strings = {"X A: 1", ": 1", "X-A: a\u0000", "X-A: a\rb", " folded"})
    void invalidTrailersAreRejected(String line) {
        ParserDriver d = ParserDriver.parseRequest("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + line + "\r\n\r\n");
        assertThat(d.sink.error).isNotNull();
        assertThat(d.sink.error.status()).isEqualTo(400);
        assertThat(d.sink.messages).hasSize(1);
        assertThat(d.sink.messages.getFirst().ended).isFalse();
    }

    @Test
    void trailersTooLarge() {
        try (ParserDriver d = new ParserDriver(true, new H1Limits(200, 10), UnpooledByteBufAllocator.DEFAULT)) {
            d.feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-A: " + "a".repeat(300));
            assertThat(d.sink.error.status()).isEqualTo(431);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"x\r\n", "\r\n", "-1\r\n", "5x\r\n", "5 x\r\n", "0x5\r\n", " 5\r\n", "5\r\r\n", "1234567890abcdef\r\n",
        "5;a\u0000b\r\n", "5;a\rb\r\n"})
    void invalidChunkSizeLines(String line) {
        ParserDriver d = ParserDriver.parseRequest("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + line + "hello\r\n0\r\n\r\n");
        assertThat(d.sink.error).as(line).isNotNull();
        assertThat(d.sink.error.status()).isEqualTo(400);
        assertThat(d.sink.messages).hasSize(1);
        assertThat(d.sink.messages.getFirst().ended).isFalse();
    }

    @Test
    void fifteenHexDigitsAreAccepted() {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000f\r\n0123456789abcde\r\n0\r\n\r\n");
            assertThat(d.sink.only().body()).isEqualTo("0123456789abcde");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"5\r\nhelloX\r\n", "5\r\nhello\rX", "5\r\nhello  \r\n", "5\r\nhello5\r\n"})
    void missingCrlfAfterChunkData(String chunk) {
        ParserDriver d = ParserDriver.parseRequest("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + "0\r\n\r\n");
        assertThat(d.sink.error).isNotNull();
        assertThat(d.sink.error.status()).isEqualTo(400);
        assertThat(d.sink.messages.getFirst().body()).isEqualTo("hello");
    }

    @Test
    void chunkSizeLineTooLong() {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;" + "e".repeat(1000));
            assertThat(d.sink.error).isNull();
            d.feed("e".repeat(100));
            assertThat(d.sink.error.status()).isEqualTo(400);
        }
    }

    @Test
    void inputClosedInChunkedBodyIsTruncated() {
        String[] cuts = {"5\r", "5\r\nhel", "5\r\nhello", "5\r\nhello\r\n", "5\r\nhello\r\n0\r\n", "5\r\nhello\r\n0\r\nX-A: 1\r\n"};
        for (String cut : cuts) {
            try (ParserDriver d = ParserDriver.request()) {
                d.feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + cut);
                assertThat(d.sink.error).isNull();
                assertThat(d.parser.inBody()).isTrue();
                assertThat(d.parser.inputClosed()).isFalse();
                assertThat(d.sink.error).as(cut).isNotNull();
                assertThat(d.sink.error.status()).isEqualTo(400);
            }
        }
    }

    // ------------------------------------------------------------------ every split of the input

    /** A pipeline exercising every framing state: chunk sizes with extensions, data, trailers, C-L bodies. */
    private static final String PIPELINE = "POST /1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5\r\nhello\r\n"
        + "1a;name=\"v\";x\r\nabcdefghijklmnopqrstuvwxyz\r\n"
        + "1\nZ\n"
        + "0;last\r\nX-Sum: 42\r\nX-More: a\r\n b\r\n\r\n"
        + "\r\n"
        + "PUT /2 HTTP/1.1\r\nContent-Length: 7\r\n\r\n1234567"
        + "GET /3 HTTP/1.1\r\nConnection: close\r\n\r\n"
        + "POST /4 HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n\u0000\u00ff\r\r\n0\r\n\r\n";

    private record Outcome(List<String> events, List<String> targets, List<String> bodies, List<List<String>> trailers, boolean closeWanted,
            boolean closeAfter, String leftover) {
    }

    private static Outcome run(ByteBufAllocator alloc, byte[] input, int[] cuts) {
        ParserDriver d = new ParserDriver(true, H1Limits.DEFAULT, alloc);
        d.autoResume = true;
        int prev = 0;
        for (int cut : cuts) {
            d.feed(input, prev, cut - prev);
            prev = cut;
        }
        d.feed(input, prev, input.length - prev);
        d.close();
        List<String> targets = new ArrayList<>();
        List<String> bodies = new ArrayList<>();
        List<List<String>> trailers = new ArrayList<>();
        for (RecordingSink.Message m : d.sink.messages) {
            targets.add(m.request().target().toString());
            bodies.add(m.body());
            trailers.add(fields(m.trailers));
        }
        return new Outcome(d.sink.events, targets, bodies, trailers, d.parser.closeWanted(), d.parser.closeAfter(), d.leftover);
    }

    private static final Outcome EXPECTED = new Outcome(
        List.of("head", "body", "end", "head", "body", "end", "head", "end", "head", "body", "end"),
        List.of("/1", "/2", "/3", "/4"),
        List.of("helloabcdefghijklmnopqrstuvwxyzZ", "1234567", "", "\u0000\u00ff\r"),
        List.of(List.of("x-sum: 42", "x-more: a   b"), List.of(), List.of(), List.of()),
        false, true, "");

    @Test
    void wholeInputAtOnce() {
        for (ByteBufAllocator alloc : ALLOCATORS) {
            assertThat(run(alloc, ParserDriver.bytes(PIPELINE), new int[0])).isEqualTo(EXPECTED);
        }
    }

    @Test
    void oneByteAtATime() {
        byte[] input = ParserDriver.bytes(PIPELINE);
        int[] cuts = new int[input.length - 1];
        Arrays.setAll(cuts, i -> i + 1);
        for (ByteBufAllocator alloc : ALLOCATORS) {
            assertThat(run(alloc, input, cuts)).isEqualTo(EXPECTED);
        }
    }

    @Test
    void splitInTwoAtEveryByteBoundary() {
        byte[] input = ParserDriver.bytes(PIPELINE);
        for (int cut = 0; cut <= input.length; cut++) {
            assertThat(run(ALLOCATORS.get(cut % ALLOCATORS.size()), input, new int[] {cut})).as("cut at %d", cut).isEqualTo(EXPECTED);
        }
    }

    @Test
    void splitInThreeAtManyBoundaries() {
        byte[] input = ParserDriver.bytes(PIPELINE);
        for (int a = 0; a <= input.length; a += 3) {
            for (int b = a; b <= input.length; b += 5) {
                assertThat(run(UnpooledByteBufAllocator.DEFAULT, input, new int[] {a, b})).as("cuts at %d, %d", a, b).isEqualTo(EXPECTED);
            }
        }
    }

    @Test
    void randomSplits() {
        byte[] input = ParserDriver.bytes(PIPELINE);
        Random rnd = new Random(20240601);
        for (int round = 0; round < 500; round++) {
            int n = 1 + rnd.nextInt(20);
            int[] cuts = rnd.ints(n, 0, input.length + 1).sorted().toArray();
            assertThat(run(ALLOCATORS.get(round % ALLOCATORS.size()), input, cuts)).as("cuts %s", Arrays.toString(cuts)).isEqualTo(EXPECTED);
        }
    }

    @Test
    void randomChunkedBodiesSurviveRandomSplits() {
        Random rnd = new Random(7);
        for (int round = 0; round < 100; round++) {
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            wire.writeBytes(ParserDriver.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"));
            int chunks = rnd.nextInt(8);
            for (int c = 0; c < chunks; c++) {
                byte[] data = new byte[1 + rnd.nextInt(300)];
                rnd.nextBytes(data);
                String size = Integer.toHexString(data.length);
                wire.writeBytes(ParserDriver.bytes((rnd.nextBoolean() ? size.toUpperCase() : size) + (rnd.nextBoolean() ? ";e=" + c : "")
                    + (rnd.nextBoolean() ? "\r\n" : "\n")));
                wire.writeBytes(data);
                wire.writeBytes(ParserDriver.bytes(rnd.nextBoolean() ? "\r\n" : "\n"));
                body.writeBytes(data);
            }
            wire.writeBytes(ParserDriver.bytes("0\r\n\r\n"));
            byte[] input = wire.toByteArray();
            int[] cuts = rnd.ints(rnd.nextInt(30), 0, input.length + 1).sorted().toArray();
            ParserDriver d = new ParserDriver(true, H1Limits.DEFAULT, ALLOCATORS.get(round % ALLOCATORS.size()));
            try (d) {
                int prev = 0;
                for (int cut : cuts) {
                    d.feed(input, prev, cut - prev);
                    prev = cut;
                }
                d.feed(input, prev, input.length - prev);
            }
            assertThat(d.sink.error).isNull();
            assertThat(d.sink.only().ended).isTrue();
            assertThat(d.sink.only().bodyBytes()).isEqualTo(body.toByteArray());
        }
    }

    // ------------------------------------------------------------------ slice ownership

    @Test
    void bodySlicesAreRetainedSlicesOfTheInput() {
        for (ByteBufAllocator alloc : ALLOCATORS) {
            List<ByteBuf> kept = new ArrayList<>();
            H1Parser p = new H1Parser(true, H1Limits.DEFAULT, new H1Parser.Sink() {
                @Override
                public void onHead(MessageHead head) {
                }

                @Override
                public void onBody(ByteBuf data) {
                    kept.add(data);
                }

                @Override
                public void onEnd(dev.sluice.proxy.http.HttpFields trailers) {
                }

                @Override
                public void onError(H1Error error) {
                    throw new AssertionError(error);
                }
            });
            ByteBuf in = alloc.buffer();
            in.writeBytes(ParserDriver.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"));
            p.parse(in);
            assertThat(kept).hasSize(2);
            // the input goes away: the slices still hold their bytes
            in.release();
            assertThat(in.refCnt()).isPositive();
            assertThat(kept.get(0).toString(java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("abc");
            assertThat(kept.get(1).toString(java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("de");
            kept.forEach(ByteBuf::release);
            assertThat(in.refCnt()).isZero();
        }
    }
}

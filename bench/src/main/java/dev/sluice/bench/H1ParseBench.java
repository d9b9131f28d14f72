package dev.sluice.bench;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.h1.H1Error;
import dev.sluice.proxy.http.h1.H1Limits;
import dev.sluice.proxy.http.h1.H1Parser;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the HTTP/1 parser costs per request, driven as {@code h1.H1ClientConnection} drives it on a kept-alive
 * connection: one parser in request mode with the frontend's default limits, the received bytes in a pooled
 * direct buffer (what a read hands over), the head's connection flags read in {@code onHead}, body slices taken
 * and released (the stream would forward them), and {@code resume()} before the next request. Each operation
 * parses one whole request that arrived in one read: {@code get} a browser's GET with 8 fields (Connection among
 * them), {@code chunkedPost} a POST of 5 fields with {@code Transfer-Encoding: chunked} and three chunks.
 * <pre>java -jar bench/target/benchmarks.jar H1ParseBench -f 3 -wi 3 -i 5 -w 1s -r 1s -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class H1ParseBench {
    static final String GET = """
            GET /articles/2026/12/index.html?ref=home HTTP/1.1\r
            Host: www.example.com\r
            User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r
            Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r
            Accept-Language: en-US,en;q=0.5\r
            Accept-Encoding: gzip, deflate, br\r
            Connection: keep-alive\r
            Cookie: session=7f3a9c2e41b84d6f; theme=dark\r
            Upgrade-Insecure-Requests: 1\r
            \r
            """;

    static final String CHUNKED_POST = """
            POST /api/v1/upload HTTP/1.1\r
            Host: api.example.com\r
            User-Agent: curl/8.5.0\r
            Accept: */*\r
            Content-Type: application/json\r
            Transfer-Encoding: chunked\r
            \r
            1a\r
            {"items":[{"id":1,"v":"a"}\r
            40\r
            ,{"id":2,"v":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}\r
            2\r
            ]}\r
            0\r
            \r
            """;

    /** The sink of {@code H1ClientConnection}, less the stream. */
    static final class ConnectionSink implements H1Parser.Sink {
        H1Parser parser;
        Blackhole bh;
        int requests;
        boolean keepAlive;
        long bodyBytes;
        boolean ended;
        int errors;

        @Override
        public void onHead(MessageHead head) {
            RequestHead req = (RequestHead) head;
            requests++;
            keepAlive = (req.version() == HttpVersion.HTTP_1_1 ? !parser.closeWanted() : parser.keepAliveWanted())
                    && !parser.closeAfter();
            bh.consume(req.hasBody());
            bh.consume(req);
        }

        @Override
        public void onBody(ByteBuf data) {
            bodyBytes += data.readableBytes();
            data.release();
        }

        @Override
        public void onEnd(HttpFields trailers) {
            ended = true;
            bh.consume(trailers);
        }

        @Override
        public void onError(H1Error error) {
            errors++;
        }
    }

    private final ConnectionSink sink = new ConnectionSink();
    private H1Parser parser;
    private ByteBuf get;
    private ByteBuf post;

    @Setup
    public void setUp(Blackhole bh) {
        parser = new H1Parser(true, H1Limits.DEFAULT, sink);
        sink.parser = parser;
        sink.bh = bh;
        get = received(GET);
        post = received(CHUNKED_POST);
        // the requests must parse whole and clean, or the figures measure something else
        check(get, false);
        check(post, true);
    }

    private static ByteBuf received(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(b.length);
        buf.writeBytes(b);
        return buf;
    }

    private void check(ByteBuf in, boolean body) {
        sink.ended = false;
        sink.bodyBytes = 0;
        parse(in);
        if (sink.errors != 0 || !sink.ended || !sink.keepAlive || in.isReadable() || (sink.bodyBytes > 0) != body) {
            throw new IllegalStateException("request not parsed as expected: errors " + sink.errors + ", ended " + sink.ended
                    + ", body " + sink.bodyBytes + ", left " + in.readableBytes());
        }
    }

    private int parse(ByteBuf in) {
        in.readerIndex(0);
        parser.parse(in);
        // the next request of the connection: H1ClientConnection.nextRequest
        parser.resume();
        return sink.requests;
    }

    @Benchmark
    public int get() {
        return parse(get);
    }

    @Benchmark
    public int chunkedPost() {
        return parse(post);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        get.release();
        post.release();
    }
}

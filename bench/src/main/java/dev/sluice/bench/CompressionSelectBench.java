package dev.sluice.bench;

import dev.sluice.config.model.Compression;
import dev.sluice.proxy.stream.Compressor;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What response compression costs every request of a proxy that has it, before any response: choosing the algorithm
 * from a browser's User-Agent and Accept-Encoding, the frontend's and the backend's settings both present.
 * <pre>java -jar bench/target/benchmarks.jar CompressionSelectBench -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CompressionSelectBench {
    private final Compression frontend = new Compression(List.of("gzip", "deflate"), List.of("text/html", "text/plain"), false);
    private final Compression backend = new Compression(List.of("gzip"), List.of(), false);
    private RequestHead request;

    @Setup
    public void setUp() {
        HttpFields f = new HttpFields();
        f.add("host", "example.com");
        f.add("user-agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0");
        f.add("accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
        f.add("accept-encoding", "gzip, deflate, br, zstd");
        request = new RequestHead(AsciiString.of("GET"), AsciiString.of("/"), HttpVersion.HTTP_1_1, f);
    }

    @Benchmark
    public String select() {
        return Compressor.select(backend, frontend, request);
    }
}

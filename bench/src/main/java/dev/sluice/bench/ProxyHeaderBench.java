package dev.sluice.bench;

import dev.sluice.proxy.listener.ProxyHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What {@code accept-proxy} and {@code send-proxy} cost per connection: reading a received PROXY header (v1 line,
 * v2 binary, IPv4 and IPv6, with the request bytes that follow it in the same read) and writing one. A connection's
 * accept and first handlers cost tens of microseconds (bench/load f-h1-close), so these are read against that.
 * <pre>java -jar bench/target/benchmarks.jar ProxyHeaderBench -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ProxyHeaderBench {
    @Param({"v1-tcp4", "v1-tcp6", "v2-tcp4", "v2-tcp6"})
    public String header;

    private ByteBuf received;
    private InetSocketAddress src;
    private InetSocketAddress dst;
    private int version;

    @Setup
    public void setUp() throws Exception {
        boolean v6 = header.endsWith("6");
        version = header.startsWith("v1") ? 1 : 2;
        src = new InetSocketAddress(InetAddress.getByName(v6 ? "2001:db8::1:2:3" : "192.0.2.10"), 51234);
        dst = new InetSocketAddress(InetAddress.getByName(v6 ? "2001:db8::443" : "198.51.100.20"), 443);
        ByteBuf h = ProxyHeader.write(ByteBufAllocator.DEFAULT, version, src, dst);
        received = Unpooled.directBuffer();
        received.writeBytes(h);
        h.release();
        received.writeCharSequence("GET / HTTP/1.1\r\nhost: example.com\r\nuser-agent: bench\r\n\r\n", StandardCharsets.US_ASCII);
    }

    @Benchmark
    public Object read() {
        return ProxyHeader.read(received);
    }

    @Benchmark
    public int write() {
        ByteBuf b = ProxyHeader.write(ByteBufAllocator.DEFAULT, version, src, dst);
        int n = b.readableBytes();
        b.release();
        return n;
    }
}

package dev.sluice.bench;

import dev.sluice.config.model.AclExpr;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.Acl;
import dev.sluice.proxy.rules.RuleCompiler;
import dev.sluice.proxy.rules.TlsHello;
import dev.sluice.proxy.rules.Txn;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
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

/**
 * Reading a real TLS 1.3 ClientHello the way {@code req.ssl_sni} routing does: a hello made by the JDK's
 * {@link SSLEngine} (SNI {@code www.example.com}, ALPN {@code h2,http/1.1}), padded to 517 bytes (the size browsers send,
 * with the padding extension), held in a pooled direct buffer as a stream would hold it.
 * <ul>
 * <li>{@code sni}, {@code alpn}, {@code helloType}, {@code version}: {@link TlsHello}'s readers alone (the parse; no
 * allocation expected);</li>
 * <li>{@code sniAcl}: the compiled ACL {@code req.ssl_sni -i www.example.com} on a target holding the hello (the parse,
 * the view of the name, the match);</li>
 * <li>{@code alpnAcl}: {@code req.ssl_alpn http/1.1}, which matches the second name.</li>
 * </ul>
 * Run: {@code java -jar bench/target/benchmarks.jar TlsHelloBench -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TlsHelloBench {
    /** The size of the hello record, as browsers pad theirs. */
    static final int SIZE = 517;

    private ByteBuf hello;
    private Held txn;
    private Acl sniAcl;
    private Acl alpnAcl;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        byte[] b = padded(jdkHello(), SIZE);
        hello = PooledByteBufAllocator.DEFAULT.directBuffer(SIZE);
        hello.writeBytes(b);
        txn = new Held(hello);
        sniAcl = RuleCompiler.acl(new AclExpr("req.ssl_sni", List.of("-i"), List.of("www.example.com")));
        alpnAcl = RuleCompiler.acl(new AclExpr("req.ssl_alpn", List.of(), List.of("http/1.1")));
        long sni = TlsHello.sni(hello);
        if (sni < 0 || TlsHello.length(sni) != 15 || sniAcl.eval(txn) != 3 || alpnAcl.eval(txn) != 3 || alpn() != 2) {
            throw new IllegalStateException("the hello does not read as expected");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        hello.release();
    }

    @Benchmark
    public long sni() {
        return TlsHello.sni(hello);
    }

    /** Walks the ALPN names; returns how many there are. */
    @Benchmark
    public int alpn() {
        long r = TlsHello.alpn(hello);
        int end = TlsHello.length(r);
        int count = 0;
        for (int at = TlsHello.offset(r); at < end; count++) {
            long name = TlsHello.alpnName(hello, at, end);
            at = TlsHello.offset(name) + TlsHello.length(name);
        }
        return count;
    }

    @Benchmark
    public int helloType() {
        return TlsHello.helloType(hello);
    }

    @Benchmark
    public int version() {
        return TlsHello.version(hello, 15360);
    }

    @Benchmark
    public int sniAcl() {
        return sniAcl.eval(txn);
    }

    @Benchmark
    public int alpnAcl() {
        return alpnAcl.eval(txn);
    }

    /** The JDK's first flight as a TLS 1.3 client. */
    static byte[] jdkHello() throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, null, null);
        SSLEngine engine = ctx.createSSLEngine("www.example.com", 443);
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(new String[] {"TLSv1.3"});
        p.setServerNames(List.of(new SNIHostName("www.example.com")));
        p.setApplicationProtocols(new String[] {"h2", "http/1.1"});
        engine.setSSLParameters(p);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.beginHandshake();
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] b = new byte[out.remaining()];
        out.get(b);
        return b;
    }

    /** {@code hello} (one record) with a padding extension (21) at the end of its extensions, {@code size} bytes long. */
    static byte[] padded(byte[] hello, int size) {
        int add = size - hello.length;
        if (add < 4) {
            throw new IllegalArgumentException("the hello is " + hello.length + " bytes already");
        }
        int p = 9 + 34;
        p += 1 + (hello[p] & 0xff);
        p += 2 + ((hello[p] & 0xff) << 8 | hello[p + 1] & 0xff);
        p += 1 + (hello[p] & 0xff);
        byte[] out = new byte[size];
        System.arraycopy(hello, 0, out, 0, hello.length);
        // padding: type 21, length add - 4, zeros
        out[hello.length] = 0;
        out[hello.length + 1] = 21;
        out[hello.length + 2] = (byte) ((add - 4) >> 8);
        out[hello.length + 3] = (byte) (add - 4);
        addTo(out, 3, 2, add);
        addTo(out, 6, 3, add);
        addTo(out, p, 2, add);
        return out;
    }

    private static void addTo(byte[] b, int at, int width, int add) {
        int v = 0;
        for (int i = 0; i < width; i++) {
            v = v << 8 | b[at + i] & 0xff;
        }
        v += add;
        for (int i = width - 1; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>= 8;
        }
    }

    /** A stream holding the hello: what the {@code req.ssl_*} fetches read. */
    static final class Held implements Txn {
        private final ByteBuf payload;
        private final InetSocketAddress address = new InetSocketAddress("127.0.0.1", 443);
        private final Map<String, Object> vars = new HashMap<>();
        private boolean mayChange;

        Held(ByteBuf payload) {
            this.payload = payload;
        }

        @Override
        public ByteBuf requestPayload() {
            return payload;
        }

        @Override
        public boolean contentFinal() {
            return false;
        }

        @Override
        public void mayChange() {
            mayChange = true;
        }

        @Override
        public boolean takeMayChange() {
            boolean m = mayChange;
            mayChange = false;
            return m;
        }

        @Override
        public RequestHead request() {
            return null;
        }

        @Override
        public ResponseHead response() {
            return null;
        }

        @Override
        public InetSocketAddress clientAddress() {
            return address;
        }

        @Override
        public InetSocketAddress frontendAddress() {
            return address;
        }

        @Override
        public boolean tls() {
            return false;
        }

        @Override
        public String sni() {
            return null;
        }

        @Override
        public String frontendName() {
            return "ft";
        }

        @Override
        public String backendName() {
            return null;
        }

        @Override
        public Map<String, Object> vars() {
            return vars;
        }
    }
}

package dev.sluice.bench;

import dev.sluice.proxy.tls.TlsProvider;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslPrivateKeyMethod;
import io.netty.handler.ssl.OpenSslX509KeyManagerFactory;
import io.netty.util.ReferenceCounted;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One full TLS handshake with an RSA-2048 certificate, client and server engines (both BoringSSL through netty-tcnative)
 * in memory, as the listener's contexts make it: {@code signer=BORINGSSL} lets BoringSSL sign the server's
 * CertificateVerify, {@code signer=OPENSSL} gives the signature to the system's OpenSSL 3 ({@code TlsProvider.keyMethod},
 * what Sluice does when libcrypto.so.3 loads). The client's side (ECDHE, the RSA verification) is the same in both: the
 * difference of the two scores is the server's saving per full handshake. {@code version} picks TLS 1.3 (RSA-PSS) or
 * TLS 1.2 (ECDHE-RSA, PKCS#1 or PSS as the client offers).
 * <p>Run: {@code bench/jmh-paired.sh 6 RsaHandshakeBench signer BORINGSSL,OPENSSL}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RsaHandshakeBench {
    @Param({"BORINGSSL", "OPENSSL"})
    public String signer;

    @Param({"TLSv1.3"})
    public String version;

    private SslContext server;
    private SslContext client;
    private ByteBuffer c2s;
    private ByteBuffer s2c;
    private ByteBuffer app;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        SelfSignedCertificate cert = new SelfSignedCertificate("localhost", "RSA", 2048);
        OpenSslPrivateKeyMethod m = TlsProvider.detect().keyMethod(cert.key());
        if (m == null) {
            throw new IllegalStateException("libcrypto.so.3 does not load here");
        }
        // as ServerTlsContext builds them: BoringSSL without the key when another library signs
        server = signer.equals("OPENSSL")
                ? SslContextBuilder.forServer(OpenSslX509KeyManagerFactory.newKeyless(cert.cert())).sslProvider(SslProvider.OPENSSL)
                        .protocols(version).option(OpenSslContextOption.PRIVATE_KEY_METHOD, m).build()
                : SslContextBuilder.forServer(cert.key(), cert.cert()).sslProvider(SslProvider.OPENSSL).protocols(version).build();
        client = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL).protocols(version)
                .trustManager(InsecureTrustManagerFactory.INSTANCE).build();
        c2s = ByteBuffer.allocateDirect(64 * 1024);
        s2c = ByteBuffer.allocateDirect(64 * 1024);
        app = ByteBuffer.allocateDirect(64 * 1024);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ReferenceCountUtil.release(server);
        ReferenceCountUtil.release(client);
    }

    @Benchmark
    public int handshake() throws Exception {
        SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
        SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, "localhost", 443);
        try {
            s.setUseClientMode(false);
            c.setUseClientMode(true);
            c.beginHandshake();
            s.beginHandshake();
            ByteBuffer empty = ByteBuffer.allocate(0);
            c2s.clear();
            s2c.clear();
            for (int turns = 0; turns < 20; turns++) {
                c.wrap(empty, c2s);
                c2s.flip();
                s.unwrap(c2s, app);
                app.clear();
                c2s.compact();
                runTasks(s);
                s.wrap(empty, s2c);
                s2c.flip();
                c.unwrap(s2c, app);
                app.clear();
                s2c.compact();
                runTasks(c);
                if (done(c) && done(s)) {
                    return turns;
                }
            }
            throw new IllegalStateException("no handshake");
        } finally {
            ((ReferenceCounted) s).release();
            ((ReferenceCounted) c).release();
        }
    }

    private static boolean done(SSLEngine e) {
        HandshakeStatus h = e.getHandshakeStatus();
        return h == HandshakeStatus.FINISHED || h == HandshakeStatus.NOT_HANDSHAKING;
    }

    private static void runTasks(SSLEngine e) {
        Runnable r;
        while ((r = e.getDelegatedTask()) != null) {
            r.run();
        }
    }
}

package dev.sluice.proxy.cli;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.proxy.http.HttpVersion;
import io.netty.handler.codec.quic.Quic;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;

/**
 * The client side of a start-up cache trained on a deployment's own configuration ({@code ./sluice aot -f <cfg>}):
 * the launcher runs the daemon on that configuration with {@code -XX:AOTCacheOutput}, this class (in another JVM,
 * so that none of its classes enter the cache) sends requests to every HTTP listener of the configuration for a
 * few seconds each, over what the listener speaks (HTTP/1.1, TLS with h2 and http/1.1, h2c, HTTP/3), then the
 * launcher stops the daemon, which writes the cache: the classes and the method profiles of the deployment's own
 * request paths (docs/design.md, "Start-up"). Any answer counts (the point is to run the code): a listener that does
 * not answer at all is reported. Exit status 0 when some listener answered, 1 otherwise.
 *
 * <p>Arguments: the daemon's own ({@code -f <file|dir>}, {@code -C <dir>}...). {@code SLUICE_AOT_SECONDS}: seconds
 * per listener (default 3).
 */
public final class AotExercise {
    private static final int WORKERS = 4;

    private AotExercise() {
    }

    /** One listener to exercise. */
    record Target(String proxy, String host, int port, String kind) {
        @Override
        public String toString() {
            return proxy + " " + kind + " " + host + ":" + port;
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("jdk.internal.httpclient.disableHostnameVerification", "true");
        Options opts = Options.parse(args);
        Main.Parsed parsed = Main.parse(Main.files(opts), null, opts.chdir() == null ? null : opts.chdir().toString());
        if (parsed.config() == null) {
            parsed.diagnostics().forEach(System.err::println);
            System.exit(1);
        }
        List<Target> targets = targets(parsed.config());
        long seconds = Long.getLong("sluice.aot.seconds", envSeconds());
        int answered = 0;
        for (Target t : targets) {
            if (!waitForListener(t, 30_000)) {
                System.err.println("aot training: " + t + " does not accept connections");
                continue;
            }
            long n = exercise(t, System.nanoTime() + seconds * 1_000_000_000L);
            System.err.println("aot training: " + t + ": " + n + " answers");
            if (n > 0) {
                answered++;
            }
        }
        System.exit(answered > 0 ? 0 : 1);
    }

    private static long envSeconds() {
        try {
            return Long.parseLong(System.getenv().getOrDefault("SLUICE_AOT_SECONDS", "3"));
        } catch (NumberFormatException e) {
            return 3;
        }
    }

    /** The HTTP listeners of {@code config} reachable over TCP or UDP (unix sockets and inherited fds left out). */
    static List<Target> targets(Config config) {
        List<Target> out = new ArrayList<>();
        for (Proxy p : config.proxies()) {
            if (p.mode() != Mode.HTTP) {
                continue;
            }
            for (Bind b : p.binds()) {
                if (b.address() instanceof ListenAddress.Inet a) {
                    String kind = b.tls() != null ? "tls" : "h2".equals(b.proto()) ? "h2c" : "h1";
                    out.add(new Target(p.name(), connectHost(a.host()), a.port(), kind));
                } else if (b.address() instanceof ListenAddress.Quic a && Quic.isAvailable()) {
                    out.add(new Target(p.name(), connectHost(a.host()), a.port(), "h3"));
                }
            }
        }
        return out;
    }

    private static String connectHost(String host) {
        if (host == null || host.isEmpty() || host.equals("*") || host.equals("0.0.0.0")) {
            return "127.0.0.1";
        }
        return host.equals("::") ? "::1" : host;
    }

    private static boolean waitForListener(Target t, long timeoutMs) throws InterruptedException {
        if (t.kind().equals("h3")) {
            return true;
        }
        long end = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < end) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(t.host(), t.port()), 1000);
                return true;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        return false;
    }

    /** Requests to {@code t} from a few threads until {@code deadline} (System.nanoTime); returns the answers. */
    private static long exercise(Target t, long deadline) throws Exception {
        AtomicLong answers = new AtomicLong();
        if (t.kind().equals("h3")) {
            try {
                while (System.nanoTime() < deadline) {
                    int failed = AotTraining.h3(t.port(), 50, false);
                    answers.addAndGet(50 - failed);
                    if (failed == 50) {
                        break;
                    }
                }
            } catch (Exception e) {
                System.err.println("aot training: " + t + ": " + e);
            }
            return answers.get();
        }
        String authority = t.host().contains(":") ? "[" + t.host() + "]:" + t.port() : t.host() + ":" + t.port();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            int worker = i;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    switch (t.kind()) {
                        case "h2c" -> answers.addAndGet(h2c(t.host(), t.port(), authority, deadline));
                        case "tls" -> answers.addAndGet(http(URI.create("https://" + authority + "/"),
                                worker % 2 == 0 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1, deadline));
                        default -> answers.addAndGet(http(URI.create("http://" + authority + "/"), HttpClient.Version.HTTP_1_1, deadline));
                    }
                } catch (Exception e) {
                    System.err.println("aot training: " + t + ": " + e);
                }
            }));
        }
        for (Thread th : threads) {
            th.join();
        }
        return answers.get();
    }

    private static long http(URI uri, HttpClient.Version version, long deadline) throws Exception {
        SSLContext trustAll = SSLContext.getInstance("TLS");
        trustAll.init(null, InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
        long n = 0;
        try (HttpClient c = HttpClient.newBuilder().version(version).sslContext(trustAll).connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build();
            while (System.nanoTime() < deadline) {
                c.send(req, HttpResponse.BodyHandlers.discarding());
                n++;
            }
        }
        return n;
    }

    /**
     * Cleartext HTTP/2 with prior knowledge (the JDK's client only upgrades): GET / in batches of 10 streams on one
     * connection, HPACK from the static table and one literal (:authority); returns the streams that ended.
     */
    static long h2c(String host, int port, String authority, long deadline) throws IOException {
        try (Socket s = new Socket(host, port)) {
            s.setSoTimeout(10_000);
            OutputStream out = new BufferedOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            out.write(HttpVersion.H2_PREFACE);
            frame(out, 4, 0, 0, new byte[0]);
            frame(out, 8, 0, 0, int32((1 << 30) - 65_535));
            byte[] a = authority.getBytes(StandardCharsets.US_ASCII);
            byte[] block = new byte[5 + a.length];
            block[0] = (byte) 0x82; // :method GET
            block[1] = (byte) 0x86; // :scheme http
            block[2] = (byte) 0x84; // :path /
            block[3] = 0x01; // :authority, literal without indexing
            block[4] = (byte) a.length;
            System.arraycopy(a, 0, block, 5, a.length);
            long n = 0;
            int stream = 1;
            while (System.nanoTime() < deadline && stream < (1 << 30)) {
                for (int k = 0; k < 10; k++, stream += 2) {
                    frame(out, 1, 0x5, stream, block);
                }
                out.flush();
                for (int done = 0; done < 10; ) {
                    int len = in.readUnsignedShort() << 8 | in.readUnsignedByte();
                    int type = in.readUnsignedByte();
                    int flags = in.readUnsignedByte();
                    int sid = in.readInt() & 0x7fffffff;
                    byte[] payload = in.readNBytes(len);
                    switch (type) {
                        case 4 -> {
                            if ((flags & 1) == 0) {
                                frame(out, 4, 1, 0, new byte[0]);
                                out.flush();
                            }
                        }
                        case 6 -> {
                            if ((flags & 1) == 0) {
                                frame(out, 6, 1, 0, payload);
                                out.flush();
                            }
                        }
                        case 7 -> {
                            return n;
                        }
                        case 3 -> done++;
                        case 0, 1 -> {
                            if (type == 0 && len > 0) {
                                frame(out, 8, 0, sid, int32(len));
                                frame(out, 8, 0, 0, int32(len));
                                out.flush();
                            }
                            if ((flags & 1) != 0 && sid % 2 == 1) {
                                done++;
                                n++;
                            }
                        }
                        default -> {
                        }
                    }
                }
            }
            return n;
        }
    }

    private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(new byte[] {(byte) (payload.length >> 16), (byte) (payload.length >> 8), (byte) payload.length, (byte) type, (byte) flags,
            (byte) (stream >> 24), (byte) (stream >> 16), (byte) (stream >> 8), (byte) stream});
        out.write(payload);
    }

    private static byte[] int32(int v) {
        return new byte[] {(byte) (v >> 24), (byte) (v >> 16), (byte) (v >> 8), (byte) v};
    }
}

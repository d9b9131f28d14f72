package dev.sluice.bench;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Proxy;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.rules.Txn;
import io.netty.util.AsciiString;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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
 * Server selection per {@code balance} algorithm: one pick for a request (its slot taken) and the slot
 * given back, as a stream does, over 8 servers of mixed weights. The requests cycle through 1024
 * prepared ones (paths, a user parameter, a user header, client addresses) so that the hash algorithms
 * hash real keys. Compare each algorithm's ops/s with {@code roundrobin}.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar LbBench -f 1 -wi 3 -i 5 -w 1s -r 1s} (add
 * {@code -t 2} to see two event loops picking at once).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LbBench {

    @Param({"roundrobin", "static-rr", "leastconn", "first", "random", "source", "uri", "uri consistent", "url_param", "hdr",
        "hash expr"})
    public String algorithm;

    private Backend backend;
    private Txn[] requests;

    /** Per-thread position in the request array. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
    }

    private static String balance(String algorithm) {
        return switch (algorithm) {
            case "uri consistent" -> "balance uri\n    hash-type consistent";
            case "url_param" -> "balance url_param user";
            case "hdr" -> "balance hdr(x-user)";
            case "hash expr" -> "balance hash req.hdr(host),lower";
            default -> "balance " + algorithm;
        };
    }

    @Setup
    public void setup() throws UnknownHostException {
        StringBuilder cfg = new StringBuilder("""
                defaults
                    mode http
                    timeout client 1s
                    timeout server 1s
                    timeout connect 1s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend be
                backend be
                """);
        cfg.append("    ").append(balance(algorithm)).append('\n');
        int[] weights = {10, 10, 20, 5, 10, 1, 30, 10};
        for (int i = 0; i < weights.length; i++) {
            cfg.append("    server s").append(i + 1).append(" 127.0.0.1:").append(8001 + i).append(" weight ").append(weights[i]).append('\n');
        }
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(),
                new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "3.2")).parse(List.of(new ConfigParser.Source("bench.cfg",
                        cfg.toString())));
        if (!r.ok()) {
            throw new IllegalStateException(r.diagnostics().toString());
        }
        Proxy be = r.config().proxy("be").orElseThrow();
        List<Backend.ResolvedServer> servers = new ArrayList<>();
        for (dev.sluice.config.model.Server s : be.servers()) {
            servers.add(new Backend.ResolvedServer(s, new InetSocketAddress(InetAddress.getLoopbackAddress(), s.port()), null));
        }
        backend = new Backend(be, servers, 1, null);
        Random rnd = new Random(42);
        requests = new Txn[1024];
        for (int i = 0; i < requests.length; i++) {
            String user = Long.toString(rnd.nextLong() & 0xffffff, 36);
            String target = "/app/" + Long.toString(rnd.nextLong() & 0xffffffffL, 36) + "/item?user=" + user + "&page=" + rnd.nextInt(50);
            HttpFields f = new HttpFields();
            f.add("host", "Shop" + rnd.nextInt(20) + ".Example.com");
            f.add("x-user", user);
            f.add("accept", "*/*");
            byte[] raw = ("GET " + target + " HTTP/1.1").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            RequestHead head = new RequestHead(AsciiString.of("GET"), new AsciiString(raw, 4, target.length(), false), HttpVersion.HTTP_1_1, f);
            InetAddress ip = InetAddress.getByAddress(new byte[] {10, (byte) rnd.nextInt(256), (byte) rnd.nextInt(256), (byte) rnd.nextInt(256)});
            requests[i] = new BenchTxn(head, new InetSocketAddress(ip, 40000 + i));
        }
    }

    @Benchmark
    public Server pick(Cursor c) {
        Txn t = requests[c.next++ & (requests.length - 1)];
        Server s = backend.pickServer(t);
        s.streamEnded();
        return s;
    }

    /** A request as the algorithms see it. */
    private static final class BenchTxn extends dev.sluice.proxy.rules.RequestTxn {
        BenchTxn(RequestHead request, InetSocketAddress client) {
            super(request, client, client, "fe", "be");
        }
    }
}

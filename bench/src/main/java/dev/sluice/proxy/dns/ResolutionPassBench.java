package dev.sluice.proxy.dns;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Proxy;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DefaultDnsResponse;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsSection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
 * One resolution pass over a {@code server-template} of 1,000 slots following one name: the answer read from Netty's
 * decoded message ({@link DnsAnswer}), its 1,000 A records merged with those kept (HAProxy's order), and every slot
 * given its address ({@link ServerUpdates}). {@code steady}: the same records each pass (the usual case: every slot keeps
 * its address); {@code churn}: every pass answers another 1,000 addresses, so every record goes and every slot changes
 * its address (a log line each, here to no target). It lives in the dns package to reach the section's pass without
 * the network.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar ResolutionPassBench -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc}
 * (time per pass, and {@code gc.alloc.rate.norm}: bytes allocated per pass).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ResolutionPassBench {
    private static final int SERVERS = 1000;

    @Param({"steady", "churn"})
    public String records;

    private ResolverSection section;
    private Resolution resolution;
    private Nameserver ns;
    private final DnsQuestion question = new DefaultDnsQuestion("app.test.", DnsRecordType.A);
    private DnsResponse[] answers;
    private int next;
    private long now;

    @Setup(Level.Trial)
    public void setup() {
        String cfg = """
                resolvers dns
                    nameserver ns1 127.0.0.1:53
                defaults
                    mode http
                    timeout client 1s
                    timeout server 1s
                    timeout connect 1s
                backend be
                    server-template w %d app.test:80 resolvers dns init-addr none resolve-prefer ipv4
                """.formatted(SERVERS);
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get,
                Set.of(), "3.2")).parse(List.of(new ConfigParser.Source("bench.cfg", cfg)));
        if (!r.ok()) {
            throw new IllegalStateException(r.diagnostics().toString());
        }
        Proxy be = r.config().proxy("be").orElseThrow();
        List<Backend.ResolvedServer> servers = new ArrayList<>();
        for (dev.sluice.config.model.Server s : be.servers()) {
            servers.add(new Backend.ResolvedServer(s, Server.unresolvedAddress(s.port()), null));
        }
        Backend backend = new Backend(be, servers, 1, null);
        section = new ResolverSection(r.config().resolvers("dns").orElseThrow(), null, null, s -> {
        });
        for (Server s : backend.servers()) {
            section.add(s, s.config().dns());
        }
        resolution = section.resolution("app.test", DnsAnswer.A, false);
        ns = section.nameservers().get(0);
        answers = new DnsResponse[records.equals("churn") ? 2 : 1];
        for (int set = 0; set < answers.length; set++) {
            DnsResponse m = new DefaultDnsResponse(1);
            m.addRecord(DnsSection.QUESTION, question);
            for (int i = 0; i < SERVERS; i++) {
                m.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord("app.test.", DnsRecordType.A, 60,
                        Unpooled.wrappedBuffer(new byte[] {10, (byte) set, (byte) (i >> 8), (byte) i})));
            }
            answers[set] = m;
        }
        // the first pass fills the slots
        pass();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (DnsResponse m : answers) {
            m.release();
        }
    }

    @Benchmark
    public int pass() {
        DnsResponse m = answers[next++ % answers.length];
        DnsAnswer a = DnsAnswer.of(m, question);
        // a pass a second apart: with 'hold obsolete 0' the records of the previous pass go when they are not in this one
        now += 1000;
        section.valid(resolution, a, ns, now);
        return a.items().size();
    }
}

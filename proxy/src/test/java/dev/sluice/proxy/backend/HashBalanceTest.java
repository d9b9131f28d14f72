package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Requests.from;
import static dev.sluice.proxy.backend.Requests.get;
import static dev.sluice.proxy.backend.Requests.names;
import static dev.sluice.proxy.backend.Requests.paths;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.HashType;
import dev.sluice.proxy.rules.Hashes;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The hash algorithms: what they hash, with which function, and where it lands (recorded from HAProxy 2.6). */
class HashBalanceTest {
    private static final String FOUR = Backends.servers("", 1, 1, 1, 1);

    private static long hash(HashType type, String key) {
        byte[] b = key.getBytes(StandardCharsets.ISO_8859_1);
        return new HashFunction(type).hash(b, 0, b.length) & 0xffff_ffffL;
    }

    @Test
    void hashFunctionsAreHaproxys() {
        // values printed by HAProxy 2.6's converters for "/url1": sdbm, sdbm(1), wt6, crc32, djb2
        assertThat(hash(HashType.DEFAULT, "/url1")).isEqualTo(4103199409L);
        assertThat(hash(new HashType(HashType.Method.MAP_BASED, HashType.Function.SDBM, true), "/url1")).isEqualTo(2561722472L);
        assertThat(hash(new HashType(HashType.Method.MAP_BASED, HashType.Function.WT6, false), "/url1")).isEqualTo(2463210733L);
        assertThat(hash(new HashType(HashType.Method.MAP_BASED, HashType.Function.WT6, false), "/a")).isEqualTo(1404582375L);
        assertThat(hash(new HashType(HashType.Method.MAP_BASED, HashType.Function.CRC32, false), "/url1")).isEqualTo(380733385L);
        assertThat(hash(new HashType(HashType.Method.MAP_BASED, HashType.Function.DJB2, false), "/url1")).isEqualTo(194222904L);
        assertThat(Hashes.fullAvalanche((int) 4103199409L) & 0xffff_ffffL).isEqualTo(2561722472L);
        assertThat(hash(new HashType(HashType.Method.MAP_BASED, HashType.Function.NONE, false), "12345")).isEqualTo(12345L);
        assertThat(hash(new HashType(HashType.Method.MAP_BASED, HashType.Function.NONE, false), "-1x")).isEqualTo(0xffff_ffffL);
        assertThat(hash(new HashType(HashType.Method.MAP_BASED, HashType.Function.NONE, false), "abc")).isZero();
    }

    @Test
    void uriWithFourEqualServers() {
        Backend b = Backends.of("balance uri\n" + FOUR);
        assertThat(names(b, paths("/url1", "/url2", "/url3", "/url4"))).isEqualTo("s2 s3 s4 s1");
        // the query string is not hashed unless 'whole'
        assertThat(names(b, paths("/url1?x=1", "/url1?y"))).isEqualTo("s2 s2");
        assertThat(names(Backends.of("balance uri whole\n" + FOUR), paths("/url1?x=1"))).isEqualTo("s" + (1 + Long.remainderUnsigned(
                hash(HashType.DEFAULT, "/url1?x=1"), 4)));
    }

    @Test
    void uriLenDepthAndPathOnly() {
        Backend len = Backends.of("balance uri len 4\n" + FOUR);
        long h = hash(HashType.DEFAULT, "/url");
        String expected = "s" + (1 + h % 4);
        assertThat(names(len, paths("/url1", "/url2", "/urlxyz"))).isEqualTo(expected + " " + expected + " " + expected);
        Backend depth = Backends.of("balance uri depth 2\n" + FOUR);
        String d = "s" + (1 + hash(HashType.DEFAULT, "/a/b") % 4);
        assertThat(names(depth, paths("/a/b/c", "/a/b/d/e", "/a/b"))).isEqualTo(d + " " + d + " " + d);
        Backend pathOnly = Backends.of("balance uri path-only\n" + FOUR);
        assertThat(names(pathOnly, paths("http://example.com/url1", "/url1", "https://x:8443/url1?q"))).isEqualTo("s2 s2 s2");
        // without path-only the authority is hashed too
        assertThat(names(Backends.of("balance uri\n" + FOUR), paths("http://example.com/url1")))
                .isEqualTo("s" + (1 + hash(HashType.DEFAULT, "http://example.com/url1") % 4));
        // no path at all: the empty key, hash 0
        assertThat(names(pathOnly, paths("*", "http://example.com"))).isEqualTo("s1 s1");
    }

    @Test
    void weightedUriMapAndConsistentRing() {
        // recorded from HAProxy 2.6, /url1../url8
        Txn8 t = new Txn8();
        assertThat(names(Backends.of("balance uri\n" + Backends.servers("", 1, 2, 3)), t.urls)).isEqualTo("s3 s2 s3 s2 s3 s1 s3 s2");
        assertThat(names(Backends.of("balance uri\nhash-type consistent\n" + FOUR), t.urls)).isEqualTo("s2 s1 s3 s1 s4 s2 s1 s1");
        assertThat(names(Backends.of("balance uri\nhash-type consistent\n" + Backends.servers("", 1, 2, 3)), t.urls))
                .isEqualTo("s2 s1 s3 s1 s3 s3 s1 s1");
    }

    private static final class Txn8 {
        final dev.sluice.proxy.rules.Txn[] urls = paths("/url1", "/url2", "/url3", "/url4", "/url5", "/url6", "/url7", "/url8");
    }

    @Test
    void sourceHashesTheAddressItself() {
        // recorded from HAProxy 2.6
        String[] ips = {"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.1.2.3", "127.200.100.50"};
        dev.sluice.proxy.rules.Txn[] reqs = new dev.sluice.proxy.rules.Txn[ips.length];
        for (int i = 0; i < ips.length; i++) {
            reqs[i] = from(ips[i], "/");
        }
        assertThat(names(Backends.of("balance source\n" + FOUR), reqs)).isEqualTo("s2 s3 s4 s1 s4 s3");
        assertThat(names(Backends.of("balance source\nhash-type consistent\n" + FOUR), reqs)).isEqualTo("s4 s4 s3 s1 s3 s1");
    }

    @Test
    void sourceOfAnIpv6ClientXorsItsWords() {
        // 2001:db8::1 -> 0x20010db8 ^ 0 ^ 0 ^ 1 = 0x20010db9, which is 1 modulo 4
        assertThat(names(Backends.of("balance source\n" + FOUR), from("2001:db8::1", "/"))).isEqualTo("s2");
        assertThat(names(Backends.of("balance source\n" + FOUR), from("::3", "/"))).isEqualTo("s4");
    }

    @Test
    void urlParam() {
        Backend b = Backends.of("balance url_param id\n" + FOUR);
        String s = "s" + (1 + hash(HashType.DEFAULT, "abc") % 4);
        assertThat(names(b, paths("/?id=abc", "/x?a=1&id=abc&b=2", "/x?xid=1&id=abc", "/?id=abc#f"))).startsWith(s + " " + s + " " + s);
        // an empty value hashes to 0: the first server
        assertThat(names(b, paths("/?id=", "/?id=&z"))).isEqualTo("s1 s1");
        // no parameter: round robin over the map
        assertThat(names(b, paths("/", "/?ids=1", "/?id", "/?x=id=abc"))).isEqualTo("s1 s2 s3 s4");
    }

    @Test
    void headerHashesTheFirstValue() {
        Backend b = Backends.of("balance hdr(X-Key)\n" + FOUR);
        String s = "s" + (1 + hash(HashType.DEFAULT, "abc") % 4);
        assertThat(names(b, get("/", "x-key: abc"), get("/", "x-key:  abc , def"), get("/", "x-key: abc", "x-key: zzz"))).isEqualTo(s + " " + s + " " + s);
        // absent or empty: round robin
        assertThat(names(b, get("/"), get("/", "x-key: "), get("/", "other: abc"))).isEqualTo("s1 s2 s3");
    }

    @Test
    void useDomainOnlyKeepsTheLabelBeforeTheLastDot() {
        Backend b = Backends.of("balance hdr(host) use_domain_only\n" + FOUR);
        String s = "s" + (1 + hash(HashType.DEFAULT, "1wt") % 4);
        assertThat(names(b, get("/", "host: haproxy.1wt.eu"), get("/", "host: www.1wt.eu"), get("/", "host: 1wt.eu"))).isEqualTo(s + " " + s + " " + s);
        // no dot: the whole value
        assertThat(names(b, get("/", "host: localhost"))).isEqualTo("s" + (1 + hash(HashType.DEFAULT, "localhost") % 4));
    }

    @Test
    void hashExpressionsHashTheSampleBytes() {
        Backend path = Backends.of("balance hash path\n" + FOUR);
        assertThat(names(path, paths("/url1", "/url2", "/url3?q", "/url4"))).isEqualTo("s2 s3 s4 s1");
        Backend host = Backends.of("balance hash req.hdr(host),lower\n" + FOUR);
        String s = "s" + (1 + hash(HashType.DEFAULT, "example.com") % 4);
        assertThat(names(host, get("/", "host: Example.COM"), get("/a", "host: example.com"))).isEqualTo(s + " " + s);
        // an address is its 4 bytes; an integer its 8 big-endian bytes
        Backend src = Backends.of("balance hash src\n" + FOUR);
        long h = Hashes.sdbm(new byte[] {127, 0, 0, 1}) & 0xffff_ffffL;
        assertThat(names(src, from("127.0.0.1", "/"))).isEqualTo("s" + (1 + h % 4));
        Backend count = Backends.of("balance hash hdr_cnt(host)\n" + FOUR);
        long one = Hashes.sdbm(new byte[] {0, 0, 0, 0, 0, 0, 0, 1}) & 0xffff_ffffL;
        assertThat(names(count, get("/", "host: a"))).isEqualTo("s" + (1 + one % 4));
        // no sample: round robin
        Backend missing = Backends.of("balance hash req.hdr(x-none)\n" + FOUR);
        assertThat(names(missing, paths("/", "/", "/"))).isEqualTo("s1 s2 s3");
    }

    @Test
    void consistentFallbackWalksTheRing() {
        // recorded from HAProxy 2.6: balance hdr(x-none) + hash-type consistent, 3 servers, no header
        Backend b = Backends.of("balance hdr(x-none)\nhash-type consistent\n" + Backends.servers("", 1, 1, 1));
        assertThat(names(b, paths("/", "/", "/", "/", "/", "/", "/", "/", "/", "/", "/", "/", "/", "/")))
                .isEqualTo("s3 s3 s2 s1 s3 s1 s1 s2 s3 s1 s1 s1 s2 s2");
    }

    @Test
    void aFullHashedServerGivesNoServer() {
        Backend b = Backends.of("balance uri\nserver s1 maxconn 1\nserver s2 maxconn 1\nserver s3\nserver s4");
        Server first = b.pickServer(get("/url4"));
        assertThat(first.name()).isEqualTo("s1");
        // HAProxy would queue this request on s1; without queues there is no server
        assertThat(b.pickServer(get("/url4"))).isNull();
        first.streamEnded();
        assertThat(names(b, get("/url4"))).isEqualTo("s1");
    }
}

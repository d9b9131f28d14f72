package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Converters and fetches, Sluice against HAProxy 2.6 on one configuration: each expression of the table is the body of
 * an {@code http-request return ... lf-string "%[expr]"} selected by the path, and both daemons must answer the same
 * bodies.
 */
class SampleParityTest {
    static final List<String> EXPRESSIONS = List.of(
            "str(abc),sha1,hex", "str(abc),sha2,hex", "str(abc),sha2(384),hex", "str(abc),sha2(512),hex",
            "str(abc),digest(md5),hex", "str(abc),digest(sha256),base64", "str(abc),hmac(sha256,a2V5),hex",
            "str(abc),hmac(sha1,a2V5),hex", "str(hello),crc32", "str(hello),crc32c", "str(hello),crc32c(1)", "str(hello),djb2",
            "str(hello),sdbm", "str(hello),wt6", "str(hello),xxh32", "str(hello),xxh32(5)", "str(hello),xxh64",
            "str(0123456789abcdef0123456789abcdefXYZ),xxh64(3)", "str(0123456789abcdefXYZ),xxh32", "str(hello),length",
            "str(),length", "bool(1),iif(yes,no)", "bool(0),iif(yes,no)", "int(6),even", "int(7),odd", "int(5),cpl",
            "int(12),and(10)", "int(12),or(3)", "int(12),xor(5)", "int(258),htonl,hex", "str(abcdef),be2hex",
            "str(abcdef),be2hex(:,2)", "str(abcde),be2hex(:,2,1)", "str(abcdef),be2dec(-,2)", "str(abcde),be2dec(.,2,1)",
            "str(xxabcxx),ltrim(x)", "str(xxabcxx),rtrim(x)", "str(a),add_item(:,,suf)", "str(),add_item(:,,suf)",
            "str(a b/c?d=e&f~),url_enc", "str(hello world!!),ub64enc", "str(aGVsbG8gd29ybGQhIQ),ub64dec",
            "int(1500000000),http_date", "int(1500000000123),http_date(0,ms)", "int(1500000000),http_date(3600)",
            "int(1500000000),utime(%Y-%m-%d %H:%M:%S %a %b %j %e)", "str(fr-FR;q=0.8),language(de;fr;en,zz)",
            "str(de),language(fr;en,zz)", "str(abc),debug", "str(AbC),lower", "str(AbC),upper", "str(a.b.c),field(2,.)",
            "str(a..b.c),word(2,.)", "str(abc),base64", "str(YWJj),b64dec", "str(abc),hex", "str(ff),hex2i", "int(7),add(3)",
            "int(7),sub(3)", "int(7),mul(3)", "int(7),div(2)", "int(7),mod(4)", "int(7),neg", "int(0),not", "int(3),bool",
            "str(a%20b),url_dec", "str(abc),bytes(1,1)", "str(aXbXc),regsub(X,-,g)", "ipv4(10.1.2.3),ipmask(16)",
            "ipv6(2001:db8::1)", "meth(GET)", "bin(414243)", "str(x),map_end(MAPS/ext.map,dflt)", "str(/i/x.png),map_end(MAPS/ext.map,dflt)",
            "str(/i/x.png),map_end_int(MAPS/int.map,0),add(1)", "str(foo-42),map_regm(MAPS/regm.map,none)",
            "str(a/b/c),map_dir(MAPS/dir.map,none)", "str(10.1.2.3),map_ip(MAPS/ip.map,none)", "baseq,regsub(^[^/]*,)", "fc_dst,ipmask(8)", "fc_src", "urlp_val(q)", "url_port", "req.hdrs,length,bool",
            // the client connection's socket: TCP_INFO (loopback: an RTT of microseconds, nothing in flight or lost; the
            // reordering estimate starts from the kernel's metrics for the peer, 3 or more), local addresses, the HTTP
            // encoding on the wire
            "fc_rtt(us),bool", "fc_rttvar(us),bool", "fc_unacked", "fc_sacked", "fc_lost", "fc_retrans", "fc_fackets",
            "fc_reordering,bool", "src_is_local", "fc_src_is_local", "dst_is_local", "fc_dst_is_local", "fc_http_major",
            // the listener: its id and name options
            "so_id", "so_name",
            // header values: a comma inside a quoted string (a backslash escaping there) does not split them
            "req.hdr(x-q)", "req.hdr(x-q,1)", "req.hdr(x-q,2)", "req.hdr(x-q,3)", "req.hdr(x-q,-2)", "req.hdr_cnt(x-q)",
            "req.hdr(x-q2,1)", "req.hdr_cnt(x-q2)", "req.hdr_cnt(x-e)", "req.hdr(x-e,2)", "req.fhdr(x-q)", "req.hdr(x-q,5)");

    static String config(int port, Path maps) {
        StringBuilder sb = new StringBuilder("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend f
                    bind 127.0.0.1:%d id 7 name main
                """.formatted(port));
        for (int i = 0; i < EXPRESSIONS.size(); i++) {
            String e = EXPRESSIONS.get(i).replace("MAPS", maps.toString());
            sb.append("    http-request return status 200 content-type text/plain lf-string \"%[").append(e).append("]\" if { path /")
                    .append(i).append(" }\n");
        }
        return sb.toString();
    }

    static Map<String, String> run(boolean haproxy, Path maps) throws Exception {
        int port = Ports.free();
        Map<String, String> out = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, config(port, maps), port); HttpClient c = HttpClient.newHttpClient()) {
            for (int i = 0; i < EXPRESSIONS.size(); i++) {
                HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + i + "?q=1"))
                        .header("X-Q", "a, \"b,c\", d").header("X-Q", "\"e\\\",f\", g").header("X-Q2", "\"h\\\\\",i").header("X-E", "a,,b")
                        .build(),
                        HttpResponse.BodyHandlers.ofString());
                out.put(EXPRESSIONS.get(i), r.statusCode() + " " + r.body());
            }
        }
        return out;
    }

    @Test
    void samplesAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        Path maps = Files.createTempDirectory("sluice-maps");
        try {
            Files.writeString(maps.resolve("ext.map"), ".png png\n.jpg jpg\n");
            Files.writeString(maps.resolve("int.map"), ".png 42\n");
            Files.writeString(maps.resolve("regm.map"), "^foo-([0-9]+)$ num=\\1\n");
            Files.writeString(maps.resolve("dir.map"), "b got-b\n");
            Files.writeString(maps.resolve("ip.map"), "10.0.0.0/8 ten\n");
            Map<String, String> theirs = run(true, maps);
            Map<String, String> ours = run(false, maps);
            List<String> differ = new ArrayList<>();
            for (String e : EXPRESSIONS) {
                if (!theirs.get(e).equals(ours.get(e))) {
                    differ.add(e + ": haproxy [" + theirs.get(e) + "] sluice [" + ours.get(e) + "]");
                }
            }
            assertThat(theirs.get("str(abc),sha1,hex")).isEqualTo("200 A9993E364706816ABA3E25717850C26C9CD0D89D");
            // the socket fetches give samples (an empty body on both sides would compare equal)
            assertThat(theirs.get("fc_reordering,bool")).isEqualTo("200 1");
            assertThat(theirs.get("fc_rtt(us),bool")).isEqualTo("200 1");
            assertThat(theirs.get("src_is_local")).isEqualTo("200 1");
            assertThat(theirs.get("fc_http_major")).isEqualTo("200 1");
            assertThat(theirs.get("so_name")).isEqualTo("200 main");
            assertThat(differ).isEmpty();
        } finally {
            try (var s = Files.list(maps)) {
                s.forEach(f -> f.toFile().delete());
            }
            Files.delete(maps);
        }
    }
}

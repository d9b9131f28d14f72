package dev.sluice.config;

import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Resolvers;
import dev.sluice.config.model.Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code resolvers} sections and the server options of DNS at run time, with HAProxy 2.6.12's messages (checked with {@code haproxy -c}). */
class ResolversKeywordsTest {
    private static final String DEFAULTS = """
            defaults
                mode http
                timeout connect 1s
                timeout client 1s
                timeout server 1s
            """;

    @Test
    void aSectionWithEveryKeyword() {
        Config c = valid("""
                resolvers dns
                    nameserver ns1 127.0.0.1:5353
                    nameserver ns2 tcp@[::1]:53
                    nameserver ns3 udp@127.0.0.2:53
                    accepted_payload_size 8192
                    resolve_retries 5
                    timeout resolve 2s
                    timeout retry 300ms
                    hold valid 5s
                    hold nx 1s
                    hold timeout 2s
                    hold refused 3s
                    hold other 4s
                    hold obsolete 6s
                """ + DEFAULTS + """
                backend b
                    default-server resolvers dns init-addr none
                    server s1 app.test:80 resolve-prefer ipv4 resolve-opts allow-dup-ip,ignore-weight resolve-net 10.0.0.0/8,fd00::/8
                    server-template w 1-3 _http._tcp.app.test resolvers dns
                    server ip 10.0.0.1:80
                """);
        Resolvers r = c.resolvers("dns").orElseThrow();
        assertThat(r.nameservers()).extracting(Resolvers.Nameserver::id, Resolvers.Nameserver::host, Resolvers.Nameserver::port,
                Resolvers.Nameserver::tcp).containsExactly(org.assertj.core.groups.Tuple.tuple("ns1", "127.0.0.1", 5353, false),
                        org.assertj.core.groups.Tuple.tuple("ns2", "::1", 53, true), org.assertj.core.groups.Tuple.tuple("ns3", "127.0.0.2", 53, false));
        assertThat(List.of(r.acceptedPayloadSize(), r.resolveRetries())).containsExactly(8192, 5);
        assertThat(List.of(r.timeoutResolve(), r.timeoutRetry(), r.holdValid(), r.holdNx(), r.holdTimeout(), r.holdRefused(), r.holdOther(),
                r.holdObsolete())).containsExactly(2000L, 300L, 5000L, 1000L, 2000L, 3000L, 4000L, 6000L);
        List<Server> s = c.proxy("b").orElseThrow().servers();
        assertThat(s.get(0).dns().resolvers()).isEqualTo("dns");
        assertThat(s.get(0).dns().preferIpv6()).isFalse();
        assertThat(s.get(0).dns().allowDupIp()).isTrue();
        assertThat(s.get(0).dns().ignoreWeight()).isTrue();
        assertThat(s.get(0).dns().networks()).containsExactly("10.0.0.0/8", "fd00::/8");
        assertThat(s.get(0).resolves()).isTrue();
        assertThat(s.get(1).dns().preferIpv6()).as("HAProxy's default").isTrue();
        assertThat(s.get(1).srv()).isTrue();
        assertThat(s).extracting(Server::name).containsExactly("s1", "w1", "w2", "w3", "ip");
        assertThat(s.get(4).resolves()).as("an IP address is not resolved").isFalse();
    }

    @Test
    void haproxysDefaults() {
        Resolvers r = valid("resolvers dns\n    nameserver ns1 127.0.0.1:53\n").resolvers("dns").orElseThrow();
        assertThat(List.of(r.acceptedPayloadSize(), r.resolveRetries())).containsExactly(512, 3);
        assertThat(List.of(r.timeoutResolve(), r.timeoutRetry(), r.holdValid(), r.holdNx(), r.holdTimeout(), r.holdRefused(), r.holdOther(),
                r.holdObsolete())).containsExactly(1000L, 1000L, 10_000L, 30_000L, 30_000L, 30_000L, 30_000L, 0L);
    }

    @Test
    void resolvConfAndTheImplicitDefaultSection(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("resolv.conf");
        Files.writeString(conf, "search example\nnameserver 10.1.2.3\nnameserver\nnameserver bogus\nnameserver 10.1.2.3\nnameserver ::1 x\n");
        String old = System.getProperty("sluice.resolv.conf");
        System.setProperty("sluice.resolv.conf", conf.toString());
        try {
            var r = parse("resolvers local\n    nameserver 10.1.2.3 10.1.2.3:53\n    parse-resolv-conf\n");
            assertThat(r.ok()).isTrue();
            assertThat(Configs.warnings(r)).singleElement().satisfies(d -> {
                assertThat(d.line()).isEqualTo(3);
                assertThat(d.message()).isEqualTo("Parsing [/etc/resolv.conf:2] : generated name for /etc/resolv.conf nameserver '10.1.2.3'"
                        + " conflicts with another nameserver (declared at test.cfg:2), it appears to be a duplicate and will be excluded.\n"
                        + "        parsing [/etc/resolv.conf:3] : nameserver line is missing address.\n"
                        + "        parsing [/etc/resolv.conf:4] : address 'bogus' could not be recognized, nameserver will be excluded.\n"
                        + "        Parsing [/etc/resolv.conf:5] : generated name for /etc/resolv.conf nameserver '10.1.2.3' conflicts with"
                        + " another nameserver (declared at test.cfg:2), it appears to be a duplicate and will be excluded.");
            });
            Resolvers local = r.config().resolvers("local").orElseThrow();
            assertThat(local.nameservers()).extracting(Resolvers.Nameserver::id).containsExactly("10.1.2.3", "::1");
            Resolvers dflt = r.config().resolvers("default").orElseThrow();
            assertThat(dflt.implicit()).isTrue();
            assertThat(dflt.nameservers()).extracting(Resolvers.Nameserver::host, Resolvers.Nameserver::port)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("10.1.2.3", 53), org.assertj.core.groups.Tuple.tuple("::1", 53));
        } finally {
            if (old == null) {
                System.clearProperty("sluice.resolv.conf");
            } else {
                System.setProperty("sluice.resolv.conf", old);
            }
        }
    }

    @Test
    void messagesAreHaproxys() {
        var r = parse("""
                resolvers dns
                    nameserver ns1 127.0.0.1
                    nameserver ns2 bogus..:53
                    nameserver ns3 1.2.3.4:99999
                    nameserver ns4 127.0.0.1:53
                    hold foo 5s
                    hold valid 1x
                    timeout resolve 1x
                    accepted_payload_size 5
                    resolve_retries
                    nameserver ns4 127.0.0.1:54
                resolvers dns
                """ + DEFAULTS + """
                backend b
                    server-template w 5-2 app.test:80 resolvers dns init-addr none
                    server-template x abc app.test:80 resolvers dns init-addr none
                    server s1 app.test:80 resolve-prefer ipv5 resolvers dns
                    server s2 app.test:80 resolve-opts foo resolvers dns
                    server s3 app.test:80 resolve-net 10.0.0.0/33 resolvers dns
                    server s5 app.test:80 resolvers nodns
                """);
        assertThat(r.diagnostics().stream().map(d -> d.line() + " " + d.message()).toList()).containsExactly(
                "2 'nameserver ns1' : missing port specification in '127.0.0.1'",
                "3 'nameserver ns2' : invalid address: 'bogus..' in 'bogus..:53'",
                "4 'nameserver ns3' : invalid port '99999'",
                "6 'hold' unknown <event>: 'foo', expects either 'nx', 'timeout', 'valid', 'obsolete' or 'other'.",
                "7 unexpected character 'x' in argument to <hold>.",
                "8 unexpected character 'x' in argument to <timeout resolve>.",
                "9 'accepted_payload_size' must be between 12 and 65535 inclusive (was 5).",
                "10 'resolve_retries' expects <nb> as argument.",
                "11 nameserver 'ns4' has same name as another nameserver (declared at test.cfg:5).",
                "12 resolvers 'dns' has same name as another resolvers (declared at test.cfg:1).",
                "19 Wrong server-template number or range arg '5-2'.",
                "20 Wrong server-template number or range arg 'abc'.",
                "21 'server b/s1' : 'resolve-prefer' expects either ipv4 or ipv6 as argument..",
                "22 'server b/s2' : 'resolve-opts' : unknown resolve-opts option 'foo', supported methods are 'allow-dup-ip', 'ignore-weight',"
                        + " and 'prevent-dup-ip'..",
                "23 'server b/s3' : 'resolve-net' invalid network '10.0.0.0/33'..",
                "24 backend 'b', server 's5': unable to find required resolvers 'nodns'");
    }
}

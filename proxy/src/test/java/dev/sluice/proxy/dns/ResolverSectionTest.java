package dev.sluice.proxy.dns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerEvents;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What answers do to servers, without the network: HAProxy 2.6's address choice ({@code resolve-net}, {@code
 * allow-dup-ip}, the current address kept), {@code hold obsolete}, the hold period of a failure, SRV slots, and the log
 * lines of each change.
 */
class ResolverSectionTest {
    private final List<String> log = new ArrayList<>();
    private final List<String> moved = new ArrayList<>();
    private ResolverSection section;
    private Backend backend;

    private void setup(String resolvers, String servers) {
        String cfg = """
                resolvers dns
                    nameserver ns1 127.0.0.1:53
                %s
                defaults
                    mode http
                    timeout client 1s
                    timeout server 1s
                    timeout connect 1s
                backend be
                %s
                """.formatted(resolvers, servers);
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get,
                Set.of(), "3.2")).parse(List.of(new ConfigParser.Source("t.cfg", cfg)));
        assertThat(r.ok()).as(r.diagnostics().toString()).isTrue();
        Config c = r.config();
        Proxy be = c.proxy("be").orElseThrow();
        List<Backend.ResolvedServer> list = new ArrayList<>();
        for (dev.sluice.config.model.Server s : be.servers()) {
            list.add(new Backend.ResolvedServer(s, Server.unresolvedAddress(s.port()), null));
        }
        backend = new Backend(be, list, 1, null);
        backend.events((level, message, console) -> log.add(message));
        section = new ResolverSection(c.resolvers("dns").orElseThrow(), null, null, s -> moved.add(s.name()));
        for (Server s : backend.servers()) {
            section.add(s, s.config().dns());
        }
    }

    private static DnsAnswer addresses(String... ips) throws Exception {
        List<DnsAnswer.Item> items = new ArrayList<>();
        for (String ip : ips) {
            InetAddress a = InetAddress.getByName(ip);
            items.add(new DnsAnswer.Item(a.getAddress().length == 4 ? DnsAnswer.A : DnsAnswer.AAAA, a, null, 0, 0));
        }
        return new DnsAnswer(DnsAnswer.Verdict.VALID, items);
    }

    private List<String> addressesOf() {
        return backend.servers().stream().map(s -> s.unresolved() ? "-" : s.address().getAddress().getHostAddress()).toList();
    }

    @Test
    void slotsTakeDistinctAddressesUnlessDuplicatesAreAllowed() throws Exception {
        setup("", """
                    server-template w 3 app.test:80 resolvers dns init-addr none resolve-prefer ipv4
                    server-template d 2 app.test:80 resolvers dns init-addr none resolve-prefer ipv4 resolve-opts allow-dup-ip
                """);
        Resolution res = section.resolution("app.test", DnsAnswer.A, false);
        section.valid(res, addresses("10.0.0.1", "10.0.0.2"), section.nameservers().get(0), 1000);
        List<String> a = addressesOf();
        assertThat(a.subList(0, 3)).containsOnlyOnce("-").contains("10.0.0.1", "10.0.0.2");
        assertThat(a.subList(3, 5)).doesNotContain("-");
        assertThat(log).noneMatch(l -> l.contains("be/w3")).anyMatch(l -> l.matches("be/w1 changed its IP from \\(none\\) to"
                        + " 10\\.0\\.0\\.[12] by dns/ns1\\.")).anyMatch(l -> l.matches("be/w2 changed its IP from \\(none\\) to 10\\.0\\.0\\.[12] by"
                        + " DNS cache\\."));
        assertThat(section.nameservers().get(0).update).isEqualTo(1);
        assertThat(moved).hasSize(4);
        // one record left: the slot on the other goes to maintenance, its address is free for nobody else
        String lost = backend.servers().get(0).address().getAddress().getHostAddress().equals("10.0.0.2") ? "w1" : "w2";
        section.valid(res, addresses("10.0.0.1"), section.nameservers().get(0), 2000);
        assertThat(log).contains("Server be/" + lost + " is going DOWN for maintenance (No IP for server ). 3 active and 0 backup servers"
                + " left. 0 sessions active, 0 requeued, 0 remaining in queue.");
        assertThat(addressesOf()).containsExactly(lost.equals("w1") ? "-" : "10.0.0.1", lost.equals("w1") ? "10.0.0.1" : "-", "-", "10.0.0.1",
                "10.0.0.1");
    }

    @Test
    void theFamilyThenTheNetworkThenTheCurrentAddressWin() throws Exception {
        setup("", """
                    server v6 app.test:80 resolvers dns init-addr none
                    server v4 app.test:80 resolvers dns init-addr none resolve-prefer ipv4 resolve-opts allow-dup-ip
                    server net app.test:80 resolvers dns init-addr none resolve-prefer ipv4 resolve-net 192.168.0.0/16 resolve-opts allow-dup-ip
                """);
        DnsAnswer mixed = addresses("10.0.0.1", "192.168.1.1", "fd00::1");
        section.valid(section.resolution("app.test", DnsAnswer.AAAA, false), mixed, section.nameservers().get(0), 1000);
        section.valid(section.resolution("app.test", DnsAnswer.A, false), mixed, section.nameservers().get(0), 1000);
        List<String> a = addressesOf();
        assertThat(a.get(0)).isEqualTo("fd00:0:0:0:0:0:0:1");
        assertThat(a.get(2)).isEqualTo("192.168.1.1");
        String v4 = a.get(1);
        // an answer that still has the current address keeps it
        section.valid(section.resolution("app.test", DnsAnswer.A, false), addresses("10.0.0.9", "10.0.0.1", "192.168.1.1"),
                section.nameservers().get(0), 2000);
        assertThat(addressesOf().get(1)).isEqualTo(v4.equals("10.0.0.1") ? "10.0.0.1" : addressesOf().get(1));
        assertThat(addressesOf().get(2)).isEqualTo("192.168.1.1");
    }

    @Test
    void aMissingRecordIsKeptForHoldObsoleteAndAFailureForItsHoldPeriod() throws Exception {
        setup("    hold obsolete 5s\n    hold nx 10s", """
                    server s app.test:80 resolvers dns init-addr none resolve-prefer ipv4
                """);
        Resolution res = section.resolution("app.test", DnsAnswer.A, false);
        Nameserver ns = section.nameservers().get(0);
        section.valid(res, addresses("10.0.0.1"), ns, 1000);
        section.valid(res, addresses("10.0.0.2"), ns, 3000);
        assertThat(addressesOf()).containsExactly("10.0.0.1");
        section.valid(res, addresses("10.0.0.2"), ns, 7000);
        assertThat(addressesOf()).containsExactly("10.0.0.2");
        assertThat(log).contains("be/s changed its IP from 10.0.0.1 to 10.0.0.2 by dns/ns1.");
        res.status = Resolution.Status.NX;
        section.failed(res, 12_000);
        assertThat(addressesOf()).as("within hold nx").containsExactly("10.0.0.2");
        section.failed(res, 17_001);
        assertThat(addressesOf()).containsExactly("-");
        assertThat(log).contains("Server be/s is going DOWN for maintenance (DNS NX status). 0 active and 0 backup servers left. 0 sessions"
                + " active, 0 requeued, 0 remaining in queue.");
        section.valid(res, addresses("10.0.0.3"), ns, 18_000);
        assertThat(log).contains("be/s changed its IP from (none) to 10.0.0.3 by dns/ns1.", "Server be/s ('app.test') is UP/READY (resolves again).",
                "Server be/s administratively READY thanks to valid DNS answer.");
    }

    /** The linear choice gives HAProxy's scored one, whatever the records, the families and who holds what. */
    @Test
    void theQuickChoiceIsTheScoredOne() throws Exception {
        setup("", """
                    server-template w 4 app.test:80 resolvers dns init-addr none resolve-prefer ipv4
                    server-template v 4 app.test:80 resolvers dns init-addr none
                """);
        java.util.Random rnd = new java.util.Random(7);
        Nameserver ns = section.nameservers().get(0);
        int compared = 0;
        for (int round = 0; round < 300; round++) {
            Resolution v4 = section.resolution("app.test", DnsAnswer.A, false);
            Resolution v6 = section.resolution("app.test", DnsAnswer.AAAA, false);
            List<String> ips = new ArrayList<>();
            for (int i = 0, n = rnd.nextInt(7); i < n; i++) {
                ips.add(rnd.nextBoolean() ? "10.0.0." + rnd.nextInt(8) : "fd00::" + rnd.nextInt(8));
            }
            DnsAnswer a = addresses(ips.stream().distinct().toArray(String[]::new));
            long now = 1000L * (round + 1);
            for (Resolution res : List.of(v4, v6)) {
                // before the pass: each server without a record, as the pass finds it
                section.valid(res, a, ns, now);
                for (Requester r : res.requesters) {
                    if (r.ipRecord != null && rnd.nextInt(3) == 0) {
                        r.ipRecord.attached.remove(r);
                        r.ipRecord = null;
                    }
                }
                for (Requester r : res.requesters) {
                    if (r.ipRecord == null) {
                        compared++;
                        assertThat(ServerUpdates.quickChoice(r, new java.util.HashMap<>())).as("round %d, %s", round, r.server.name())
                                .isSameAs(ServerUpdates.choose(r));
                    }
                }
            }
        }
        assertThat(compared).isGreaterThan(300);
    }

    @Test
    void srvRecordsFillSlotsAndARemovedOneEmptiesItsSlot() throws Exception {
        setup("", """
                    server-template x 2 _http._tcp.svc.test resolvers dns init-addr none resolve-prefer ipv4
                """);
        Resolution res = section.resolution("_http._tcp.svc.test", DnsAnswer.SRV, false);
        Nameserver ns = section.nameservers().get(0);
        DnsAnswer two = new DnsAnswer(DnsAnswer.Verdict.VALID, List.of(
                new DnsAnswer.Item(DnsAnswer.SRV, InetAddress.getByName("10.0.0.1"), "one.test", 8080, 256),
                new DnsAnswer.Item(DnsAnswer.SRV, null, "two.test", 8081, 1024)));
        section.valid(res, two, ns, 1000);
        Server withAr = backend.servers().stream().filter(s -> "one.test".equals(s.fqdn())).findFirst().orElseThrow();
        Server without = backend.servers().stream().filter(s -> "two.test".equals(s.fqdn())).findFirst().orElseThrow();
        assertThat(withAr.address().getPort()).isEqualTo(8080);
        assertThat(withAr.weight()).isEqualTo(1);
        assertThat(withAr.unresolved()).isFalse();
        assertThat(without.unresolved()).as("its target is resolved on its own").isTrue();
        assertThat(without.weight()).isEqualTo(4);
        assertThat(section.resolution("two.test", DnsAnswer.A, false)).isNotNull();
        section.valid(section.resolution("two.test", DnsAnswer.A, false), addresses("10.0.0.2"), ns, 1100);
        assertThat(without.address().getAddress().getHostAddress()).isEqualTo("10.0.0.2");
        assertThat(without.address().getPort()).isEqualTo(8081);
        section.valid(res, new DnsAnswer(DnsAnswer.Verdict.VALID, List.of(two.items().get(0))), ns, 2000);
        assertThat(without.unresolved()).isTrue();
        assertThat(without.fqdn()).isNull();
        assertThat(log).contains("Server be/" + without.name() + " is going DOWN for maintenance (entry removed from SRV record). 1 active and 0"
                + " backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.");
        assertThat(section.resolution("two.test", DnsAnswer.A, false).requesters).isEmpty();
        assertThat(ServerEvents.NONE).isNotNull();
    }
}

package dev.sluice.config;

import static dev.sluice.config.Configs.errors;
import static dev.sluice.config.Configs.warnings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.Peers;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code peers} section, {@code localpeer}, {@code -L} and {@code stick-table ... peers}, with the messages of
 * {@code haproxy -c} 2.6.12 (each error case was run through it with the same text).
 */
class PeersKeywordsTest {
    /** Lines 1-7: global with localpeer p1, defaults; the peers lines start at 8. */
    private static final String HEAD = "global\n    localpeer p1\n" + Configs.DEFAULTS;

    private static ConfigParser.Result parse(String text, String dashL) {
        ConfigParser.Settings s = Configs.settings(Map.of()).withLocalPeer(dashL);
        return new ConfigParser(KeywordRegistry.standard(), s).parse(List.of(new ConfigParser.Source(Configs.FILE, text)));
    }

    private static ConfigParser.Result parse(String text) {
        return parse(text, null);
    }

    @Test
    void peerLinesTheLocalOneListens() {
        var r = parse(HEAD + """
                peers mypeers
                    peer p1 127.0.0.1:10001
                    peer p2 127.0.0.1:10002
                    peer p3 [::1]:10003
                    table t1 type ip size 10 expire 1m store http_req_cnt
                frontend fe
                    bind :8080
                    stick-table type string size 10 peers mypeers
                    http-request track-sc0 src table mypeers/t1
                """);
        assertThat(r.diagnostics()).isEmpty();
        Peers p = r.config().peersSection("mypeers").orElseThrow();
        assertThat(p.active()).isTrue();
        assertThat(p.localName()).isEqualTo("p1");
        assertThat(p.local().name()).isEqualTo("p1");
        assertThat(p.bind()).isEqualTo(new ListenAddress.Inet("127.0.0.1", 10001));
        assertThat(p.remotes()).extracting(Peers.Peer::name, Peers.Peer::host, Peers.Peer::port, Peers.Peer::ssl)
                .containsExactly(tuple("p2", "127.0.0.1", 10002, false), tuple("p3", "::1", 10003, false));
        assertThat(p.tables()).extracting(Peers.PeersTable::name, Peers.PeersTable::fullName).containsExactly(tuple("t1", "mypeers/t1"));
        assertThat(p.tables().get(0).decl().args()).containsExactly("type", "ip", "size", "10", "expire", "1m", "store", "http_req_cnt");
        assertThat(p.maxUpdates()).isEqualTo(200);
        Config tuned = Configs.valid("global\n    tune.peers.max-updates-at-once 50\n" + Configs.DEFAULTS + "peers m\n    peer "
                + PeersKeywords.hostName() + " 127.0.0.1:1\n");
        assertThat(tuned.peersSection("m").orElseThrow().maxUpdates()).isEqualTo(50);
    }

    @Test
    void bindAndServerLines() {
        Config c = Configs.valid(HEAD + """
                peers mypeers
                    default-bind v4v6
                    bind :10001
                    default-server maxconn 10
                    server p1
                    server p2 127.0.0.1:10002
                    log 127.0.0.1:514 local0
                """);
        Peers p = c.peersSection("mypeers").orElseThrow();
        assertThat(p.bind()).isEqualTo(new ListenAddress.Inet("", 10001));
        assertThat(p.bindOptions()).containsExactly("v4v6");
        assertThat(p.local().name()).isEqualTo("p1");
        assertThat(p.local().port()).isEqualTo(10001);
        assertThat(p.remotes()).extracting(Peers.Peer::name, Peers.Peer::port, Peers.Peer::options).containsExactly(
                tuple("p2", 10002, List.of("maxconn", "10")));
        assertThat(p.logLines()).containsExactly("127.0.0.1:514 local0");
    }

    @Test
    void encryptedLinks() {
        Config c = Configs.valid(HEAD + """
                peers m
                    default-bind ssl crt /etc/peer.pem
                    default-server ssl verify none
                    peer p1 127.0.0.1:1
                    peer p2 127.0.0.1:2
                    peer p3 127.0.0.1:3 ca-file /etc/ca.pem verify required
                """);
        Peers p = c.peersSection("m").orElseThrow();
        assertThat(p.bindCertificate()).isEqualTo("/etc/peer.pem");
        assertThat(p.remotes()).extracting(Peers.Peer::ssl, x -> x.option("verify"), x -> x.option("ca-file"))
                .containsExactly(tuple(true, "none", null), tuple(true, "required", "/etc/ca.pem"));
    }

    @Test
    void relativeTlsFilesAreFoundAsTheProxiesOnes() {
        Config c = Configs.valid("global\n    localpeer p1\n    crt-base /certs\n    ca-base /cas\n" + Configs.DEFAULTS + """
                peers m
                    default-bind ssl crt peer.pem
                    peer p1 127.0.0.1:1
                    peer p2 127.0.0.1:2 ssl ca-file ca.pem
                    peer p3 127.0.0.1:3 ssl ca-file /abs/ca.pem
                """);
        Peers p = c.peersSection("m").orElseThrow();
        assertThat(p.bindCertificate()).isEqualTo("/certs/peer.pem");
        assertThat(p.remotes()).extracting(x -> x.option("ca-file")).containsExactly("/cas/ca.pem", "/abs/ca.pem");
    }

    @Test
    void theLocalNameComesFromDashLThenLocalpeerThenTheHostName() {
        String text = "global\n    localpeer p2\n" + Configs.DEFAULTS + "peers m\n    peer p1 127.0.0.1:1\n    peer p2 127.0.0.1:2\n";
        var withL = parse(text, "p1");
        assertThat(warnings(withL)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(2, "'localpeer' ignored since it is already set by using the '-L' command line argument."));
        assertThat(withL.config().peersSection("m").orElseThrow().local().name()).isEqualTo("p1");
        assertThat(parse(text).config().peersSection("m").orElseThrow().local().name()).isEqualTo("p2");
        String host = PeersKeywords.hostName();
        Config c = Configs.valid(Configs.DEFAULTS + "peers m\n    peer " + host + " 127.0.0.1:1\n");
        assertThat(c.peersSection("m").orElseThrow().local().name()).isEqualTo(host);
    }

    @Test
    void haproxyLocalpeerNamesTheLocalPeer() {
        var r = parse("global\n    localpeer p2\n" + Configs.DEFAULTS + "peers m\n    peer \"${HAPROXY_LOCALPEER}\" 127.0.0.1:1\n", "p9");
        assertThat(r.config().peersSection("m").orElseThrow().local().name()).isEqualTo("p9");
        r = parse("global\n    localpeer p2\n" + Configs.DEFAULTS + "peers m\n    peer \"${HAPROXY_LOCALPEER}\" 127.0.0.1:1\n");
        assertThat(r.config().peersSection("m").orElseThrow().local().name()).isEqualTo("p2");
    }

    @Test
    void localpeerAfterAPeersSectionIsIgnored() {
        var r = parse(Configs.DEFAULTS + "peers m\n    peer p1 127.0.0.1:1\nglobal\n    localpeer p1\n");
        assertThat(warnings(r)).extracting(Diagnostic::line, Diagnostic::message).contains(
                tuple(9, "'localpeer' ignored since it is used after 'peers' section."));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "peers => 8 => missing name for peers section.",
            "peers a b => 8 => 'peers' cannot handle unexpected argument 'b'.",
            "peers bad/name => 8 => character '/' is not permitted in 'peers' name 'bad/name'.",
            "peers m|    peer p1 127.0.0.1:10011|    bind :10012 => 10 => mixing \"peer\" and \"bind\" line is forbidden",
            "peers m|    bind :10012|    server p1|    server p2 127.0.0.1:10013|    peer p3 127.0.0.1:1 => 12 => mixing \"peer\" and \"bind\" line is forbidden",
            "peers m|    peer p1 127.0.0.1:10011|    foo bar => 10 => unknown keyword 'foo' in 'peers' section",
            "peers m|    peer p1 127.0.0.1:10021|    peer p1 127.0.0.1:10022 => 10 => 'peer p1' : local peer name already referenced at test.cfg:9. p1",
            "peers m|    peer p1 127.0.0.1:1|peers m|    peer p1 127.0.0.1:2 => 10 => peers section 'm' has the same name as another peers section declared at test.cfg:8.",
            "peers m|    peer p1 127.0.0.1:1|    peer p2 127.0.0.1:2 ssl => 0 => `verify is enabled by default but no CA file specified. If you're running on a LAN where you're certain to trust the server's certificate, please set an explicit 'verify none' statement on the 'server' line, or use 'ssl-server-verify none' in the global section to disable server-side verifications by default.`",
            "peers m|    bind :1 ssl|    server p1 => 0 => Proxy 'p1': no SSL certificate specified for bind ':1' at [test.cfg:9] (use 'crt').",
            "frontend t1|    bind :1|peers m|    peer p1 127.0.0.1:1|    table t1 type ip size 1 => 12 => stick-table name 't1' conflicts with table declared in frontend 't1' at test.cfg:8.",
    })
    void errorsAsHaproxy(String lines, int line, String message) {
        var r = parse(HEAD + lines.replace('|', '\n') + "\n");
        assertThat(errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(tuple(line, message));
    }

    @Test
    void aStickTableNamesAnUnknownSection() {
        var r = parse(HEAD + "peers m\n    peer p1 127.0.0.1:1\nfrontend fe\n    bind :8080\n    stick-table type ip size 10 peers nosuch\n");
        assertThat(errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(0, "Proxy 'fe': unable to find sync peers 'nosuch'."));
    }

    @Test
    void aSectionWithoutTheLocalPeerIsRemovedWithAWarning() {
        var r = parse(HEAD + "peers m\n    peer p2 127.0.0.1:1\n    table t type ip size 1\n");
        assertThat(r.ok()).isTrue();
        assertThat(warnings(r)).extracting(Diagnostic::message).containsExactly("Removing incomplete section 'peers m' (no peer named 'p1').");
        Peers p = r.config().peersSection("m").orElseThrow();
        assertThat(p.active()).isFalse();
        assertThat(p.tables()).hasSize(1);
    }

    @Test
    void disabledAndEnabled() {
        Config c = Configs.valid(HEAD + "peers m\n    disabled\n    peer p1 127.0.0.1:1\npeers n\n    disabled\n    enabled\n    peer p1 127.0.0.1:2\n");
        assertThat(c.peersSection("m").orElseThrow().active()).isFalse();
        assertThat(c.peersSection("n").orElseThrow().active()).isTrue();
    }

    @Test
    void shardsIsAcceptedWithANotice() {
        var r = parse(HEAD + "peers m\n    peer p1 127.0.0.1:1\n    shards 3\n    shards 0\n");
        assertThat(r.config()).isNull();
        assertThat(errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(11, "'shards' expects a strictly positive integer argument."));
        assertThat(r.diagnostics()).anyMatch(d -> d.severity() == Diagnostic.Severity.NOTICE && d.line() == 10);
    }
}

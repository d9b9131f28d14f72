package dev.sluice.config;

import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.LogForward;
import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.Ring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code ring} and {@code log-forward} sections and {@code log ring@<name>} (HAProxy 2.6's src/sink.c, src/log.c). */
class RingKeywordsTest {
    /** Lines 1-5 defaults, 6-8 a frontend logging to ring r1; the sections start at line 9. */
    private static final String HEAD = Configs.DEFAULTS + """
            frontend fe
                bind :8080
                log ring@r1 local0 info
            """;

    @Test
    void aRingSectionWithItsServersAndDefaults() {
        Config c = valid(HEAD + """
                ring r1
                    description "request logs"
                    format rfc3164
                    maxlen 1200
                    size 32764
                    timeout connect 5s
                    timeout server 10s
                    server s1 127.0.0.1:6514 log-proto octet-count
                    server s2 127.0.0.1:6515
                ring r2
                """);
        assertThat(c.rings()).hasSize(2);
        Ring r = c.rings().get(0);
        assertThat(r.name()).isEqualTo("r1");
        assertThat(r.description()).isEqualTo("request logs");
        assertThat(r.format()).isEqualTo(LogTarget.Format.RFC3164);
        assertThat(r.maxLen()).isEqualTo(1200);
        assertThat(r.size()).isEqualTo(32764);
        assertThat(r.connectTimeoutMs()).isEqualTo(5000);
        assertThat(r.serverTimeoutMs()).isEqualTo(10000);
        assertThat(r.servers()).extracting(Ring.Server::name, Ring.Server::host, Ring.Server::port, Ring.Server::octetCount)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("s1", "127.0.0.1", 6514, true),
                        org.assertj.core.groups.Tuple.tuple("s2", "127.0.0.1", 6515, false));
        Ring r2 = c.rings().get(1);
        // HAProxy's defaults: the name as description, raw, a BUFSIZE ring
        assertThat(r2.description()).isEqualTo("r2");
        assertThat(r2.format()).isEqualTo(LogTarget.Format.RAW);
        assertThat(r2.size()).isEqualTo(16384);
        LogTarget t = Configs.proxy(c, "fe").logging().targets().get(0);
        assertThat(t.kind()).isEqualTo(LogTarget.Kind.RING);
        assertThat(t.address()).isEqualTo("r1");
    }

    @Test
    void aLogForwardSection() {
        Config c = valid(HEAD + """
                ring r1
                log-forward lf
                    dgram-bind 127.0.0.1:1514
                    bind 127.0.0.1:1515
                    bind :1516
                    log 127.0.0.1:10514 format rfc5424 local0
                    log ring@r1 local1 notice
                    maxconn 20
                    backlog 7
                    timeout client 10s
                """);
        LogForward f = c.logForwards().get(0);
        assertThat(f.name()).isEqualTo("lf");
        assertThat(f.dgramBinds()).extracting(LogForward.Address::port).containsExactly(1514);
        assertThat(f.binds()).extracting(LogForward.Address::host).containsExactly("127.0.0.1", "");
        assertThat(f.targets()).extracting(LogTarget::kind).containsExactly(LogTarget.Kind.UDP, LogTarget.Kind.RING);
        assertThat(f.targets().get(1).level()).isEqualTo(5);
        assertThat(f.maxConn()).isEqualTo(20);
        assertThat(f.backlog()).isEqualTo(7);
        assertThat(f.clientTimeoutMs()).isEqualTo(10000);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "format json => 10 => unknown format 'json'.",
            "size 0 => 10 => invalid size '0' for new sink buffer.",
            "size 1M => 10 => ignoring new size '1' that is smaller than current size '16384' for ring 'r1'.",
            "maxlen x => 10 => invalid size 'x' for new sink buffer.",
            "timeout client 1s => 10 => unable to set timeout 'client'.",
            "description => 10 => missing ring description text.",
            "server s1 127.0.0.1:1 log-proto json => 10 => 'log-proto' expects one of 'legacy' or 'octet-count' but got 'json'.",
            "foo => 10 => unknown statement 'foo'.",
    })
    void ringErrors(String line, int at, String message) {
        assertSingleError(parse(HEAD + "ring r1\n    " + line + "\n"), at, message);
    }

    @Test
    void aRingMustExist() {
        assertSingleError(parse(HEAD), 8, "log server uses unknown ring named 'r1'.");
    }

    @Test
    void aRingNameIsUnique() {
        assertSingleError(parse(HEAD + "ring r1\nring r1\n"), 10, "sink named 'r1' already exists.");
    }

    @Test
    void logForwardErrors() {
        assertSingleError(parse(HEAD + "ring r1\nlog-forward lf\n    timeout server 1s\n"), 11, "only 'client'");
        assertSingleError(parse(HEAD + "ring r1\nlog-forward lf\n    log ring@r9 local0\n"), 11, "unknown ring named 'r9'");
        assertSingleError(parse(HEAD + "ring r1\nlog-forward lf\n    maxconn 0\n"), 11, "positive integer");
    }
}

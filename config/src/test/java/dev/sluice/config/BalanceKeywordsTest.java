package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.at;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.warnings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.Balance;
import dev.sluice.config.model.Balance.Algorithm;
import dev.sluice.config.model.HashType;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BalanceKeywordsTest {

    @Nested
    class BalanceLine {
        @Test
        void defaultIsRoundRobin() {
            assertThat(backendOf("").balance()).isEqualTo(Balance.DEFAULT);
            assertThat(Balance.DEFAULT.algorithm()).isEqualTo(Algorithm.ROUNDROBIN);
            assertThat(Balance.DEFAULT.hashType()).isEqualTo(HashType.DEFAULT);
        }

        @ParameterizedTest(name = "balance {0}")
        @CsvSource({"roundrobin, ROUNDROBIN", "static-rr, STATIC_RR", "leastconn, LEASTCONN", "first, FIRST", "source, SOURCE",
                "random, RANDOM"})
        void algorithmsWithoutArguments(String keyword, Algorithm algorithm) {
            Balance b = backendOf("balance " + keyword).balance();
            assertThat(b.algorithm()).isEqualTo(algorithm);
            assertThat(b.argument()).isNull();
            assertThat(b.where()).isEqualTo(at(BACKEND_LINE));
            assertThat(algorithm.keyword()).isEqualTo(keyword);
        }

        @Test
        void uriOptions() {
            Balance b = backendOf("balance uri").balance();
            assertThat(b).extracting(Balance::uriLen, Balance::uriDepth, Balance::uriWhole, Balance::uriPathOnly).containsExactly(0, 0, false, false);
            b = backendOf("balance uri whole len 12 depth 3 path-only").balance();
            assertThat(b).extracting(Balance::algorithm, Balance::uriLen, Balance::uriDepth, Balance::uriWhole, Balance::uriPathOnly)
                    .containsExactly(Algorithm.URI, 12, 3, true, true);
            assertThat(Algorithm.URI.hashed()).isTrue();
            assertThat(Algorithm.LEASTCONN.hashed()).isFalse();
        }

        @Test
        void urlParam() {
            Balance b = backendOf("balance url_param userid").balance();
            assertThat(b).extracting(Balance::algorithm, Balance::argument, Balance::checkPost).containsExactly(Algorithm.URL_PARAM, "userid", false);
        }

        @Test
        void checkPostIsAcceptedWithAWarningThatBodiesAreNotSearched() {
            var r = parse(inBackend("balance url_param userid check_post 64"));
            assertThat(r.ok()).isTrue();
            assertThat(Configs.proxy(r.config(), "be").balance().checkPost()).isTrue();
            assertThat(warnings(r)).extracting(Diagnostic::line).containsExactly(BACKEND_LINE, BACKEND_LINE);
            assertThat(warnings(r).get(0).message()).contains("does not search POST bodies");
            assertThat(warnings(r).get(1).message()).contains("<max_wait>").contains("ignored");
        }

        @Test
        void headerNameIsLowerCased() {
            Balance b = backendOf("balance hdr(X-User)").balance();
            assertThat(b).extracting(Balance::algorithm, Balance::argument, Balance::domainOnly).containsExactly(Algorithm.HDR, "x-user", false);
            assertThat(backendOf("balance hdr(host) use_domain_only").balance().domainOnly()).isTrue();
        }

        @Test
        void randomDraws() {
            assertThat(backendOf("balance random").balance().draws()).isEqualTo(2);
            assertThat(backendOf("balance random(1)").balance().draws()).isEqualTo(1);
            assertThat(backendOf("balance random(7)").balance().draws()).isEqualTo(7);
        }

        @Test
        void hashKeepsTheExpressionText() {
            Balance b = backendOf("balance hash req.hdr(host),lower").balance();
            assertThat(b).extracting(Balance::algorithm, Balance::argument).containsExactly(Algorithm.HASH, "req.hdr(host),lower");
        }

        @Test
        void lastLineWinsAndDefaultsAreInherited() {
            Proxy be = Configs.proxy(Configs.valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    balance source\n    hash-type consistent\n"
                    + "    option allbackups\n") + """
                    frontend fe
                        bind :80
                        default_backend be
                    backend be
                        server a 10.0.0.1:80
                    backend be2
                        balance uri
                        balance leastconn
                        no option allbackups
                        server a 10.0.0.1:80
                    """), "be");
            assertThat(be.balance().algorithm()).isEqualTo(Algorithm.SOURCE);
            assertThat(be.balance().hashType()).isEqualTo(new HashType(HashType.Method.CONSISTENT, HashType.Function.SDBM, true));
            assertThat(be.balance().allBackups()).isTrue();
        }

        @ParameterizedTest(name = "balance {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "``                  => missing algorithm; expected: balance roundrobin | static-rr",
                "roundrobn           => unknown algorithm 'roundrobn'; did you mean 'roundrobin' maybe ?",
                "zzz                 => unknown algorithm 'zzz'",
                "roundrobin extra    => 'balance roundrobin' takes no argument (got 'extra')",
                "leastconn 3         => 'balance leastconn' takes no argument (got '3')",
                "first(2)            => 'balance first' takes no argument in parentheses (got 'first(2)')",
                "uri len             => 'balance uri' : 'len' expects a positive integer (got '').",
                "uri len x           => 'balance uri' : 'len' expects a positive integer (got 'x').",
                "uri depth -1        => 'balance uri' : 'depth' expects a positive integer (got '-1').",
                "uri depth 0         => 'balance uri' : 'depth' expects a positive integer (got '0').",
                "uri foo             => 'balance uri' only accepts parameters 'len', 'depth', 'path-only', and 'whole' (got 'foo').",
                "url_param           => 'balance url_param' requires an URL parameter name.",
                "url_param a foo     => 'balance url_param' only accepts 'check_post' modifier (got 'foo').",
                "url_param a check_post x => 'balance url_param' : unexpected argument 'x' after 'check_post'.",
                "hdr                 => 'balance hdr' requires an http header field name: hdr(<name>).",
                "hdr()               => 'balance hdr' requires an http header field name: hdr(<name>).",
                "hdr(host            => missing closing parenthesis in 'hdr(host'",
                "hdr(a:b)            => 'balance hdr' : invalid header name 'a:b'.",
                "hdr(host) foo       => 'balance hdr(host)' only accepts 'use_domain_only' modifier (got 'foo').",
                "random(0)           => 'balance random' : number of draws must be at least 1.",
                "random(x)           => 'balance random' : the number of draws must be an integer, not 'x'.",
                "random 2            => 'balance random' takes no argument (got '2')",
                "hash                => 'balance hash' requires a sample expression.",
                "hash path query     => 'balance hash' takes one sample expression (unexpected 'query')",
                "rdp-cookie()        => rdp-cookie : missing cookie name.",
                "rdp-cookie(         => rdp-cookie : missing cookie name.",
                "rdp-cookiex         => rdp-cookie : missing cookie name.",
        })
        void rejected(String args, String message) {
            Diagnostic d = assertSingleError(parse(inBackend("balance " + args)), BACKEND_LINE, message);
            assertThat(d.message()).startsWith("'balance' : " + message);
        }
    }

    @Nested
    class HashTypeLine {
        @ParameterizedTest(name = "hash-type {0}")
        @CsvSource(delimiterString = " => ", value = {
                "map-based                  => MAP_BASED, SDBM, false",
                "consistent                 => CONSISTENT, SDBM, true",
                "map-based djb2             => MAP_BASED, DJB2, false",
                "map-based sdbm avalanche   => MAP_BASED, SDBM, true",
                "consistent wt6             => CONSISTENT, WT6, false",
                "consistent crc32 avalanche => CONSISTENT, CRC32, true",
                "consistent none            => CONSISTENT, NONE, false",
        })
        void parsed(String args, String expected) {
            String[] e = expected.split(", ");
            HashType t = backendOf("balance uri\nhash-type " + args).balance().hashType();
            assertThat(t).isEqualTo(new HashType(HashType.Method.valueOf(e[0]), HashType.Function.valueOf(e[1]), Boolean.parseBoolean(e[2])));
        }

        @ParameterizedTest(name = "hash-type {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "``                       => missing method; expected: hash-type map-based | consistent",
                "foo                      => 'hash-type' only supports 'consistent' and 'map-based' (got 'foo').",
                "avalanche                => 'hash-type avalanche' is not supported anymore",
                "consistent md5           => 'hash-type' only supports 'sdbm', 'djb2', 'crc32', 'wt6' or 'none' hash functions (got 'md5').",
                "consistent avalanche     => 'hash-type' only supports 'sdbm', 'djb2', 'crc32', 'wt6' or 'none' hash functions (got 'avalanche').",
                "consistent sdbm foo      => 'hash-type' only supports 'avalanche' as a modifier for hash functions (got 'foo').",
                "map-based sdbm avalanche x => 'hash-type' only supports 'avalanche' as a modifier for hash functions (got 'x').",
        })
        void rejected(String args, String message) {
            Diagnostic d = assertSingleError(parse(inBackend("hash-type " + args)), BACKEND_LINE, message);
            assertThat(d.message()).startsWith("'hash-type' : " + message);
        }

        @Test
        void allBackupsTakesNoArgument() {
            assertSingleError(parse(inBackend("option allbackups x")), BACKEND_LINE,
                    "'option allbackups' : unexpected argument 'x'; expected: option allbackups");
            assertThat(backendOf("option allbackups").balance().allBackups()).isTrue();
            assertThat(backendOf("").balance().allBackups()).isFalse();
        }
    }

    @Nested
    class ServerOptions {
        @Test
        void optionsOnServerLines() {
            Proxy be = backendOf("""
                    server a 10.0.0.1:80 weight 3 backup id 7 init-state down
                    server b 10.0.0.2:80 disabled init-state fully-up
                    server c 10.0.0.3:80 maxconn 0 maxqueue 0 slowstart 0
                    """);
            assertThat(be.servers()).extracting(Server::name, Server::weight, Server::id, Server::backup, Server::disabled, Server::initState)
                    .containsExactly(
                            tuple("a", 3, 7, true, false, Server.InitState.DOWN),
                            tuple("b", 1, 2, false, true, Server.InitState.FULLY_UP),
                            tuple("c", 1, 3, false, false, null));
            assertThat(Server.InitState.DOWN.up()).isFalse();
            assertThat(Server.InitState.FULLY_UP.up()).isTrue();
        }

        @Test
        void idsAreAssignedAsHaproxyAssignsThem() {
            // checked against HAProxy 2.6 with 'show servers state': 2 1 5 4 7 8
            Proxy be = backendOf("""
                    server s1 10.0.0.1:80
                    server s2 10.0.0.1:80 id 1
                    server s3 10.0.0.1:80
                    server s4 10.0.0.1:80 id 4
                    server s5 10.0.0.1:80
                    server s6 10.0.0.1:80
                    """);
            assertThat(be.servers()).extracting(Server::id).containsExactly(2, 1, 5, 4, 7, 8);
        }

        @Test
        void queueAndSlowStartOptionsAreKept() {
            var r = parse(inBackend("server a 10.0.0.1:80 maxconn 10 maxqueue 5 slowstart 10s"));
            assertThat(r.ok()).isTrue();
            Server s = Configs.proxy(r.config(), "be").servers().getFirst();
            assertThat(s).extracting(Server::maxconn, Server::maxqueue, Server::slowstart).containsExactly(10, 5, 10_000L);
            assertThat(warnings(r)).isEmpty();
        }

        @Test
        void defaultServerCarriesTheOptions() {
            Proxy be = backendOf("""
                    default-server weight 5 backup disabled init-state fully-down
                    server a 10.0.0.1:80
                    server b 10.0.0.2:80 no-backup enabled init-state up weight 2
                    default-server no-backup
                    server c 10.0.0.3:80
                    """);
            assertThat(be.servers()).extracting(Server::name, Server::weight, Server::backup, Server::disabled, Server::initState)
                    .containsExactly(
                            tuple("a", 5, true, true, Server.InitState.FULLY_DOWN),
                            tuple("b", 2, false, false, Server.InitState.UP),
                            tuple("c", 5, false, true, Server.InitState.FULLY_DOWN));
        }

        @Test
        void defaultServerLimitsComeFromTheDefaultsSection() {
            var r = parse(Configs.DEFAULTS.replace("defaults\n", "defaults\n    default-server maxconn 20 backup\n") + """
                    frontend fe
                        bind :80
                        default_backend be
                    backend be
                        server a 10.0.0.1:80
                    """);
            assertThat(r.ok()).isTrue();
            assertThat(Configs.proxy(r.config(), "be").servers()).extracting(Server::maxconn, Server::backup).containsExactly(tuple(20, true));
        }

        @Test
        void duplicateIdNamesTheFirstLine() {
            var r = parse(inBackend("server a 10.0.0.1:80 id 3\nserver b 10.0.0.1:80 id 3"));
            Diagnostic d = assertSingleError(r, BACKEND_LINE + 1, "server 'b' : 'id' : custom id 3 already used at test.cfg:" + BACKEND_LINE
                    + " ('server a').");
            assertThat(d.message()).startsWith("'server' : ");
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "server a 10.0.0.1:80 id 0             => 'server' : server 'a' : 'id' : custom id has to be > 0 (got '0').",
                "server a 10.0.0.1:80 id x             => 'server' : server 'a' : 'id' : custom id has to be > 0 (got 'x').",
                "server a 10.0.0.1:80 id               => 'server' : server 'a' : 'id' : custom id has to be > 0.",
                "server a 10.0.0.1:80 init-state maybe => 'server' : server 'a' : 'init-state' expects 'fully-up', 'up', 'down' or 'fully-down' (got 'maybe').",
                "server a 10.0.0.1:80 maxconn x        => 'server' : server 'a' : 'maxconn' expects a non-negative integer (got 'x').",
                "server a 10.0.0.1:80 maxqueue -1      => 'server' : server 'a' : 'maxqueue' expects a non-negative integer (got '-1').",
                "server a 10.0.0.1:80 slowstart x      => 'server' : server 'a' : 'slowstart' : 'x' is not a time",
                "server a 10.0.0.1:80 slowstart        => 'server' : server 'a' : 'slowstart' expects a time.",
                "server a 10.0.0.1:80 bakup            => 'server' : server 'a' : unknown keyword 'bakup'; did you mean 'backup' maybe ?",
                "default-server id 3                   => 'default-server' : 'id' option is not accepted in default-server sections.",
                "default-server maxconn -2             => 'default-server' : 'maxconn' expects a non-negative integer (got '-2').",
        })
        void rejected(String line, String message) {
            Diagnostic d = assertSingleError(parse(inBackend(line)), BACKEND_LINE, message);
            assertThat(d.message()).startsWith(message);
        }
    }
}

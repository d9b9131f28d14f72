package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.FRONTEND_LINE;
import static dev.sluice.config.Configs.GLOBAL_LINE;
import static dev.sluice.config.Configs.at;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.frontendOf;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.inFrontend;
import static dev.sluice.config.Configs.inGlobal;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Acl;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.HttpOptions.ConnectionMode;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.config.model.Timeouts;
import dev.sluice.config.model.UseBackend;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class KeywordParsersTest {

    private static Condition cond(boolean unless, String... andedNames) {
        return new Condition(unless, List.of(Stream.of(andedNames).map(n -> new Condition.Term(false, n, null)).toList()));
    }

    @Nested
    class GlobalSection {
        @Test
        void allGlobalKeywords() {
            Global g = valid(inGlobal("maxconn 1000\nnbthread 4\ndaemon\npidfile /run/sluice.pid")).global();
            assertThat(g).isEqualTo(new Global(1000, 4, true, "/run/sluice.pid", 20000, 300_000, java.util.List.of(), "haproxy"));
        }

        @Test
        void unsetValuesAreZeroOrNull() {
            assertThat(valid("global\n").global()).isEqualTo(new Global(0, 0, false, null, 20000, 300_000, java.util.List.of(), "haproxy"));
            assertThat(valid("").global()).isEqualTo(new Global(0, 0, false, null, 20000, 300_000, java.util.List.of(), "haproxy"));
        }

        @Test
        void laterLinesWin() {
            assertThat(valid(inGlobal("nbthread 2\nnbthread 8")).global().nbthread()).isEqualTo(8);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "maxconn 0     => 'maxconn' : maxconn must be between 1 and 2147483647 (got 0)",
                "maxconn -5    => 'maxconn' : maxconn must be between 1 and 2147483647 (got -5)",
                "maxconn lots  => 'maxconn' : maxconn expects an integer, not 'lots'",
                "maxconn       => 'maxconn' : missing argument; expected: maxconn <number>",
                "maxconn 1 2   => 'maxconn' : unexpected argument '2'; expected: maxconn <number>",
                "nbthread 0    => 'nbthread' : nbthread must be between 1 and 4096 (got 0)",
                "nbthread 4097 => 'nbthread' : nbthread must be between 1 and 4096 (got 4097)",
                "nbthread      => 'nbthread' : missing argument; expected: nbthread <number>",
                "daemon yes    => 'daemon' : unexpected argument 'yes'; expected: daemon",
                "pidfile       => 'pidfile' : missing argument; expected: pidfile <path>",
                "pidfile a b   => 'pidfile' : unexpected argument 'b'; expected: pidfile <path>",
        })
        void globalErrors(String line, String message) {
            Diagnostic d = assertSingleError(parse(inGlobal(line)), GLOBAL_LINE, message);
            assertThat(d.message()).isEqualTo(message);
        }

        @Test
        void processSettings() {
            var p = valid(inGlobal("user haproxy\ngroup haproxy\nchroot /var/lib/haproxy\nulimit-n 8192")).global().process();
            assertThat(p).isEqualTo(new dev.sluice.config.model.ProcessSettings("haproxy", at(GLOBAL_LINE), "haproxy", at(GLOBAL_LINE + 1),
                    -1, -1, "/var/lib/haproxy", 8192));
            assertThat(p.dropsPrivileges()).isTrue();
            var n = valid(inGlobal("uid 99\ngid 98")).global().process();
            assertThat(n.uid()).isEqualTo(99);
            assertThat(n.gid()).isEqualTo(98);
            assertThat(n.user()).isNull();
            assertThat(valid("global\n").global().process()).isEqualTo(dev.sluice.config.model.ProcessSettings.DEFAULT);
            assertThat(dev.sluice.config.model.ProcessSettings.DEFAULT.dropsPrivileges()).isFalse();
        }

        @Test
        void userAndUidTogetherWarnAndTheLastWins() {
            var r = parse(inGlobal("user haproxy\nuid 5\ngroup g\ngid 7"));
            assertThat(r.ok()).isTrue();
            assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                    tuple(GLOBAL_LINE + 1, "'uid' : user/uid already specified; the last one wins."),
                    tuple(GLOBAL_LINE + 3, "'gid' : group/gid already specified; the last one wins."));
            var p = r.config().global().process();
            assertThat(p.user()).isNull();
            assertThat(p.uid()).isEqualTo(5);
            assertThat(p.gid()).isEqualTo(7);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "user          => 'user' : missing argument; expected: user <user name>",
                "user a b      => 'user' : unexpected argument 'b'; expected: user <user name>",
                "group         => 'group' : missing argument; expected: group <group name>",
                "uid x         => 'uid' : uid expects an integer, not 'x'",
                "gid -1        => 'gid' : gid must be between 0 and 2147483647 (got -1)",
                "chroot        => 'chroot' : missing argument; expected: chroot <directory>",
                "ulimit-n 0    => 'ulimit-n' : ulimit-n must be between 1 and 2147483647 (got 0)",
        })
        void processSettingErrors(String line, String message) {
            assertSingleError(parse(inGlobal(line)), GLOBAL_LINE, message);
        }

        @Test
        void nbthreadBounds() {
            assertThat(valid(inGlobal("nbthread 1")).global().nbthread()).isEqualTo(1);
            assertThat(valid(inGlobal("nbthread 4096")).global().nbthread()).isEqualTo(4096);
        }
    }

    @Nested
    class StatsSockets {
        @Test
        void severalSocketsWithTheirOptions() {
            Global g = valid(inGlobal("""
                    stats socket /run/sluice/admin.sock mode 660 level admin
                    stats socket ipv4@127.0.0.1:9999 level user
                    stats socket fd@3
                    stats socket unix@rel.sock user haproxy group 1000
                    stats socket 127.0.0.1:9998 uid 100 gid 200
                    stats timeout 2m""")).global();
            assertThat(g.statsSockets()).extracting(s -> s.address(), s -> s.mode(), s -> s.level(), s -> s.owner(), s -> s.group(), s -> s.where())
                    .containsExactly(
                            tuple(new ListenAddress.Unix("/run/sluice/admin.sock"), 0660, StatsSocket.Level.ADMIN, null, null, at(GLOBAL_LINE)),
                            tuple(new ListenAddress.Inet("127.0.0.1", 9999), -1, StatsSocket.Level.USER, null, null, at(GLOBAL_LINE + 1)),
                            tuple(new ListenAddress.InheritedFd(3), -1, StatsSocket.Level.OPERATOR, null, null, at(GLOBAL_LINE + 2)),
                            tuple(new ListenAddress.Unix("rel.sock"), -1, StatsSocket.Level.OPERATOR, "haproxy", "1000", at(GLOBAL_LINE + 3)),
                            tuple(new ListenAddress.Inet("127.0.0.1", 9998), -1, StatsSocket.Level.OPERATOR, "100", "200", at(GLOBAL_LINE + 4)));
            assertThat(g.statsTimeoutMs()).isEqualTo(120_000);
        }

        @Test
        void defaultsWithoutStatsLines() {
            Global g = valid("global\n").global();
            assertThat(g.statsSockets()).isEmpty();
            assertThat(g.statsTimeoutMs()).isEqualTo(10_000);
        }

        @Test
        void exposeFdIsSilentOnUnixANoticeOnTcpAndModeOnTcpAWarning() {
            var r = parse(inGlobal("stats socket /run/a.sock expose-fd listeners\nstats socket 127.0.0.1:9000 mode 600\n"
                    + "stats socket 127.0.0.1:9001 expose-fd listeners"));
            assertThat(r.ok()).isTrue();
            // HAProxy takes expose-fd silently; on a TCP socket it passes nothing: a notice (zero-warning configurations start)
            assertThat(r.diagnostics()).filteredOn(d -> d.severity() == Diagnostic.Severity.NOTICE)
                    .extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                    tuple(GLOBAL_LINE + 2, "'stats socket' : 'expose-fd listeners' passes nothing on 127.0.0.1:9001: file descriptors only"
                            + " travel over UNIX sockets."));
            assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                    tuple(GLOBAL_LINE + 1, "'stats socket' : 'mode' only applies to UNIX sockets; ignored for 127.0.0.1:9000."));
            assertThat(r.config().global().statsSockets().get(1).mode()).isEqualTo(-1);
            assertThat(r.config().global().statsSockets()).extracting(StatsSocket::exposeFd).containsExactly(true, false, true);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "stats socket                          => 'stats socket' : expects an address or a path to a UNIX socket; expected: stats socket <path>",
                "stats socket /a.sock level root       => 'stats socket' : 'level' only supports 'user', 'operator', and 'admin' (got 'root').",
                "stats socket /a.sock level            => 'stats socket' : 'level' expects an argument.",
                "stats socket /a.sock mode 999         => 'stats socket' : 'mode' expects an octal permission mask such as 600 (got '999').",
                "stats socket /a.sock mode rw          => 'stats socket' : 'mode' expects an octal permission mask such as 600 (got 'rw').",
                "stats socket /a.sock uid root         => 'stats socket' : 'uid' expects a numeric id (got 'root').",
                "stats socket /a.sock levle admin      => 'stats socket' : unknown keyword 'levle'; did you mean 'level' maybe ?.",
                "stats socket /a.sock severity-output number => 'stats socket' : 'severity-output' is not supported by Sluice yet: severity prefixes on admin socket answers.",
                "stats socket /a.sock expose-fd all    => 'stats socket' : 'expose-fd' only supports 'listeners' (got 'all').",
                "stats socket relative.sock            => 'stats socket' : missing port in address 'relative.sock' (a UNIX socket path must be absolute or start with 'unix@').",
                "stats socket 127.0.0.1:99999          => 'stats socket' : port 99999 in address '127.0.0.1:99999' is not between 1 and 65535.",
                "stats socket abns@admin               => 'stats socket' : address family 'abns@' is not supported by Sluice yet.",
                "stats socket unix@                    => 'stats socket' : missing path after 'unix@'.",
                "stats timeout 0                       => 'stats timeout' : expects a positive value",
                "stats timeout soon                    => 'stats timeout' : 'soon' is not a time",
                "stats timeout                         => 'stats timeout' : missing argument; expected: stats timeout <time>",
        })
        void errorsNameFileAndLine(String line, String message) {
            assertSingleError(parse(inGlobal(line)), GLOBAL_LINE, message);
        }

        @Test
        void tooLongPath() {
            String path = "/" + "x".repeat(StatsKeywords.MAX_UNIX_PATH);
            assertSingleError(parse(inGlobal("stats socket " + path)), GLOBAL_LINE, "is too long (at most 95 bytes");
        }
    }

    @Nested
    class Maxconn {
        @Test
        void perFrontendAndInheritedFromDefaults() {
            var c = valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    maxconn 300\n") + """
                    frontend a
                        bind :80
                        default_backend b
                    frontend c
                        bind :81
                        maxconn 20
                        default_backend b
                    backend b
                    listen l
                        bind :82
                    """);
            assertThat(Configs.proxy(c, "a").maxconn()).isEqualTo(300);
            assertThat(Configs.proxy(c, "c").maxconn()).isEqualTo(20);
            assertThat(Configs.proxy(c, "l").maxconn()).isEqualTo(300);
            // a backend has no maxconn of its own
            assertThat(Configs.proxy(c, "b").maxconn()).isZero();
        }

        @Test
        void notInBackend() {
            assertSingleError(parse(inBackend("maxconn 10")), BACKEND_LINE,
                    "'maxconn' is not allowed in 'backend' section (allowed in: global, defaults, frontend, listen).");
        }
    }

    @Nested
    class ModeKeyword {
        @Test
        void httpAndTcp() {
            assertThat(frontendOf("mode http").mode()).isEqualTo(Mode.HTTP);
            assertThat(frontendOf("mode tcp").mode()).isEqualTo(Mode.TCP);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "mode health   => 'mode' : mode health was removed from HAProxy 2.4; use monitor-uri instead.",
                "mode ftp      => unknown proxy mode 'ftp'.",
                "mode          => 'mode' : missing argument; expected: mode http|tcp",
                "mode http tcp => 'mode' : unexpected argument 'tcp'; expected: mode http|tcp",
        })
        void errors(String line, String message) {
            Diagnostic d = assertSingleError(parse(inFrontend(line)), FRONTEND_LINE, message);
            assertThat(d.message()).isEqualTo(message);
        }
    }

    @Nested
    class BindKeyword {

        static Stream<Arguments> addresses() {
            return Stream.of(
                    Arguments.of("0.0.0.0:80", new ListenAddress.Inet("0.0.0.0", 80)),
                    Arguments.of("127.0.0.1:8080", new ListenAddress.Inet("127.0.0.1", 8080)),
                    Arguments.of("*:80", new ListenAddress.Inet("", 80)),
                    Arguments.of(":80", new ListenAddress.Inet("", 80)),
                    Arguments.of(":65535", new ListenAddress.Inet("", 65535)),
                    Arguments.of("[::1]:8443", new ListenAddress.Inet("::1", 8443)),
                    Arguments.of("[::]:80", new ListenAddress.Inet("::", 80)),
                    Arguments.of("::1:80", new ListenAddress.Inet("::1", 80)),
                    Arguments.of("2001:db8::1:443", new ListenAddress.Inet("2001:db8::1", 443)),
                    Arguments.of("ipv4@*:80", new ListenAddress.Inet("0.0.0.0", 80)),
                    Arguments.of("ipv4@:80", new ListenAddress.Inet("0.0.0.0", 80)),
                    Arguments.of("ipv4@10.0.0.1:81", new ListenAddress.Inet("10.0.0.1", 81)),
                    Arguments.of("ipv6@:80", new ListenAddress.Inet("::", 80)),
                    Arguments.of("ipv6@*:80", new ListenAddress.Inet("::", 80)),
                    Arguments.of("ipv6@[::1]:80", new ListenAddress.Inet("::1", 80)),
                    Arguments.of("ipv6@::1:80", new ListenAddress.Inet("::1", 80)),
                    Arguments.of("fd@3", new ListenAddress.InheritedFd(3)),
                    Arguments.of("fd@0", new ListenAddress.InheritedFd(0)),
                    Arguments.of("\"fd@${LISTEN_FD}\"", new ListenAddress.InheritedFd(7)),
                    Arguments.of("\"${ADDR}:${PORT}\"", new ListenAddress.Inet("192.168.1.2", 9000)));
        }

        @ParameterizedTest(name = "bind {0}")
        @MethodSource("addresses")
        void validAddresses(String address, ListenAddress expected) {
            var c = valid(inFrontend("bind " + address), Map.of("LISTEN_FD", "7", "ADDR", "192.168.1.2", "PORT", "9000"));
            Proxy fe = Configs.proxy(c, "fe");
            assertThat(fe.binds()).hasSize(2);
            Bind b = fe.binds().getFirst();
            assertThat(b.address()).isEqualTo(expected);
            assertThat(b.where()).isEqualTo(at(FRONTEND_LINE));
            assertThat(fe.binds().get(1).address()).isEqualTo(new ListenAddress.Inet("", 8080));
        }

        @Test
        void commaListsGiveOneBindPerAddress() {
            Proxy fe = frontendOf("bind 127.0.0.1:80,[::1]:80,fd@4\nbind :443");
            assertThat(fe.binds()).containsExactly(
                    new Bind(at(FRONTEND_LINE), new ListenAddress.Inet("127.0.0.1", 80), "127.0.0.1:80"),
                    new Bind(at(FRONTEND_LINE), new ListenAddress.Inet("::1", 80), "[::1]:80"),
                    new Bind(at(FRONTEND_LINE), new ListenAddress.InheritedFd(4), "fd@4"),
                    new Bind(at(FRONTEND_LINE + 1), new ListenAddress.Inet("", 443), ":443"),
                    new Bind(at(FRONTEND_LINE + 2), new ListenAddress.Inet("", 8080), ":8080"));
        }

        @Test
        void addressesPrintBack() {
            assertThat(new ListenAddress.Inet("::1", 80)).hasToString("[::1]:80");
            assertThat(new ListenAddress.Inet("10.0.0.1", 80)).hasToString("10.0.0.1:80");
            assertThat(new ListenAddress.Inet("", 80)).hasToString(":80");
            assertThat(new ListenAddress.InheritedFd(3)).hasToString("fd@3");
        }

        @ParameterizedTest(name = "bind {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "127.0.0.1            => missing port in address '127.0.0.1'",
                "127.0.0.1:           => missing port in address '127.0.0.1:'",
                "[::1]                => missing port in address '[::1]'",
                "localhost:80         => 'localhost' is not an IP address (bind takes IP addresses, '*' or nothing)",
                "300.0.0.1:80         => '300.0.0.1' is not an IP address (bind takes IP addresses, '*' or nothing)",
                "127.0.0.1:0          => port 0 in address '127.0.0.1:0' is not between 1 and 65535",
                "127.0.0.1:65536      => port 65536 in address '127.0.0.1:65536' is not between 1 and 65535",
                "127.0.0.1:http       => invalid port 'http' in address '127.0.0.1:http'",
                ":8000-8010           => port ranges ('8000-8010') are not supported by Sluice",
                "[::1:80              => missing ']' in address '[::1:80'",
                "[::1]80              => unexpected '80' after ']' in address '[::1]80'",
                "unix@/run/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa => socket path 'unix@/run/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' too long (max 97)",
                "sockpair@3           => address family 'sockpair@' is not supported by Sluice yet",
                "quic@:443            => address family 'quic@' is not supported by Sluice yet",
                "tcp@1.2.3.4:80       => unknown address family 'tcp@'",
                "ipv4@::1:80          => address '::1' does not match its family prefix",
                "ipv6@127.0.0.1:80    => address '127.0.0.1' does not match its family prefix",
                "fd@                  => 'fd@' expects a file descriptor number, not '' (is the environment variable set?)",
                "\"fd@${UNSET_FD}\"   => 'fd@' expects a file descriptor number, not '' (is the environment variable set?)",
                "fd@x                 => 'fd@' expects a file descriptor number, not 'x'",
                "fd@-1                => 'fd@' expects a file descriptor number, not '-1'",
                "`:80 ssl`            => 'ssl' needs at least one 'crt <pem file or directory>'.",
                "`:80 proto h3`       => 'proto' : unknown protocol 'h3' (Sluice supports 'h1' and 'h2')",
                "`:80 ssl crt /x.pem ssl-min-ver TLSv9` => 'ssl-min-ver' : unknown version 'TLSv9' (expected one of SSLv3, TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3)",
                "`:80 ssl crt /x.pem verify maybe` => 'verify' : unknown value 'maybe' (expected none, optional, required)",
                "`:80 ssl crt /x.pem alpn` => 'alpn' expects an argument.",
                "`:80 ssl crt /x.pem crt-list /l` => bind option 'crt-list' is not supported by Sluice yet: certificate lists (use several 'crt' or a directory)",
                "`:80 ssl crt /x.pem no-tlsv10 no-tlsv11 no-tlsv12 no-tlsv13` => no TLS version is left enabled by the version options.",
                "`:80 accept-netscaler-cip 1234` => bind option 'accept-netscaler-cip' is not supported by Sluice yet: NetScaler client IP insertion",
                "`quic4@:443 ssl crt /x.pem accept-proxy` => 'accept-proxy' does not apply to QUIC bind 'quic4@:443': the PROXY protocol runs over TCP.",
                "`:80 shards 2`       => bind option 'shards' is not supported by Sluice yet: this bind option",
                "`:80 name`           => 'name' expects an argument.",
        })
        void rejectedAddresses(String address, String message) {
            Diagnostic d = assertSingleError(parse(inFrontend("bind " + address)), FRONTEND_LINE, message);
            assertThat(d.message()).isEqualTo("'bind' : " + message);
        }

        @Test
        void tlsOptionsWithoutSslLeaveAClearTextBindAsInHaproxy() {
            var r = parse(inFrontend("bind :80 crt /x.pem alpn h2,http/1.1"));
            assertThat(Configs.errors(r)).isEmpty();
            assertThat(r.diagnostics()).extracting(Diagnostic::severity).containsOnly(Diagnostic.Severity.NOTICE);
            assertThat(r.diagnostics().getFirst().message()).contains("the bind is in clear text");
            assertThat(Configs.proxy(r.config(), "fe").binds().getFirst().tls()).isNull();
        }

        @Test
        void eachBadAddressOfAListIsReported() {
            var r = parse(inFrontend("bind :80,localhost:81,:0"));
            assertThat(Configs.errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                    tuple(FRONTEND_LINE, "'bind' : 'localhost' is not an IP address (bind takes IP addresses, '*' or nothing)"),
                    tuple(FRONTEND_LINE, "'bind' : port 0 in address ':0' is not between 1 and 65535"));
        }

        @Test
        void missingAddress() {
            assertSingleError(parse(inFrontend("bind")), FRONTEND_LINE, "'bind' : missing address; expected: bind <address>:<port>[,...] | fd@<n>");
        }
    }

    @Nested
    class ServerKeyword {

        static Stream<Arguments> servers() {
            return Stream.of(
                    Arguments.of("s1 10.0.0.1:8080", "10.0.0.1", 8080, 1),
                    Arguments.of("s1 10.0.0.1", "10.0.0.1", 0, 1),
                    Arguments.of("s1 10.0.0.1:", "10.0.0.1", 0, 1),
                    Arguments.of("s1 [::1]:8080", "::1", 8080, 1),
                    Arguments.of("s1 [::1]", "::1", 0, 1),
                    Arguments.of("s1 ::1", "::1", 0, 1),
                    Arguments.of("s1 2001:db8::10", "2001:db8::10", 0, 1),
                    Arguments.of("s1 ipv4@10.0.0.1:80", "10.0.0.1", 80, 1),
                    Arguments.of("s1 ipv6@[::1]:80", "::1", 80, 1),
                    Arguments.of("s1 app.internal:8080", "app.internal", 8080, 1),
                    Arguments.of("s1 app.internal", "app.internal", 0, 1),
                    Arguments.of("s1 10.0.0.1:80 weight 0", "10.0.0.1", 80, 0),
                    Arguments.of("s1 10.0.0.1:80 weight 256", "10.0.0.1", 80, 256),
                    Arguments.of("s1 10.0.0.1:80 weight 7 weight 9", "10.0.0.1", 80, 9),
                    Arguments.of("web-1.a:b_c 10.0.0.1:80", "10.0.0.1", 80, 1));
        }

        @ParameterizedTest(name = "server {0}")
        @MethodSource("servers")
        void validServers(String args, String host, int port, int weight) {
            Proxy be = backendOf("server " + args);
            String name = args.substring(0, args.indexOf(' '));
            assertThat(be.servers()).containsExactly(new Server(at(BACKEND_LINE), name, host, port, weight).withId(1));
        }

        @Test
        void unixSocketServersKeepTheirPath() {
            Proxy be = backendOf("server a unix@/run/app.sock check\nserver b /run/b.sock");
            assertThat(be.servers()).extracting(Server::unix, Server::unixPath, Server::port)
                    .containsExactly(tuple(true, "/run/app.sock", 0), tuple(true, "/run/b.sock", 0));
            assertThat(backendOf("server c 10.0.0.1:80").servers().getFirst().unix()).isFalse();
        }

        @ParameterizedTest(name = "server {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "``                             => missing server name and address",
                "s1                             => missing address for server 's1'",
                "s/1 10.0.0.1:80                => invalid character in server name 's/1'",
                "s1 10.0.0.1:80 weight 257      => weight of server s1 is not within 0 and 256 (257).",
                "s1 10.0.0.1:80 weight -1       => weight of server s1 is not within 0 and 256 (-1).",
                "s1 10.0.0.1:80 weight abc      => 'weight' expects an integer argument, not 'abc'.",
                "s1 10.0.0.1:80 weight          => 'weight' expects an integer argument.",
                "s1 10.0.0.1:80 check agent-check => server s1 does not have agent port. Agent check has been disabled.",
                "s1 10.0.0.1:80 verifyhost x    => server 's1' : option 'verifyhost' is not supported by Sluice yet: this server TLS option",
                "s1 10.0.0.1:80 ssl verify optional => 'verify' on a server takes 'none' or 'required', not 'optional'",
                "s1 10.0.0.1:80 proto h3        => 'proto' : unknown protocol 'h3' (Sluice supports 'h1' and 'h2')",
                "s1 10.0.0.1:80 track be/s2     => server 's1' : option 'track' is not supported by Sluice yet: server tracking",
                "s1 10.0.0.1:80 send-proxy-v2 proxy-v2-options ssl,tlv => server 's1' : 'tlv' : proxy v2 option not implemented",
                "s1 10.0.0.1:80 proxy-v2-options => server 's1' : 'proxy-v2-options' expects an argument.",
                "s1 10.0.0.1:80 send-proxi      => server 's1' : unknown keyword 'send-proxi'; did you mean 'send-proxy' maybe ?",
                "s1 a.example:80 init-addr libc,bogus => server 's1' : 'init-addr' : expects 'last', 'libc', 'none' or an IP address, not 'bogus'.",
                "s1 a.example:80 init-addr      => server 's1' : 'init-addr' : expects 'last', 'libc', 'none' or an IP address, not ''.",
                "s1 10.0.0.1:80 minconn -1      => server 's1' : 'minconn' expects a non-negative integer (got '-1').",
                "s1 10.0.0.1:80 wieght 3        => server 's1' : unknown keyword 'wieght'; did you mean 'weight' maybe ?",
                "s1 10.0.0.1:80 foo             => server 's1' : unknown keyword 'foo'",
                "s1 sockpair@3                  => server 's1' : address 'sockpair@3' is not supported by Sluice yet (only IPv4, IPv6, host names, UNIX socket paths and abns@ names)",
                "s1 unix@                       => server 's1' : missing path in address 'unix@'",
                "s1 :80                         => server 's1' : missing host in address ':80'",
                "s1 10.0.0.1:0                  => server 's1' : port 0 in address '10.0.0.1:0' is not between 1 and 65535",
                "s1 10.0.0.1:99999              => server 's1' : port 99999 in address '10.0.0.1:99999' is not between 1 and 65535",
                "s1 10.0.0.1:http               => server 's1' : invalid port 'http' in address '10.0.0.1:http'",
                "s1 [::1                        => server 's1' : missing ']' in address '[::1'",
        })
        void rejectedServers(String args, String message) {
            var r = parse(inBackend("server " + args));
            Diagnostic d = assertSingleError(r, BACKEND_LINE, message);
            assertThat(d.message()).isEqualTo("'server' : " + message);
        }

        @Test
        void foolishOptionDoesNotGetASuggestion() {
            var d = assertSingleError(parse(inBackend("server s1 10.0.0.1:80 foo")), BACKEND_LINE, "unknown keyword 'foo'");
            assertThat(d.message()).doesNotContain("did you mean");
        }

        @Test
        void defaultServerWeightAppliesToFollowingServers() {
            Proxy be = backendOf("""
                    server a 10.0.0.1:80
                    default-server weight 10
                    server b 10.0.0.2:80
                    server c 10.0.0.3:80 weight 3
                    default-server weight 0
                    server d 10.0.0.4:80
                    """);
            assertThat(be.servers()).extracting(Server::name, Server::weight).containsExactly(
                    tuple("a", 1),
                    tuple("b", 10),
                    tuple("c", 3),
                    tuple("d", 0));
        }

        @Test
        void statsHttpRequestRulesDoNotMixWithStatsAuth() {
            assertThat(Configs.errors(parse(inFrontend("stats enable\nstats http-request deny unless { src 10.0.0.0/8 }")))).isEmpty();
            assertThat(Configs.errors(parse(inFrontend("stats http-request auth realm R\nstats auth a:b")))).extracting(Diagnostic::message)
                    .containsExactly("proxy 'fe': stats 'auth'/'realm' and 'http-request' can't be used at the same time.");
            assertSingleError(parse(inFrontend("stats http-request tarpit")), FRONTEND_LINE,
                    "'tarpit' is not a stats http-request action (expected allow, deny or auth).");
        }

        @Test
        void expectProxyIsAConnectionRuleWithLayer4() {
            assertThat(Configs.errors(parse(inFrontend("tcp-request connection expect-proxy layer4 if { src 10.0.0.0/8 }")))).isEmpty();
            assertSingleError(parse(inFrontend("tcp-request connection expect-proxy layer7")), FRONTEND_LINE,
                    "'tcp-request connection expect-proxy' only supports 'layer4' in frontend 'fe' (got 'layer7')");
            assertSingleError(parse(inFrontend("tcp-request content expect-proxy layer4")), FRONTEND_LINE,
                    "'expect-proxy layer4' is not allowed in 'tcp-request content' rules in frontend 'fe'");
        }

        @Test
        void compressionLinesAddUpAndInheritFromDefaults() {
            var c = valid(Configs.DEFAULTS + """
                        compression algo gzip
                    frontend fe
                        bind :80
                        compression algo deflate gzip
                        compression type text/html text/plain
                        default_backend be
                    backend be
                        compression offload
                        server a 10.0.0.1:80
                    """);
            var fe = Configs.proxy(c, "fe").http().compression();
            assertThat(fe.algos()).containsExactly("gzip", "deflate");
            assertThat(fe.types()).containsExactly("text/html", "text/plain");
            assertThat(fe.offload()).isFalse();
            var be = Configs.proxy(c, "be").http().compression();
            assertThat(be.algos()).containsExactly("gzip");
            assertThat(be.offload()).isTrue();
        }

        @Test
        void filterCompressionIsAcceptedOncePerProxyAndChangesNothing() {
            String proxies = """
                    frontend fe
                        bind :80
                        filter compression
                        compression algo gzip
                        default_backend be
                    backend be
                        filter compression
                        server a 10.0.0.1:80
                    listen li
                        bind :81
                        filter compression
                        server a 10.0.0.1:80
                    """;
            var with = valid(Configs.DEFAULTS + proxies);
            var without = valid(Configs.DEFAULTS + proxies.replace("    filter compression\n", ""));
            for (String p : new String[] {"fe", "be", "li"}) {
                assertThat(Configs.proxy(with, p).http()).as(p).isEqualTo(Configs.proxy(without, p).http());
            }
            assertSingleError(parse(inBackend("filter compression\nfilter compression")), BACKEND_LINE + 1,
                    "'filter compression' : 'be': Proxy supports only one compression filter");
            assertSingleError(parse(inBackend("filter compression gzip")), BACKEND_LINE,
                    "'filter compression' : unexpected argument 'gzip'; expected: filter compression");
            assertThat(Configs.errors(parse(Configs.DEFAULTS + "    filter compression\n"))).extracting(Diagnostic::message)
                    .containsExactly("'filter compression' is not allowed in 'defaults' section (allowed in: frontend, backend, listen).");
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "compression algo brotli => 'compression' : 'brotli' is not a supported algorithm.",
                "compression algo => 'compression' : expects <algorithm>",
                "compression type => 'compression' : expects <type>",
                "compression level 9 => 'compression' : expects 'algo', 'type' or 'offload'",
        })
        void compressionErrors(String line, String message) {
            Diagnostic d = assertSingleError(parse(inBackend(line)), BACKEND_LINE, message);
            assertThat(d.message()).isEqualTo(message);
        }

        @Test
        void proxyProtocolVersionsAddAndRemoveAsInHaproxy() {
            Proxy be = backendOf("""
                    server a 10.0.0.1:80
                    server b 10.0.0.2:80 send-proxy
                    server c 10.0.0.3:80 send-proxy-v2
                    server d 10.0.0.4:80 send-proxy send-proxy-v2
                    default-server send-proxy-v2 check-send-proxy
                    server e 10.0.0.5:80
                    server f 10.0.0.6:80 no-send-proxy-v2 no-check-send-proxy
                    server g 10.0.0.7:80 no-send-proxy
                    server h 10.0.0.8:80 send-proxy-v2-ssl-cn no-check-send-proxy
                    server i 10.0.0.9:80 no-send-proxy-v2 send-proxy proxy-v2-options crc32c,unique-id,ssl-cipher no-check-send-proxy
                    """);
            assertThat(be.servers()).extracting(Server::name, Server::proxyVersion, Server::proxyV2Options, s -> s.check().sendProxy()).containsExactly(
                    tuple("a", 0, 0, false),
                    tuple("b", 1, 0, false),
                    tuple("c", 2, 0, false),
                    tuple("d", 2, 0, false),
                    tuple("e", 2, 0, true),
                    tuple("f", 0, 0, false),
                    tuple("g", 2, 0, true),
                    tuple("h", 2, Server.PP_V2_SSL | Server.PP_V2_SSL_CN, false),
                    // the options alone send nothing: version 1 here, which has no extra fields
                    tuple("i", 1, Server.PP_V2_CRC32C | Server.PP_V2_UNIQUE_ID | Server.PP_V2_SSL | Server.PP_V2_SSL_CIPHER, false));
            Proxy ia = backendOf("server a a.example:80\nserver b b.example:80 init-addr none,10.0.0.1,libc");
            assertThat(ia.servers()).extracting(Server::initAddr).containsExactly(List.of("last", "libc"), List.of("none", "10.0.0.1", "libc"));
            Proxy fe = frontendOf("bind :80 accept-proxy\nbind :81");
            assertThat(fe.binds()).extracting(dev.sluice.config.model.Bind::acceptProxy).startsWith(true, false).containsOnlyOnce(true);
        }

        @Test
        void defaultServerWeightIsInheritedFromDefaults() {
            var c = valid(Configs.DEFAULTS + """
                        default-server weight 42
                    frontend fe
                        bind :80
                        default_backend be
                    backend be
                        server a 10.0.0.1:80
                        server b 10.0.0.2:80 weight 256
                    """);
            assertThat(Configs.proxy(c, "be").servers()).extracting(Server::weight).containsExactly(42, 256);
        }

        @ParameterizedTest(name = "default-server {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "weight 300 => 'default-server' : weight of server default-server is not within 0 and 256 (300).",
                "weight x   => 'default-server' : 'weight' expects an integer argument, not 'x'.",
                "weight     => 'default-server' : 'weight' expects an integer argument.",
                "check namespace ns1 => 'default-server' : option 'namespace' is not supported by Sluice yet: network namespaces",
                "bogus      => 'default-server' : unknown keyword 'bogus'",
        })
        void defaultServerErrors(String args, String message) {
            Diagnostic d = assertSingleError(parse(inBackend("default-server " + args)), BACKEND_LINE, message);
            assertThat(d.message()).isEqualTo(message);
        }

        @Test
        void serverNotAllowedInFrontend() {
            assertSingleError(parse(inFrontend("server s 10.0.0.1:80")), FRONTEND_LINE,
                    "'server' is not allowed in 'frontend' section (allowed in: backend, listen).");
        }
    }

    @Nested
    class Switching {
        @Test
        void defaultBackend() {
            Proxy fe = frontendOf("default_backend be");
            assertThat(fe.defaultBackend()).isEqualTo("be");
            assertThat(fe.useBackends()).isEmpty();
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "default_backend          => 'default_backend' : missing argument; expected: default_backend <backend>",
                "default_backend be other => 'default_backend' : unexpected argument 'other'; expected: default_backend <backend>",
                "use_backend              => 'use_backend' : missing backend name; expected: use_backend <backend> [if|unless <condition>]",
                "use_backend if TRUE      => 'use_backend' : missing backend name; expected: use_backend <backend> [if|unless <condition>]",
                "use_backend be when TRUE => 'use_backend' : unexpected argument 'when' (expected 'if' or 'unless' followed by a condition)",
                "use_backend be if { path => error detected while parsing a 'use_backend' condition : missing closing '}' in condition.",
        })
        void errors(String line, String message) {
            Diagnostic d = assertSingleError(parse(inFrontend(line)), FRONTEND_LINE, message);
            assertThat(d.message()).isEqualTo(message);
        }

        @Test
        void useBackendRules() {
            Proxy fe = frontendOf("""
                    acl is_api path_beg /api
                    acl is_v2 path_beg /v2
                    use_backend be if is_api is_v2 || METH_POST
                    use_backend be unless !is_api
                    use_backend be
                    use_backend %[req.hdr(host),lower,map(/etc/hosts.map)]
                    use_backend be if { hdr(host) -i example.com }
                    """);
            List<UseBackend> rules = fe.useBackends();
            assertThat(rules).hasSize(5);
            assertThat(rules.get(0)).isEqualTo(new UseBackend(at(FRONTEND_LINE + 2), "be", new Condition(false, List.of(
                    List.of(new Condition.Term(false, "is_api", null), new Condition.Term(false, "is_v2", null)),
                    List.of(new Condition.Term(false, "METH_POST", null))))));
            assertThat(rules.get(1)).isEqualTo(new UseBackend(at(FRONTEND_LINE + 3), "be", new Condition(true, List.of(
                    List.of(new Condition.Term(true, "is_api", null))))));
            assertThat(rules.get(2)).isEqualTo(new UseBackend(at(FRONTEND_LINE + 4), "be", null));
            assertThat(rules.get(2).isDynamic()).isFalse();
            assertThat(rules.get(3).backend()).isEqualTo("%[req.hdr(host),lower,map(/etc/hosts.map)]");
            assertThat(rules.get(3).isDynamic()).isTrue();
            assertThat(rules.get(3).condition()).isNull();
            assertThat(rules.get(4).condition()).isEqualTo(new Condition(false, List.of(List.of(
                    new Condition.Term(false, null, new AclExpr("hdr(host)", List.of("-i"), List.of("example.com")))))));
        }

        @Test
        void useBackendNotAllowedInDefaults() {
            var r = parse("defaults\n    use_backend be\n");
            assertSingleError(r, 2, "'use_backend' is not allowed in 'defaults' section (allowed in: frontend, listen).");
        }
    }

    @Nested
    class AclKeyword {
        @Test
        void aclLines() {
            Proxy fe = frontendOf("""
                    acl is_api path_beg -i /api /v2
                    acl is_api hdr(host) -m beg api.
                    acl big req.body_size gt 1000
                    acl neg int -- -5
                    acl dash path -- -x
                    acl listed src -f /etc/allow.lst
                    acl a:b.c-d_e always_true
                    """);
            assertThat(fe.acls()).containsExactly(
                    new Acl(at(FRONTEND_LINE), "is_api", new AclExpr("path_beg", List.of("-i"), List.of("/api", "/v2"))),
                    new Acl(at(FRONTEND_LINE + 1), "is_api", new AclExpr("hdr(host)", List.of("-m", "beg"), List.of("api."))),
                    new Acl(at(FRONTEND_LINE + 2), "big", new AclExpr("req.body_size", List.of(), List.of("gt", "1000"))),
                    new Acl(at(FRONTEND_LINE + 3), "neg", new AclExpr("int", List.of(), List.of("-5"))),
                    new Acl(at(FRONTEND_LINE + 4), "dash", new AclExpr("path", List.of(), List.of("-x"))),
                    new Acl(at(FRONTEND_LINE + 5), "listed", new AclExpr("src", List.of("-f", "/etc/allow.lst"), List.of())),
                    new Acl(at(FRONTEND_LINE + 6), "a:b.c-d_e", new AclExpr("always_true", List.of(), List.of())));
            assertThat(fe.acls().getFirst().expr()).hasToString("path_beg -i /api /v2");
        }

        @Test
        void aclsInBackends() {
            Proxy be = backendOf("acl local src 127.0.0.1\nhttp-request return status 403 if !local");
            assertThat(be.acls()).extracting(Acl::name).containsExactly("local");
            assertThat(be.httpRequestRules()).hasSize(1);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "acl                     => 'acl' : missing ACL name",
                "acl lonely              => 'acl' : missing fetch method in ACL 'lonely'",
                "acl TRUE always_true    => 'acl' : ACL name 'TRUE' is reserved for a predefined ACL.",
                "acl METH_GET method GET => 'acl' : ACL name 'METH_GET' is reserved for a predefined ACL.",
                "acl a/b path /          => 'acl' : invalid character '/' in ACL name 'a/b'.",
                "acl x path -z foo       => 'acl' : error detected while parsing ACL 'x' : '-z' is not a valid ACL option. Please use '--' before any pattern beginning with a '-'.",
                "acl x path -m           => 'acl' : error detected while parsing ACL 'x' : missing argument after '-m' in ACL expression 'path'.",
        })
        void errors(String line, String message) {
            Diagnostic d = assertSingleError(parse(inFrontend(line)), FRONTEND_LINE, message);
            assertThat(d.message()).isEqualTo(message);
        }

        @Test
        void notInDefaults() {
            assertSingleError(parse("defaults\n    acl a src 1.2.3.4\n"), 2,
                    "'acl' is not allowed in 'defaults' section (allowed in: frontend, backend, listen, fcgi-app).");
        }
    }

    @Nested
    class TimeoutKeywords {

        static Stream<Arguments> timeouts() {
            return Stream.of(
                    Arguments.of("client", (ToLongFunction<Timeouts>) Timeouts::client),
                    Arguments.of("server", (ToLongFunction<Timeouts>) Timeouts::server),
                    Arguments.of("connect", (ToLongFunction<Timeouts>) Timeouts::connect),
                    Arguments.of("http-request", (ToLongFunction<Timeouts>) Timeouts::httpRequest),
                    Arguments.of("http-keep-alive", (ToLongFunction<Timeouts>) Timeouts::httpKeepAlive));
        }

        @ParameterizedTest(name = "timeout {0}")
        @MethodSource("timeouts")
        void eachTimeoutSetsItsField(String name, ToLongFunction<Timeouts> field) {
            var c = valid("""
                    defaults
                        mode http
                        timeout client 1s
                        timeout server 1s
                        timeout connect 1s
                    listen l
                        bind :80
                        timeout %s 1500ms
                    """.formatted(name));
            Timeouts t = Configs.proxy(c, "l").timeouts();
            assertThat(field.applyAsLong(t)).isEqualTo(1500);
            long others = Stream.of(t.client(), t.server(), t.connect(), t.httpRequest(), t.httpKeepAlive()).filter(v -> v == 1000).count();
            assertThat(others).isEqualTo(name.startsWith("http") ? 3 : 2);
            assertThat(List.of(t.queue(), t.tunnel(), t.clientFin(), t.serverFin(), t.check(), t.tarpit())).containsOnly(Timeouts.UNSET);
            assertThat(frontendOf("timeout tarpit 3s").timeouts().tarpit()).isEqualTo(3000);
        }

        @Test
        void unitsAndDefaults() {
            Proxy fe = frontendOf("timeout client 2m\ntimeout http-request 10s");
            assertThat(fe.timeouts().client()).isEqualTo(120_000);
            assertThat(fe.timeouts().httpRequest()).isEqualTo(10_000);
            assertThat(fe.timeouts().httpKeepAlive()).isEqualTo(Timeouts.UNSET);
            assertThat(fe.timeouts().effectiveKeepAlive()).isEqualTo(10_000);
            assertThat(frontendOf("timeout http-request 10s\ntimeout http-keep-alive 2s").timeouts().effectiveKeepAlive()).isEqualTo(2000);
            assertThat(frontendOf("timeout client 7").timeouts().client()).isEqualTo(7);
            assertThat(Timeouts.NONE.effectiveKeepAlive()).isEqualTo(Timeouts.UNSET);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "timeout client 10x       => 'timeout client' : unexpected character 'x' in time value '10x': units are us, ms, s, m, h, d",
                "timeout client           => 'timeout client' : missing argument; expected: timeout client <time>",
                "timeout client 1s 2s     => 'timeout client' : unexpected argument '2s'; expected: timeout client <time>",
                "timeout http-request 30d => 'timeout http-request' : time value '30d' is too large (maximum is 2147483647 ms, about 24.8 days)",
                "timeout client -1        => 'timeout client' : '-1' is not a time",
                "timeout                  => 'timeout' expects a timeout (one of: client, http-request, http-keep-alive, tarpit, client-fin, server-fin, tunnel).",
                "timeout clinet 5s        => unknown timeout 'clinet' in 'frontend' section; did you mean 'client' maybe ?",
                "timeout server 5s        => 'timeout server' is not allowed in 'frontend' section (allowed in: defaults, backend, listen).",
                "timeout queue 5s         => 'timeout queue' is not allowed in 'frontend' section (allowed in: defaults, backend, listen).",
                "timeout tunnel x         => 'timeout tunnel' : 'x' is not a time",
                "timeout check 1s         => 'timeout check' is not allowed in 'frontend' section (allowed in: defaults, backend, listen).",
        })
        void errors(String line, String message) {
            Diagnostic d = assertSingleError(parse(inFrontend(line)), FRONTEND_LINE, message);
            assertThat(d.message()).startsWith(message);
        }

        @Test
        void httpRequestAndKeepAliveInABackend() {
            // HAProxy 2.6 takes both in a backend (corpus 12 has 'timeout http-request' there), without a warning
            Proxy be = backendOf("timeout http-request 7s\ntimeout http-keep-alive 3s\nserver s1 127.0.0.1:8081");
            assertThat(be.timeouts().httpRequest()).isEqualTo(7000);
            assertThat(be.timeouts().httpKeepAlive()).isEqualTo(3000);
        }

        @Test
        void badValueIsReportedAtItsLine() {
            var r = parse(inFrontend("timeout client 3s\ntimeout client bad"));
            assertSingleError(r, FRONTEND_LINE + 1, "'timeout client' : 'bad' is not a time");
        }
    }

    @Nested
    class ForwardFor {
        @ParameterizedTest(name = "option forwardfor {0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "``                                            => X-Forwarded-For =>                    => false",
                "if-none                                       => X-Forwarded-For =>                    => true",
                "header X-Client-IP                            => X-Client-IP     =>                    => false",
                "except 127.0.0.0/8                            => X-Forwarded-For => 127.0.0.0/8        => false",
                "except 10.0.0.1                               => X-Forwarded-For => 10.0.0.1           => false",
                "except 10.0.0.0/255.0.0.0                     => X-Forwarded-For => 10.0.0.0/255.0.0.0 => false",
                "except ::1/128                                => X-Forwarded-For => ::1/128            => false",
                "except 2001:db8::/32 header X-Real-IP if-none => X-Real-IP       => 2001:db8::/32      => true",
                "if-none header A header B                     => B               =>                    => true",
        })
        void variants(String args, String header, String except, boolean ifNone) {
            Proxy fe = frontendOf("option forwardfor " + args);
            assertThat(fe.http().forwardFor()).isEqualTo(new HttpOptions.ForwardFor(header, except, ifNone));
        }

        @Test
        void offByDefaultInheritedAndNegated() {
            assertThat(frontendOf("").http().forwardFor()).isNull();
            var c = valid(Configs.DEFAULTS + """
                        option forwardfor header X-Src
                    frontend a
                        bind :80
                        default_backend b
                    frontend c
                        bind :81
                        no option forwardfor
                        default_backend b
                    backend b
                    """);
            assertThat(Configs.proxy(c, "a").http().forwardFor()).isEqualTo(new HttpOptions.ForwardFor("X-Src", null, false));
            assertThat(Configs.proxy(c, "c").http().forwardFor()).isNull();
            assertThat(Configs.proxy(c, "b").http().forwardFor()).isEqualTo(new HttpOptions.ForwardFor("X-Src", null, false));
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "option forwardfor except              => 'option forwardfor' : 'except' requires a network in CIDR form.",
                "option forwardfor except 10.0.0.0/33  => 'option forwardfor' : 'except' : invalid network '10.0.0.0/33' (expected <ip>[/<prefix>])",
                "option forwardfor except ::/129       => 'option forwardfor' : 'except' : invalid network '::/129' (expected <ip>[/<prefix>])",
                "option forwardfor except lan          => 'option forwardfor' : 'except' : invalid network 'lan' (expected <ip>[/<prefix>])",
                "option forwardfor except ::/255.0.0.0 => 'option forwardfor' : 'except' : invalid network '::/255.0.0.0' (expected <ip>[/<prefix>])",
                "option forwardfor except 1.2.3.4/x    => 'option forwardfor' : 'except' : invalid network '1.2.3.4/x' (expected <ip>[/<prefix>])",
                "option forwardfor header              => 'option forwardfor' : 'header' requires a header name.",
                "option forwardfor header \"\"         => 'option forwardfor' : 'header' requires a header name.",
                "option forwardfor always              => 'option forwardfor' : unexpected argument 'always'; expected: option forwardfor [except <network>] [header <name>] [if-none]",
                "no option forwardfor if-none          => 'option forwardfor' : unexpected argument 'if-none'; expected: no option forwardfor",
        })
        void errors(String line, String message) {
            Diagnostic d = assertSingleError(parse(inFrontend(line)), FRONTEND_LINE, message);
            assertThat(d.message()).isEqualTo(message);
        }
    }

    @Nested
    class ConnectionModes {
        @ParameterizedTest(name = "{0}")
        @CsvSource({
                "option http-keep-alive, KEEP_ALIVE",
                "option http-server-close, SERVER_CLOSE",
                "option httpclose, CLOSE",
                "no option httpclose, KEEP_ALIVE",
                "no option http-server-close, KEEP_ALIVE",
                "'option httpclose\noption http-server-close', SERVER_CLOSE",
                "'option httpclose\nno option httpclose', KEEP_ALIVE",
        })
        void modes(String lines, ConnectionMode mode) {
            assertThat(frontendOf(lines).http().connectionMode()).isEqualTo(mode);
        }

        @Test
        void defaultIsKeepAliveAndDefaultsAreInherited() {
            assertThat(frontendOf("").http().connectionMode()).isEqualTo(ConnectionMode.KEEP_ALIVE);
            var c = valid(Configs.DEFAULTS + """
                        option httpclose
                    frontend fe
                        bind :80
                        default_backend be
                    backend be
                        no option httpclose
                    """);
            assertThat(Configs.proxy(c, "fe").http().connectionMode()).isEqualTo(ConnectionMode.CLOSE);
            assertThat(Configs.proxy(c, "be").http().connectionMode()).isEqualTo(ConnectionMode.KEEP_ALIVE);
        }

        @Test
        void noArguments() {
            Diagnostic d = assertSingleError(parse(inFrontend("option http-server-close now")), FRONTEND_LINE,
                    "'option http-server-close' : unexpected argument 'now'; expected: option http-server-close");
            assertThat(d.message()).isEqualTo("'option http-server-close' : unexpected argument 'now'; expected: option http-server-close");
        }
    }

    @Nested
    class HttpRequestReturn {

        private HttpRule.Action onlyRule(String line) {
            Proxy fe = frontendOf(line);
            assertThat(fe.httpRequestRules()).hasSize(1);
            return (HttpRule.Action) fe.httpRequestRules().getFirst();
        }

        @Test
        void fullRule() {
            Proxy fe = frontendOf("""
                    acl maint always_true
                    http-request return status 503 content-type "text/plain; charset=utf-8" string "down for maintenance" hdr Retry-After 30 hdr X-A "a b" if maint
                    """);
            assertThat(fe.httpRequestRules()).containsExactly(new HttpRule.Action(at(FRONTEND_LINE + 1),
                    new Condition(false, List.of(List.of(new Condition.Term(false, "maint", null)))), "return",
                    List.of("status", "503", "content-type", "text/plain; charset=utf-8", "string", "down for maintenance",
                            "hdr", "Retry-After", "30", "hdr", "X-A", "a b")));
        }

        @Test
        void defaults() {
            assertThat(onlyRule("http-request return")).isEqualTo(new HttpRule.Action(at(FRONTEND_LINE), null, "return", List.of()));
        }

        @Test
        void emptyStringNeedsNoContentType() {
            HttpRule.Action r = onlyRule("http-request return status 404 string \"\" unless METH_GET");
            assertThat(r.args()).containsExactly("status", "404", "string", "");
            assertThat(r.condition()).isEqualTo(cond(true, "METH_GET"));
        }

        @Test
        void statusBounds() {
            assertThat(onlyRule("http-request return status 200").args()).containsExactly("status", "200");
            assertThat(onlyRule("http-request return status 599").args()).containsExactly("status", "599");
            assertThat(onlyRule("http-request return status 204").args()).containsExactly("status", "204");
        }

        @Test
        void fileBody(@TempDir Path dir) throws IOException {
            Path f = dir.resolve("page.html");
            Files.write(f, "<h1>caf\u00e9</h1>\n".getBytes(StandardCharsets.ISO_8859_1));
            HttpRule.Action r = onlyRule("http-request return content-type text/html file \"" + f + "\" if { path / }");
            assertThat(r.args()).containsExactly("content-type", "text/html", "file", f.toString());
            assertThat(r.condition().alternatives().getFirst().getFirst().anonymous()).isEqualTo(new AclExpr("path", List.of(), List.of("/")));
        }

        @Test
        void missingFile(@TempDir Path dir) {
            Path f = dir.resolve("nope.html");
            var r = parse(inFrontend("http-request return content-type text/html file " + f));
            assertSingleError(r, FRONTEND_LINE, "'http-request return' : cannot read file '" + f + "'");
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
                "status 100                                   => status must be between 200 and 599 (got 100)",
                "status 600                                   => status must be between 200 and 599 (got 600)",
                "status abc                                   => status expects an integer, not 'abc'",
                "status                                       => 'status' expects a status code.",
                "status if TRUE                               => 'status' expects a status code.",
                "content-type                                 => 'content-type' expects a type.",
                "string                                       => 'string' expects a text.",
                "file                                         => 'file' expects a path.",
                "string x                                     => a content type must be defined when non-empty payload is configured.",
                "status 204 content-type text/plain string x  => status 204 cannot carry a body.",
                "status 304 string \"\"                       => status 304 cannot carry a body.",
                "content-type a/b string x string y           => only one body ('string', 'lf-string', 'file' or 'lf-file') may be given.",
                "content-type a/b string x lf-file /etc/hostname => only one body ('string', 'lf-string', 'file' or 'lf-file') may be given.",
                "hdr X-A                                      => 'hdr' expects a name and a value.",
                "hdr \"Bad Name\" v                           => invalid header name 'Bad Name'.",
                "hdr X-A:b v                                  => invalid header name 'X-A:b'.",
                "lf-string x                                  => a content type must be defined when non-empty payload is configured.",
                "errorfile /nonexistent/x                     => error opening file </nonexistent/x>.",
                "errorfiles nope                              => unknown http-errors section 'nope' (it must be declared before it is used).",
                "errorfiles a errorfile /x                    => only one of 'errorfile', 'errorfiles' and 'default-errorfiles' may be given.",
                "content-type a/b errorfile /x                => 'errorfile' cannot be used with 'content-type': the page is a whole HTTP response.",
                "deny                                         => unexpected argument 'deny'; expected: status, content-type, string, lf-string, file, lf-file, hdr, errorfile, errorfiles, default-errorfiles, if or unless.",
        })
        void errors(String args, String message) {
            Diagnostic d = assertSingleError(parse(inFrontend("http-request return " + args)), FRONTEND_LINE, message);
            assertThat(d.message()).isEqualTo("'http-request return' : " + message);
        }

        @Test
        void conditionErrors() {
            // HAProxy 2.6 takes an empty condition (it never holds)
            assertThat(parse(inFrontend("http-request return status 403 if")).diagnostics()).isEmpty();
            assertSingleError(parse(inFrontend("http-request return status 403 if { src }}")), FRONTEND_LINE,
                    "error detected while parsing a 'http-request return' condition : missing closing '}' in condition.");
        }

        @Test
        void otherActionsAreUnknown() {
            assertSingleError(parse(inFrontend("http-request dney")), FRONTEND_LINE,
                    "unknown http-request action 'dney' in 'frontend' section; did you mean 'deny' maybe ?");
            assertSingleError(parse(inFrontend("http-request")), FRONTEND_LINE, "'http-request' expects a http-request action (one of: allow, deny,");
        }

        @Test
        void rulesKeepTheirOrderInBackendsAndListens() {
            var c = valid(Configs.DEFAULTS + """
                    listen l
                        bind :80
                        http-request return status 201 if METH_POST
                        http-request return status 202
                    """);
            assertThat(Configs.proxy(c, "l").httpRequestRules()).extracting(rule -> ((HttpRule.Action) rule).args().get(1)).containsExactly("201", "202");
            assertThat(Configs.proxy(c, "l").httpRequestRules()).extracting(HttpRule::where).containsExactly(at(8), at(9));
        }
    }
}

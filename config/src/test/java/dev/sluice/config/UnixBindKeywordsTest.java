package dev.sluice.config;

import static dev.sluice.config.Configs.FRONTEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.frontendOf;
import static dev.sluice.config.Configs.inFrontend;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.proxy;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.UnixPerms;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Binds on UNIX sockets and in the abstract namespace, their options and {@code unix-bind}, with HAProxy 2.6's messages. */
class UnixBindKeywordsTest {

    @Test
    void pathsAndAbstractNamesAreAddresses() {
        List<Bind> binds = frontendOf("bind /run/a.sock\nbind unix@b.sock\nbind uxst@/run/c.sock\nbind abns@fe1").binds();
        assertThat(binds).extracting(Bind::address).containsExactly(new ListenAddress.Unix("/run/a.sock"), new ListenAddress.Unix("b.sock"),
                new ListenAddress.Unix("/run/c.sock"), new ListenAddress.Abstract("fe1"), new ListenAddress.Inet("", 8080));
        assertThat(new ListenAddress.Abstract("fe1")).hasToString("abns@fe1");
        assertThat(binds.getFirst().socket().unix()).isEqualTo(UnixPerms.NONE);
    }

    @Test
    void modeAndOwnerOptions() {
        Bind b = frontendOf("bind /run/a.sock mode 640 uid 12 gid 34").binds().getFirst();
        assertThat(b.socket().unix()).isEqualTo(new UnixPerms(0640, 12, 34));
        // names are kept as written, with their line, for the daemon to resolve (cli.UnixOwners, through NSS)
        Bind named = frontendOf("bind /run/a.sock user root group wheel").binds().getFirst();
        assertThat(named.socket().unix()).isEqualTo(new UnixPerms(0, -1, -1,
                new UnixPerms.Name("root", named.where(), "'bind /run/a.sock' in section 'frontend'"),
                new UnixPerms.Name("wheel", named.where(), "'bind /run/a.sock' in section 'frontend'")));
        // the last of a name and a number wins
        assertThat(frontendOf("bind /run/a.sock user root uid 5 gid 6 group wheel").binds().getFirst().socket().unix())
                .satisfies(u -> assertThat(u.uid()).isEqualTo(5))
                .satisfies(u -> assertThat(u.user()).isNull())
                .satisfies(u -> assertThat(u.gid()).isEqualTo(-1))
                .satisfies(u -> assertThat(u.group().name()).isEqualTo("wheel"));
    }

    @Test
    void unixBindNamesAreKeptWithTheirLine() {
        var c = valid("global\n    unix-bind user nosuchuser\n    unix-bind group nosuchgroup gid 9\n" + Configs.DEFAULTS
                + "frontend fe\n    bind unix@fe.sock\n    bind unix@x.sock user root\n");
        UnixPerms global = c.global().process().unixBind();
        assertThat(global.user()).isEqualTo(new UnixPerms.Name("nosuchuser", new SourceRef(Configs.FILE, 2), null));
        assertThat(global.group()).isNull();
        assertThat(global.gid()).isEqualTo(9);
        List<Bind> binds = proxy(c, "fe").binds();
        assertThat(binds.get(0).socket().unix()).isEqualTo(global);
        assertThat(binds.get(1).socket().unix().user().name()).isEqualTo("root");
    }

    @Test
    void tcpOptionsAreAcceptedAndUnusedOnUnixSockets() {
        // HAProxy 2.6 takes them silently there
        Bind b = frontendOf("bind /run/a.sock tfo defer-accept backlog 10 accept-proxy").binds().getFirst();
        assertThat(b.socket().backlog()).isEqualTo(10);
        assertThat(b.acceptProxy()).isTrue();
    }

    @Test
    void unixBindGivesDefaultsAndAPrefix() {
        var c = valid("global\n    unix-bind prefix /run/hap/ mode 600 uid 7 gid 8\n" + Configs.DEFAULTS
                + "frontend fe\n    bind unix@fe.sock\n    bind unix@x.sock mode 660\n    bind abns@y\n    bind unix@/s.sock gid 9\n");
        List<Bind> binds = proxy(c, "fe").binds();
        assertThat(binds).extracting(Bind::address).containsExactly(new ListenAddress.Unix("/run/hap/fe.sock"),
                new ListenAddress.Unix("/run/hap/x.sock"), new ListenAddress.Abstract("y"), new ListenAddress.Unix("/run/hap//s.sock"));
        assertThat(binds).extracting(b -> b.socket().unix()).containsExactly(new UnixPerms(0600, 7, 8), new UnixPerms(0660, 7, 8),
                new UnixPerms(0600, 7, 8), new UnixPerms(0600, 7, 9));
    }

    @Test
    void prefixCountsInThePathLimit() {
        var r = parse("global\n    unix-bind prefix /run/haproxy/\n" + Configs.DEFAULTS + "frontend fe\n    bind unix@" + "a".repeat(90) + ".sock\n");
        assertThat(Configs.errors(r)).extracting(Diagnostic::message).contains("'bind' : socket path 'unix@" + "a".repeat(90) + ".sock' too long (max 84)");
    }

    @Test
    void abstractNamesMayHave107Bytes() {
        assertThat(frontendOf("bind abns@" + "a".repeat(107)).binds().getFirst().address())
                .isEqualTo(new ListenAddress.Abstract("a".repeat(107)));
        assertSingleError(parse(inFrontend("bind abns@" + "a".repeat(108))), FRONTEND_LINE, "' too long (max 107)");
    }

    @ParameterizedTest(name = "bind /run/a.sock {0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "mode 9 => 'mode' : missing or invalid mode '9' (octal integer expected)",
            "mode => 'mode' : missing or invalid mode '' (octal integer expected)",
            "uid => 'uid' : missing value",
            "gid => 'gid' : missing value",
            "user => 'user' : missing user name",
            "group => 'group' : missing group name",
    })
    void optionErrors(String options, String message) {
        Diagnostic d = assertSingleError(parse(inFrontend("bind /run/a.sock " + options)), FRONTEND_LINE, message);
        assertThat(d.message()).isEqualTo("'bind /run/a.sock' in section 'frontend' : " + message);
    }

    @ParameterizedTest(name = "unix-bind {0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "prefix => unix_bind 'prefix' expects a path as an argument.",
            "level admin => 'unix-bind' only supports the 'prefix', 'mode', 'uid', 'gid', 'user' and 'group' options.",
    })
    void unixBindErrors(String options, String message) {
        Diagnostic d = assertSingleError(parse("global\n    unix-bind " + options + "\n" + Configs.DEFAULTS), 2, message);
        assertThat(d.message()).isEqualTo(message);
    }

    @Test
    void aSecondPrefixIsAWarning() {
        var r = parse("global\n    unix-bind prefix /a/\n    unix-bind prefix /b/\n" + Configs.DEFAULTS + "frontend fe\n    bind unix@x.sock\n");
        assertThat(Configs.errors(r)).isEmpty();
        assertThat(Configs.warnings(r)).extracting(Diagnostic::message).containsExactly("unix-bind 'prefix' already specified. Continuing.");
        assertThat(proxy(r.config(), "fe").binds().getFirst().address()).isEqualTo(new ListenAddress.Unix("/a/x.sock"));
    }

    @Test
    void statsSocketsAndPeersStillRefuseAbstractNames() {
        assertThat(Configs.errors(parse("global\n    stats socket abns@x\n" + Configs.DEFAULTS))).isNotEmpty();
    }
}

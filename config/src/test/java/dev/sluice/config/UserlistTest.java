package dev.sluice.config;

import static dev.sluice.config.Configs.FRONTEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.inFrontend;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.proxy;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Userlist;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code userlist} sections, {@code http-request auth}, {@code wait-for-body}, {@code monitor-uri} and {@code monitor fail}. */
class UserlistTest {

    static final String SHA512 = "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1";
    static final String SHA256 = "$5$saltsalt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA";
    static final String MD5 = "$1$saltsalt$9xy1btjgzLYfb7hivXtC//";

    /** Lines 1-7: a userlist; the frontend's custom lines start at line 7 + {@link Configs#FRONTEND_LINE}. */
    static final String USERLIST = """
            userlist ul
                group admins users alice
                group ops
                user alice password %s
                user bob insecure-password pw groups ops,admins
                user carol password %s
                user dave password %s
            """.formatted(SHA512, SHA256, MD5);

    static final int FE = 7 + FRONTEND_LINE;

    @Test
    void usersGroupsAndRules() {
        Config c = valid(USERLIST + inFrontend("""
                monitor-uri /health
                acl down nbsrv_dummy -m found
                http-request auth realm "Admin area" if { path_beg /admin } !{ http_auth_group(ul) admins }
                http-request auth unless { http_auth(ul) }
                http-request wait-for-body time 2s at-least 1k
                default_backend be
                """.replace("acl down nbsrv_dummy -m found\n", "")));
        Userlist ul = c.userlist("ul").orElseThrow();
        assertThat(ul.groups()).extracting(Userlist.Group::name, Userlist.Group::users)
                .containsExactly(tuple("admins", List.of("alice")), tuple("ops", List.of()));
        assertThat(ul.users()).extracting(Userlist.User::name, Userlist.User::password, Userlist.User::insecure, Userlist.User::groups)
                .containsExactly(tuple("alice", SHA512, false, List.of()), tuple("bob", "pw", true, List.of("ops", "admins")),
                        tuple("carol", SHA256, false, List.of()), tuple("dave", MD5, false, List.of()));
        assertThat(ul.users().get(1).where()).isEqualTo(Configs.at(5));
        Proxy fe = proxy(c, "fe");
        // '!{' is '!' then '{', as in HAProxy
        assertThat(fe.httpRequestRules().get(0).condition().alternatives().get(0).get(1).negated()).isTrue();
        assertThat(fe.monitor().uri()).isEqualTo("/health");
        assertThat(fe.httpRequestRules()).extracting(r -> ((HttpRule.Action) r).name(), r -> ((HttpRule.Action) r).args())
                .containsExactly(tuple("auth", List.of("realm", "Admin area")), tuple("auth", List.of()),
                        tuple("wait-for-body", List.of("time", "2s", "at-least", "1k")));
    }

    @Test
    void monitorFailAndInheritedMonitorUri() {
        Config c = valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    monitor-uri /alive\n") + """
                frontend fe
                    bind :8080
                    acl maint hdr(x-maint) -m found
                    monitor fail if maint
                    monitor fail unless { src 127.0.0.0/8 }
                    default_backend be
                backend be
                    server s1 127.0.0.1:8081
                """);
        Proxy fe = proxy(c, "fe");
        assertThat(fe.monitor().uri()).isEqualTo("/alive");
        assertThat(fe.monitor().fail()).hasSize(2);
        assertThat(fe.monitor().fail().get(1).unless()).isTrue();
        assertThat(proxy(c, "be").monitor().uri()).isNull();
    }

    @Test
    void useProxyHeaderOption() {
        assertThat(Configs.frontendOf("option http-use-proxy-header\ndefault_backend be").http().useProxyHeader()).isTrue();
        assertThat(Configs.frontendOf("default_backend be").http().useProxyHeader()).isFalse();
        Config c = valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    option http-use-proxy-header\n") + """
                frontend fe
                    bind :8080
                    no option http-use-proxy-header
                    default_backend be
                frontend fe2
                    bind :8081
                    default_backend be
                backend be
                    server s1 127.0.0.1:8081
                """);
        assertThat(proxy(c, "fe").http().useProxyHeader()).isFalse();
        assertThat(proxy(c, "fe2").http().useProxyHeader()).isTrue();
    }

    @Test
    void userAndGroupOfGlobalAreTheProcessIdentityNotAUserlist() {
        var r = parse("global\n    user haproxy\n    group haproxy\nuserlist u\n    user haproxy insecure-password x\n    group haproxy\n");
        assertThat(r.ok()).isTrue();
        assertThat(r.config().global().process().user()).isEqualTo("haproxy");
        assertThat(r.config().global().process().group()).isEqualTo("haproxy");
        assertThat(r.config().userlists()).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "user => 'user' : missing user name",
            "user x foo bar => 'user' : 'user' only supports 'password', 'insecure-password' and 'groups' options (got 'foo').",
            "user x password => 'user' : 'password' expects a value.",
            "user x password $1$saltsalt$9xy1btjgzLYfb7hivXtC// insecure-password y => 'user' : user 'x' has two passwords.",
            "user dan password $2y$10$abcdefghijklmnopqrstuu5Jp7m/dpOSmR4xJgNd4QUovX2I.OZd6 => 'user' : password of user 'dan' is a bcrypt hash ('$2y$'), which Sluice cannot verify; use a SHA-512 crypt hash ('$6$', made by 'openssl passwd -6' or 'mkpasswd -m sha-512'), SHA-256 ('$5$', 'openssl passwd -5') or MD5 ('$1$', 'openssl passwd -1'), or 'insecure-password'.",
            "user eve password abJnggxhB/yWI => 'user' : password of user 'eve' is a traditional DES crypt hash, which Sluice cannot verify",
            "user y password $y$j9T$abc$defdefdefdefdefdefdefdefdefdefdefdefdefdef => 'user' : password of user 'y' is a yescrypt hash ('$y$')",
            "user m password $6$salt$tooshort => 'user' : password of user 'm' is a malformed SHA-512 crypt hash (expected '$6$<salt>$<86 characters>').",
            "user r password $5$rounds=x$salt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA => 'user' : password of user 'r' is a malformed SHA-256 crypt hash (bad 'rounds=').",
            "group => 'group' : missing group name",
            "group g members a => 'group' : 'group' only supports the 'users' option (got 'members').",
            "bogus 1 => unknown keyword 'bogus' in 'userlist' section",
    })
    void userlistErrors(String line, String message) {
        assertSingleError(parse("userlist ul\n    " + line + "\n" + inFrontend("default_backend be")), 2, message);
    }

    @Test
    void aPasswordNoCryptMethodReadsIsAWarningAndTheUserNeverAuthenticates() {
        var r = parse("userlist ul\n    user z password plain\n" + inFrontend("default_backend be"));
        assertThat(Configs.errors(r)).isEmpty();
        assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message).contains(tuple(2,
                "'user' : password of user 'z' is not a crypt(3) hash: this user can never be authenticated (use a hash made by"
                        + " 'openssl passwd -6', or 'insecure-password')."));
        assertThat(r.config().userlists().get(0).users().get(0).password()).isEqualTo("plain");
    }

    @Test
    void unknownGroupsAndUsersAreReportedAtTheirLine() {
        var r = parse("userlist ul\n    group admins users alice,zed\n    user alice insecure-password x groups adminz\n"
                + inFrontend("default_backend be"));
        assertThat(Configs.errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(3, "userlist 'ul': no such group 'adminz' specified in user 'alice'; did you mean 'admins' maybe ?."),
                tuple(2, "userlist 'ul': no such user 'zed' specified in group 'admins'."));
    }

    @Test
    void duplicatesAreWarnedAndIgnored() {
        var r = parse("userlist ul\n    user a insecure-password x\n    user a insecure-password y\n    group g\n    group g\nuserlist ul\n"
                + "    user b insecure-password z\n" + inFrontend("default_backend be"));
        assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(3, "'user' : ignoring duplicated user 'a' in userlist 'ul'."),
                tuple(5, "'group' : ignoring duplicated group 'g' in userlist 'ul'."),
                tuple(6, "ignoring duplicated userlist 'ul'."));
        Userlist ul = r.config().userlist("ul").orElseThrow();
        assertThat(ul.users()).extracting(Userlist.User::name, Userlist.User::password).containsExactly(tuple("a", "x"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "http-request auth foo => 'http-request auth' : expects either 'if' or 'unless' followed by a condition but found 'foo'.",
            "http-request auth realm => 'http-request auth' : missing realm value.",
            "http-response auth => unknown http-response action 'auth'",
            "http-request deny if { http_auth(nope) } => unable to find userlist 'nope' referenced in arg 1 of ACL keyword 'http_auth' in proxy 'fe'.",
            "http-request deny if { http_auth } => missing userlist name in arg 1 of ACL keyword 'http_auth' in proxy 'fe'.",
            "http-request deny if { http_auth_group(ul) } => proxy fe: acl http_auth_group(): no groups specified.",
            "http-request deny if { http_auth_group(ul) admins opz } => proxy fe: acl http_auth_group(): invalid group 'opz'; did you mean 'ops' maybe ?.",
            "acl ok http_auth(uk) => unable to find userlist 'uk' referenced in arg 1 of ACL keyword 'http_auth' in proxy 'fe'",
            "http-request wait-for-body => 'http-request wait-for-body' : expects 2 to 4 argument(s)",
            "http-request wait-for-body at-least 10 => 'http-request wait-for-body' : expects time <time> [ at-least <bytes> ].",
            "http-request wait-for-body time xx => 'http-request wait-for-body' : invalid time 'xx'",
            "http-request wait-for-body time 1s at-least => 'http-request wait-for-body' : missing argument for 'at-least'.",
            "http-request wait-for-body time 1s at-least 1q => 'http-request wait-for-body' : invalid size '1q'",
            "http-request wait-for-body time 1s foo 1 => 'http-request wait-for-body' : expects either 'if' or 'unless' followed by a condition but found 'foo'.",
            "monitor-uri => 'monitor-uri' : expects an URI.",
            "monitor-uri /a /b => 'monitor-uri' : cannot handle unexpected argument '/b'.",
            "monitor fail => 'monitor fail' : requires either 'if' or 'unless' followed by a condition.",
            "monitor fail foo => 'monitor fail' : requires either 'if' or 'unless' followed by a condition.",
            "monitor fail if nope => error detected while parsing 'monitor fail' condition : no such ACL : 'nope'.",
            "monitor check => unknown monitor 'check' in 'frontend' section",
    })
    void frontendErrors(String line, String message) {
        var r = parse(USERLIST + inFrontend(line + "\ndefault_backend be"));
        int at = message.contains("monitor fail' condition") ? FE - 1 : FE;
        assertSingleError(r, at, message);
    }

    @Test
    void monitorUriInABackendIsIgnoredWithAWarning() {
        var r = parse(Configs.inBackend("monitor-uri /x\nserver s1 127.0.0.1:80"));
        assertThat(r.ok()).isTrue();
        assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message)
                .containsExactly(tuple(Configs.BACKEND_LINE, "'monitor-uri' : ignored because backend 'be' has no frontend capability."));
    }
}

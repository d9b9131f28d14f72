package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Userlist;
import dev.sluice.proxy.auth.Userlists;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code http_auth}, {@code http_auth_group} and the {@code req.body} fetches on a fake transaction. */
class AuthAndBodyFetchesTest {

    static final String SHA512 = "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1";
    static final SourceRef AT = new SourceRef("t.cfg", 1);

    static final Userlists LISTS = Userlists.compile(List.of(new Userlist(AT, "ul",
            List.of(new Userlist.User(AT, "alice", SHA512, false, List.of()),
                    new Userlist.User(AT, "bob", "pw", true, List.of("ops")),
                    new Userlist.User(AT, "nopass", null, false, List.of())),
            List.of(new Userlist.Group(AT, "admins", List.of("alice", "bob")), new Userlist.Group(AT, "ops", List.of())))));

    static FakeTxn withAuth(String value) {
        FakeTxn t = value == null ? new FakeTxn("GET", "/") : new FakeTxn("GET", "/", "authorization", value);
        t.userlists = LISTS;
        return t;
    }

    static String basic(String userPass) {
        return "Basic " + Base64.getEncoder().encodeToString(userPass.getBytes(StandardCharsets.UTF_8));
    }

    static boolean acl(Txn t, String sample, String... values) {
        return RuleCompiler.acl(new AclExpr(sample, List.of(), List.of(values))).test(t);
    }

    @Test
    void httpAuth() {
        assertThat(acl(withAuth(basic("alice:secret")), "http_auth(ul)")).isTrue();
        assertThat(acl(withAuth(basic("alice:secret")), "http_auth(other)")).isFalse();
        assertThat(acl(withAuth("basic " + basic("alice:secret").substring(6)), "http_auth(ul)")).isTrue();
        assertThat(acl(withAuth(basic("alice:Secret")), "http_auth(ul)")).isFalse();
        assertThat(acl(withAuth(basic("bob:pw")), "http_auth(ul)")).isTrue();
        assertThat(acl(withAuth(basic("bob:pw2")), "http_auth(ul)")).isFalse();
        assertThat(acl(withAuth(basic("nopass:")), "http_auth(ul)")).isFalse();
        assertThat(acl(withAuth(basic("zed:pw")), "http_auth(ul)")).isFalse();
        assertThat(acl(withAuth(basic("bobpw")), "http_auth(ul)")).isFalse();
        assertThat(acl(withAuth("Bearer abc"), "http_auth(ul)")).isFalse();
        assertThat(acl(withAuth("Basic !!!"), "http_auth(ul)")).isFalse();
        assertThat(acl(withAuth(null), "http_auth(ul)")).isFalse();
    }

    /** The field read as http_auth_user and http_auth_pass read it (HAProxy's get_http_auth), not a parser of its own. */
    @Test
    void httpAuthReadsTheFieldAsHaproxy() {
        String b64 = basic("bob:pw").substring(6);
        // a scheme that is the start of "Basic", several spaces, only the first comma-separated value
        assertThat(acl(withAuth("B " + b64), "http_auth(ul)")).isTrue();
        assertThat(acl(withAuth("bas    " + b64), "http_auth(ul)")).isTrue();
        assertThat(acl(withAuth("Basic " + b64 + ", Basic " + basic("bob:x").substring(6)), "http_auth(ul)")).isTrue();
        assertThat(acl(withAuth("Basic " + basic("bob:x").substring(6) + ", Basic " + b64), "http_auth(ul)")).isFalse();
        // the password is a C string (cut at a NUL); base64 not a multiple of four is refused
        assertThat(acl(withAuth("Basic " + java.util.Base64.getEncoder().encodeToString("bob:pw\0tail".getBytes(StandardCharsets.ISO_8859_1))),
                "http_auth(ul)")).isTrue();
        assertThat(acl(withAuth("Basic " + java.util.Base64.getEncoder().withoutPadding().encodeToString("bob:pw\0".getBytes(StandardCharsets.ISO_8859_1))),
                "http_auth(ul)")).isFalse();
        assertThat(RuleCompiler.sample("http_auth_group(ul)").get(withAuth("b " + b64))).isEqualTo("bob");
    }

    @Test
    void httpAuthGroupMatchesAnyGroupOfTheUser() {
        assertThat(acl(withAuth(basic("alice:secret")), "http_auth_group(ul)", "admins")).isTrue();
        assertThat(acl(withAuth(basic("alice:secret")), "http_auth_group(ul)", "ops")).isFalse();
        assertThat(acl(withAuth(basic("bob:pw")), "http_auth_group(ul)", "ops")).isTrue();
        assertThat(acl(withAuth(basic("bob:pw")), "http_auth_group(ul)", "x", "admins")).isTrue();
        assertThat(acl(withAuth(basic("bob:bad")), "http_auth_group(ul)", "admins")).isFalse();
        assertThat(RuleCompiler.sample("http_auth_group(ul)").get(withAuth(basic("bob:pw")))).isEqualTo("bob");
    }

    @Test
    void bodyFetches() {
        FakeTxn t = new FakeTxn("POST", "/");
        assertThat(RuleCompiler.sample("req.body_len").get(t)).isNull();
        t.body = "k=v1&j=2&K=v3&flag&k=v4".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(Samples.str(RuleCompiler.sample("req.body").get(t)).toString()).isEqualTo("k=v1&j=2&K=v3&flag&k=v4");
        assertThat(RuleCompiler.sample("req.body_len").get(t)).isEqualTo(23L);
        assertThat(RuleCompiler.sample("req.body_size").get(t)).isEqualTo(23L);
        t.request.bodyLength(100);
        assertThat(RuleCompiler.sample("req.body_size").get(t)).isEqualTo(100L);
        assertThat(RuleCompiler.sample("req.body_param(k)").get(t)).isEqualTo("v1");
        assertThat(RuleCompiler.sample("req.body_param(K)").get(t)).isEqualTo("v3");
        assertThat(RuleCompiler.sample("req.body_param(flag)").get(t)).isEqualTo("");
        assertThat(RuleCompiler.sample("req.body_param").get(t)).isEqualTo("v1");
        assertThat(RuleCompiler.sample("req.body_param(nope)").get(t)).isNull();
        assertThat(RuleCompiler.acl(new AclExpr("req.body_param(k)", List.of("-m", "str"), List.of("v4"))).test(t)).isTrue();
        assertThat(RuleCompiler.acl(new AclExpr("req.body_param(k)", List.of("-m", "str"), List.of("v3"))).test(t)).isFalse();
        assertThat(RuleCompiler.acl(new AclExpr("req.body_param(k,i)", List.of("-m", "str"), List.of("v3"))).test(t)).isTrue();
        // binary samples, as in HAProxy: an ACL must name its match method
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RuleCompiler.acl(new AclExpr("req.body_param(k)", List.of(), List.of("v4"))))
                .hasMessageContaining("matching method must be specified first (using '-m')");
        assertThat(RuleCompiler.acl(new AclExpr("req.body", List.of("-m", "sub"), List.of("j=2"))).test(t)).isTrue();
        assertThat(acl(t, "req.body_len", "gt", "20")).isTrue();
    }
}

package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.model.TcpCheck;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Backends;
import dev.sluice.proxy.check.ProtocolExpects.Verdict;
import dev.sluice.proxy.check.TcpCheckPlan.Connect;
import dev.sluice.proxy.check.TcpCheckPlan.Expect;
import dev.sluice.proxy.check.TcpCheckPlan.Send;
import dev.sluice.proxy.check.TcpCheckPlan.SetVar;
import dev.sluice.proxy.check.TcpCheckPlan.Step;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * From the configuration to the compiled rule set: the implicit connect, comments, expect chain heads, HAProxy's step
 * numbers, the bytes the protocol options send (compared with what HAProxy 2.6.12 sent, captured by a recording
 * server), their parsers, and the errors {@code -c} reports for expressions.
 */
class TcpCheckPlanTest {

    private static TcpCheckPlan plan(String lines) {
        Backend be = Backends.of(lines + "\nserver s1 check");
        return new CheckPlan(be, "vm", 16384).tcp();
    }

    private static CheckSession session(TcpCheckPlan p) {
        CheckSession s = new CheckSession("be", 16384);
        for (TcpCheck.Var v : p.vars()) {
            s.vars().put(v.name(), v.integer() ? (Object) Long.parseLong(v.value()) : v.value());
        }
        return s;
    }

    /** The bytes of every send step, rendered as the run renders them, in hex. */
    private static List<String> sent(TcpCheckPlan p) {
        CheckSession s = session(p);
        return Arrays.stream(p.steps()).filter(x -> x instanceof Send).map(x -> {
            Send snd = (Send) x;
            if (snd.format() == null) {
                return HexFormat.of().formatHex(snd.data());
            }
            String text = snd.format().render(s);
            return snd.hex() ? text.toLowerCase() : HexFormat.of().formatHex(text.getBytes(StandardCharsets.ISO_8859_1));
        }).toList();
    }

    @Test
    void rulesNotStartingWithAConnectGetTheImplicitOne() {
        TcpCheckPlan p = plan("option tcp-check\ntcp-check send x\ntcp-check expect string y");
        assertThat(p.generic()).isTrue();
        assertThat(p.steps()).hasSize(3);
        Connect c = (Connect) p.step(0);
        assertThat(c.implicit()).isTrue();
        assertThat(c.useDefault()).isTrue();
        assertThat(TcpCheckPlan.stepId(c)).isZero();
        assertThat(TcpCheckPlan.stepId(p.step(1))).isEqualTo(1);
        assertThat(TcpCheckPlan.stepId(p.step(2))).isEqualTo(2);
        // no rule at all: a connection, as the implicit connect is all there is
        assertThat(plan("option tcp-check").steps()).singleElement().isInstanceOf(Connect.class);
        // a set-var first still gets the connect before it
        TcpCheckPlan v = plan("option tcp-check\ntcp-check set-var(check.x) int(1)\ntcp-check send x");
        assertThat(v.step(0)).isInstanceOf(Connect.class);
        assertThat(v.step(1)).isInstanceOf(SetVar.class);
        TcpCheckPlan explicit = plan("option tcp-check\ntcp-check connect port 25\ntcp-check expect string 220");
        assertThat(explicit.steps()).hasSize(2);
        assertThat(((Connect) explicit.step(0)).implicit()).isFalse();
        assertThat(TcpCheckPlan.stepId(explicit.step(0))).isEqualTo(1);
    }

    @Test
    void commentsNameTheFollowingRulesOfOneKind() {
        TcpCheckPlan p = plan("""
                option tcp-check
                tcp-check comment greeting
                tcp-check expect string 220
                tcp-check expect string ready comment own
                tcp-check send HELO
                tcp-check comment second
                tcp-check send x
                tcp-check send y
                tcp-check connect port 26
                """.replace("tcp-check connect port 26", "tcp-check expect string z"));
        List<String> comments = Arrays.stream(p.steps()).map(Step::comment).toList();
        assertThat(comments).containsExactly(null, "greeting", "own", null, "second", "second", null);
        // comments count in the step numbers, as in HAProxy
        assertThat(TcpCheckPlan.stepId(p.step(1))).isEqualTo(2);
    }

    @Test
    void aWaitingExpectGoesBackToTheFirstInvertedOneOfItsChain() {
        TcpCheckPlan p = plan("""
                option tcp-check
                tcp-check send x
                tcp-check expect string a
                tcp-check expect ! string err
                tcp-check expect string b
                tcp-check send y
                tcp-check expect string c
                """);
        assertThat(Arrays.stream(p.steps()).filter(s -> s instanceof Expect).map(s -> ((Expect) s).head()).toList()).containsExactly(2, 3, 3, 6);
    }

    @Test
    void expectOptionsAreCompiled() {
        Expect e = (Expect) plan("option tcp-check\ntcp-check expect min-recv 3 ! rbinary ^4142 ok-status L6OK error-status L7STS tout-status L4TOUT"
                + " comment c on-error \"bad %[res.payload(0,2)]\" status-code res.len").step(1);
        assertThat(e.inverse()).isTrue();
        assertThat(e.minRecv()).isEqualTo(3);
        assertThat(e.regex().pattern()).isEqualTo("^4142");
        assertThat(List.of(e.ok(), e.error(), e.timeout())).containsExactly(CheckStatus.L6OK, CheckStatus.L7STS, CheckStatus.L4TOUT);
        CheckSession s = new CheckSession("be", 100);
        s.append(Unpooled.wrappedBuffer("ABC".getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(e.onError().render(s)).isEqualTo("bad AB");
        assertThat(e.statusCode().get(s)).isEqualTo(3L);
        Expect bin = (Expect) plan("option tcp-check\ntcp-check expect binary 0d0A").step(1);
        assertThat(bin.bytes()).containsExactly(13, 10);
    }

    @Test
    void protocolOptionsSendHaproxysBytes() {
        // what HAProxy 2.6.12 sent to a recording server for each option
        assertThat(sent(plan("option redis-check"))).containsExactly("2a310d0a24340d0a50494e470d0a");
        assertThat(sent(plan("option smtpchk"))).containsExactly("48454c4f206c6f63616c686f73740d0a", "515549540d0a");
        assertThat(sent(plan("option smtpchk EHLO me.test"))).containsExactly("45484c4f206d652e746573740d0a", "515549540d0a");
        assertThat(sent(plan("option pgsql-check user bob"))).containsExactly("00000012000300007573657200626f620000");
        assertThat(sent(plan("option mysql-check user bob"))).containsExactly(
                "250000010082000000800001210000000000000000000000000000000000000000000000626f6200000100000001");
        assertThat(sent(plan("option mysql-check user bob pre-41"))).containsExactly("0a0000010080000001626f6200000100000001");
        assertThat(sent(plan("option mysql-check"))).isEmpty();
        assertThat(sent(plan("option ldap-check"))).containsExactly("300c020101600702010304008000");
        String hello = sent(plan("option ssl-hello-chk")).getFirst();
        String haproxy = "16030000790100007503006b14b9fc484150524f585953534c43484b0a484150524f585953534c43484b0a00004e000100020003000400050006000700080009"
                + "000a000b000c000d000e000f0010001100120013001400150016001700180019001a001b002f0030003100320033003400350036003700380039003a0100";
        // bytes 11-14 are the time
        assertThat(hello.substring(0, 22) + hello.substring(30)).isEqualTo(haproxy.substring(0, 22) + haproxy.substring(30));
        long t = Long.parseLong(hello.substring(22, 30), 16);
        assertThat(Math.abs(t - System.currentTimeMillis() / 1000)).isLessThan(5);
    }

    @Test
    void protocolRuleSetsAreNotGeneric() {
        TcpCheckPlan smtp = plan("option smtpchk");
        assertThat(smtp.generic()).isFalse();
        assertThat(smtp.kind()).isEqualTo(TcpCheck.Kind.SMTP);
        assertThat(((Connect) smtp.step(0)).linger()).isTrue();
        assertThat(((Connect) smtp.step(0)).implicit()).isFalse();
        // redis has no connect rule: the implicit one comes first
        assertThat(((Connect) plan("option redis-check").step(0)).implicit()).isTrue();
        Expect greeting = (Expect) smtp.step(2);
        CheckSession s = new CheckSession("be", 100);
        s.append(Unpooled.wrappedBuffer("554 go away\r\n".getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(greeting.onError().render(s)).isEqualTo("go away");
        assertThat(greeting.statusCode().get(s)).isEqualTo("554".getBytes(StandardCharsets.ISO_8859_1));
    }

    private static CheckSession answer(String hex) {
        CheckSession s = new CheckSession("be", 16384);
        s.append(Unpooled.wrappedBuffer(HexFormat.of().parseHex(hex)));
        return s;
    }

    @Test
    void theMysqlAndLdapParsersReadHaproxysFields() {
        String greeting = "0a352e372e302d7465737400";
        String packet = "%06x".formatted(greeting.length() / 2);
        String le = packet.substring(4, 6) + packet.substring(2, 4) + packet.substring(0, 2);
        Verdict ok = ProtocolExpects.mysql(answer(le + "00" + greeting), true, false, true, null);
        assertThat(ok).isEqualTo(new Verdict(Verdict.Kind.PASSED, CheckStatus.L7OK, 0, "5.7.0-test"));
        assertThat(ProtocolExpects.mysql(answer(le + "00" + greeting), true, false, false, null)).isEqualTo(Verdict.CONTINUE);
        assertThat(ProtocolExpects.mysql(answer(le + "00" + "0a35"), true, false, true, null)).isEqualTo(Verdict.WAIT);
        assertThat(ProtocolExpects.mysql(answer(le + "00" + "0a35"), true, true, true, null).status()).isEqualTo(CheckStatus.L7RSP);
        String err = "ff1504" + HexFormat.of().formatHex("#28000Access denied".getBytes(StandardCharsets.ISO_8859_1));
        String errLen = "%02x0000".formatted(err.length() / 2);
        assertThat(ProtocolExpects.mysql(answer(errLen + "00" + err), true, false, true, null))
                .isEqualTo(new Verdict(Verdict.Kind.FAILED, CheckStatus.L7STS, 1045, "#28000Access denied"));
        assertThat(ProtocolExpects.ldap(answer("300c02010161070a010004000400"), false, null))
                .isEqualTo(new Verdict(Verdict.Kind.PASSED, CheckStatus.L7OK, 0, "Success"));
        assertThat(ProtocolExpects.ldap(answer("300c02010161070a013104000400"), false, null))
                .isEqualTo(new Verdict(Verdict.Kind.FAILED, CheckStatus.L7STS, 49, "See RFC: http://tools.ietf.org/html/rfc4511#section-4.1.9"));
        assertThat(ProtocolExpects.ldap(answer("300c020102"), false, null)).isEqualTo(Verdict.WAIT);
        assertThat(ProtocolExpects.ldap(answer("300c02010261070a010004000400"), false, null).desc()).isEqualTo("Not LDAPv3 protocol");
    }

    @Test
    void expressionsThatDoNotCompileAreReportedWithTheirLine() {
        Backend be = Backends.of("option tcp-check\ntcp-check expect string x status-code path\nserver s1");
        assertThat(TcpCheckPlan.problems(be.config())).singleElement().asString().isEqualTo("t.cfg:11: error: 'tcp-check expect' : error detected"
                + " while parsing status-code expression :  fetch method 'path' extracts information from 'HTTP request headers', none of which is"
                + " available here.");
        be = Backends.of("option tcp-check\ntcp-check send-lf \"%[foo]\"\nserver s1");
        assertThat(TcpCheckPlan.problems(be.config())).singleElement().asString()
                .startsWith("t.cfg:11: error: 'tcp-check send-lf' : '%[foo]' invalid log-format string (failed to parse sample expression <foo]> :"
                        + " unknown fetch method 'foo'");
        be = Backends.of("option tcp-check\ntcp-check set-var(check.x) nope(1)\nserver s1");
        assertThat(TcpCheckPlan.problems(be.config())).singleElement().asString().contains("'tcp-check set-var(check.x)' : 'set-var' : unknown fetch"
                + " method 'nope'");
        assertThatThrownBy(() -> plan("option tcp-check\ntcp-check connect port var(check.p),nope")).isInstanceOf(TcpCheckPlan.Problem.class)
                .hasMessageContaining("unknown converter 'nope'");
    }
}

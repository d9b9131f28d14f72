package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.HttpRule;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Actions on a request outside a stream: what each asks of its target. The parity regtest (HaproxyParityTest)
 * checks them end to end against HAProxy 2.6; this covers what 2.6 cannot show: {@code set-retries} (2.7 and
 * later), {@code set-timeout tunnel} (needs a tunnel) and the details of the rewrites.
 */
class ActionsTest {

    /** A request target that records the timeouts and retries rules set. */
    static final class Recording extends RequestTxn {
        final List<String> calls = new ArrayList<>();

        Recording(String target, String... fields) {
            super(request(target, fields), new InetSocketAddress("10.0.0.1", 40000), new InetSocketAddress("127.0.0.1", 80), "fe", "be");
        }

        private static RequestHead request(String target, String... fields) {
            HttpFields f = new HttpFields();
            for (int i = 0; i < fields.length; i += 2) {
                f.add(fields[i], fields[i + 1]);
            }
            return new RequestHead(AsciiString.of("GET"), new AsciiString(target), HttpVersion.HTTP_1_1, f);
        }

        @Override
        public void setTimeout(String which, long millis) {
            calls.add("timeout " + which + " " + millis);
        }

        @Override
        public void setRetries(int retries) {
            calls.add("retries " + retries);
        }

        String names() {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < request().fields().size(); i++) {
                out.add(request().fields().name(i).toString());
            }
            return String.join(" ", out);
        }
    }

    static Action.Verdict run(Recording t, String action, String... args) {
        return Actions.compile(new HttpRule.Action(new SourceRef("t.cfg", 1), null, action, Arrays.asList(args)), false).apply(t);
    }

    @Test
    void setRetriesAndSetTimeoutReachTheStream() {
        Recording t = new Recording("/");
        assertThat(run(t, "set-retries", "0")).isEqualTo(Action.Verdict.CONTINUE);
        assertThat(run(t, "set-retries", "7")).isEqualTo(Action.Verdict.CONTINUE);
        assertThat(run(t, "set-timeout", "server", "1500ms")).isEqualTo(Action.Verdict.CONTINUE);
        assertThat(run(t, "set-timeout", "tunnel", "2m")).isEqualTo(Action.Verdict.CONTINUE);
        assertThat(t.calls).containsExactly("retries 0", "retries 7", "timeout server 1500", "timeout tunnel 120000");
    }

    @Test
    void anEmptySampleStillCountsAsAWordBetweenSpaces() {
        // as HAProxy 2.6 renders them (lf-string bodies of http-request return)
        Recording t = new Recording("/p");
        assertThat(Template.compile("ret %[var(txn.none)] %[res.hdr(x)] %[path]").render(t)).isEqualTo("ret   /p");
        assertThat(Template.compile(" lead %[path]").render(t)).isEqualTo(" lead /p");
        assertThat(Template.compile("t %[path] |").render(t)).isEqualTo("t /p |");
        assertThat(Template.compile("%[var(txn.none)] x").render(t)).isEqualTo(" x");
        // unique-id-format " uid %[path]" and "%{+X}o %[path]" give "uid /p" and "/p" in HAProxy 2.6
        assertThat(Template.uniqueId(" uid %[path]").render(t)).isEqualTo("uid /p");
        assertThat(Template.uniqueId("a %[var(txn.none)] %[var(txn.none)] b").render(t)).isEqualTo("a   b");
    }

    @Test
    void allowStopsTheRuleSet() {
        assertThat(run(new Recording("/"), "allow")).isEqualTo(Action.Verdict.STOP);
    }

    @Test
    void unsetVarRemovesTheVariable() {
        Recording t = new Recording("/");
        run(t, "set-var(txn.a)", "str(x)");
        run(t, "set-var(req.b)", "str(y)");
        assertThat(t.vars()).containsKeys("txn.a", "req.b");
        run(t, "unset-var(txn.a)");
        assertThat(t.vars()).containsOnlyKeys("req.b");
        // unsetting what is not set is no error
        run(t, "unset-var(txn.a)");
        assertThat(t.vars()).containsOnlyKeys("req.b");
    }

    @Test
    void pathAndUriRewritesKeepAnAbsoluteTargetsAuthority() {
        Recording t = new Recording("http://h.example:8080/a/b?x=1");
        run(t, "set-pathq", "/n?y=2");
        assertThat(t.request().target().toString()).isEqualTo("http://h.example:8080/n?y=2");
        run(t, "replace-pathq", "^/n\\?(.*)", "/m/\\1");
        assertThat(t.request().target().toString()).isEqualTo("http://h.example:8080/m/y=2");
        // replace-uri sees the whole target, scheme and authority included
        run(t, "replace-uri", "^http://([^/]*)/m/(.*)", "/host/\\1/\\2");
        assertThat(t.request().target().toString()).isEqualTo("/host/h.example:8080/y=2");
        Recording o = new Recording("/p?q");
        run(o, "replace-uri", "nomatch", "/x");
        assertThat(o.request().target().toString()).isEqualTo("/p?q");
        run(o, "set-pathq", "/only");
        assertThat(o.request().target().toString()).isEqualTo("/only");
    }

    @Test
    void delHeaderMatchingMethods() {
        String[] fields = {"x-pre-a", "1", "x-pre-b", "2", "x-r1", "3", "x-r2", "4", "x-a-suf", "5", "x-amidb", "6", "keep", "7"};
        Recording t = new Recording("/", fields);
        run(t, "del-header", "X-PRE", "-m", "beg");
        assertThat(t.names()).isEqualTo("x-r1 x-r2 x-a-suf x-amidb keep");
        run(t, "del-header", "SUF", "-m", "end");
        run(t, "del-header", "mid", "-m", "sub");
        assertThat(t.names()).isEqualTo("x-r1 x-r2 keep");
        // a regex runs as written on the lower-case names, as in HAProxy: upper case matches nothing
        run(t, "del-header", "X-R[0-9]", "-m", "reg");
        assertThat(t.names()).isEqualTo("x-r1 x-r2 keep");
        run(t, "del-header", "^x-r\\d$", "-m", "reg");
        assertThat(t.names()).isEqualTo("keep");
        run(t, "del-header", "KEE", "-m", "str");
        assertThat(t.names()).isEqualTo("keep");
        run(t, "del-header", "KEEP", "-m", "str");
        assertThat(t.names()).isEmpty();
    }
}

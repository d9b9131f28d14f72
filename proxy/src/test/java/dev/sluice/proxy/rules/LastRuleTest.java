package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code last_rule_file} and {@code last_rule_line}: the rule whose final verdict ended a rule set (a deny, a return,
 * allow), recorded before its action runs (an answer logs the exchange at once), not a rule that let the others go on;
 * the log-line side is compared with HAProxy 2.6 in the regtests' HttpLogParityTest.
 */
class LastRuleTest {

    /** A target that keeps what the rules record, as a stream does. */
    private static final class Target extends RequestTxn {
        SourceRef last;
        SourceRef seenByAnswer;

        Target(RequestHead request) {
            super(request, null, null, "fe", null);
        }

        @Override
        public void lastRule(SourceRef where) {
            last = where;
        }

        @Override
        public SourceRef lastRule() {
            return last;
        }

        @Override
        public void answerStatus(int status, char cause) {
            // an answer logs the exchange: the rule must be known by then
            seenByAnswer = last;
        }
    }

    private static RequestHead get(String target) {
        return new RequestHead(AsciiString.of("GET"), new AsciiString(target), HttpVersion.HTTP_1_1, new HttpFields());
    }

    private static ProxyRules rules(String text) {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(n -> null, Set.of(), "2.6"))
                .parse(List.of(new ConfigParser.Source("rules.cfg", text)));
        Config c = r.config();
        Proxy fe = c.proxy("fe").orElseThrow();
        List<String> problems = new ArrayList<>();
        ProxyRules rules = ProxyRules.compile(fe, problems);
        assertThat(problems).isEmpty();
        return rules;
    }

    private static Object fetch(String name, Txn t) {
        return RuleCompiler.sample(name).get(t);
    }

    @Test
    void theRuleThatEndedTheRulesIsTheLastOne() {
        ProxyRules rules = rules("""
                defaults
                    mode http
                frontend fe
                    bind :8080
                    http-request set-var(txn.a) str(x)
                    http-request deny if { path /deny }
                    http-request allow if { path /allow }
                    http-request set-var(txn.b) str(y)
                """);
        Target deny = new Target(get("/deny"));
        assertThat(Rule.run(rules.request(), deny)).isEqualTo(Action.Verdict.DONE);
        assertThat(deny.seenByAnswer).isEqualTo(new SourceRef("rules.cfg", 6));
        assertThat(fetch("last_rule_file", deny)).isEqualTo("rules.cfg");
        assertThat(fetch("last_rule_line", deny)).isEqualTo(6L);

        Target allow = new Target(get("/allow"));
        Rule.run(rules.request(), allow);
        assertThat(fetch("last_rule_line", allow)).isEqualTo(7L);

        // rules that let the others go on are no one's last rule
        Target none = new Target(get("/other"));
        Rule.run(rules.request(), none);
        assertThat(none.vars()).containsKey("txn.b");
        assertThat(fetch("last_rule_file", none)).isNull();
        assertThat(fetch("last_rule_line", none)).isNull();
    }
}

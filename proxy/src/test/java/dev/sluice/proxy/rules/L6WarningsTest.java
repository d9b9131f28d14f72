package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What compiling an HTTP proxy's rules says about layer-6 fetches, as {@code haproxy -c} 2.6.12 says it for the same
 * configuration: the "will never match in 'tcp-request ...'" warnings of tcp_rules.c on the rule's line, then one "L6
 * sample fetches ignored on HTTP proxies" per rule, switching rules first.
 */
class L6WarningsTest {
    static final String CFG = """
            defaults
                mode http
                timeout client 5s
                timeout server 5s
                timeout connect 5s

            frontend fh
                bind 127.0.0.1:18080
                acl tl req.len gt 0
                tcp-request content accept if { req.ssl_hello_type 1 }
                http-request deny if tl
                tcp-request connection reject if { req.len gt 0 }
                tcp-request connection reject if tl
                use_backend b if { req.payload(0,3) -m bin 474554 }
                http-request deny if { path /x } WAIT_END
                tcp-request content reject if { res.len gt 0 }
                default_backend b

            backend b
                server s 127.0.0.1:1
            """;

    @Test
    void warnsAsHaproxyDoes() {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "3.2"))
                .parse(List.of(new ConfigParser.Source("w.cfg", CFG)));
        assertThat(r.ok()).as(r.diagnostics().toString()).isTrue();
        Proxy fh = r.config().proxy("fh").orElseThrow();
        List<String> problems = new ArrayList<>();
        ProxyRules.compile(fh, problems);
        // the configuration parser reports these (config.L6Fetches), once, as HAProxy words them: the rules add nothing
        String diags = r.diagnostics().toString();
        assertThat(diags)
                .contains("anonymous acl will never match in 'tcp-request connection' because it uses keyword 'req.len' which is "
                        + "incompatible with 'frontend tcp-request connection rule'")
                .contains("acl 'tl' will never match in 'tcp-request connection' because it only involves keywords that are "
                        + "incompatible with 'frontend tcp-request connection rule'")
                .contains("anonymous acl will never match in 'tcp-request content' because it uses keyword 'res.len' which is "
                        + "incompatible with 'frontend tcp-request content rule'");
        for (int line : new int[] {10, 11, 12, 13, 14, 16}) {
            assertThat(diags).contains("Proxy 'fh': L6 sample fetches ignored on HTTP proxies (declared at w.cfg:" + line + ")");
        }
        assertThat(problems).isEmpty();
    }
}

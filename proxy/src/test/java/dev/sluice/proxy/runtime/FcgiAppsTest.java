package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What {@code -c} reports of an fcgi-app's rules once compiled (unknown fetches and ACLs), in HAProxy 2.6.12's words: a
 * condition's problem names the parameter or header as written, a log-format's the proxy.
 */
class FcgiAppsTest {
    private static List<String> problems(String app) {
        String text = """
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                backend php
                    use-fcgi-app app
                    server s 127.0.0.1:9000 proto fcgi
                fcgi-app app
                    docroot /x
                """ + app;
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "3.2")).parse(List.of(new ConfigParser.Source("e.cfg", text)));
        Config c = r.config();
        assertThat(c).as("%s", r.diagnostics()).isNotNull();
        return RuntimeChecks.check(c).problems();
    }

    @Test
    void unknownFetchesAndAclsAsHaproxy() {
        assertThat(problems("""
                    set-param X %[nosuch]
                    set-param Y %[src] if { nosuch2 }
                    pass-header Foo if unknownacl
                """)).containsExactly("e.cfg:11: error: proxy 'php' : unknown fetch method 'nosuch'.",
                "e.cfg:12: error: 'Y' : unknown fetch method 'nosuch2' in ACL expression 'nosuch2'.",
                "e.cfg:13: error: 'Foo' : no such ACL : 'unknownacl'.");
    }

    @Test
    void theApplicationsOwnAclsAreItsConditionsOnes() {
        assertThat(problems("""
                    acl mine path_beg /app
                    set-param Y %[src] if mine
                """)).isEmpty();
    }
}

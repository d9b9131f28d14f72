package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Proxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files a proxy's rules open when they are compiled (pattern files, maps, return files) are found from the directory
 * its lines were read in ({@code default-path}), as HAProxy opens them while parsing in that directory.
 */
class DefaultPathFilesTest {
    @TempDir
    Path dir;

    @Test
    void patternFilesMapsAndReturnFilesStartFromTheProxysDirectory() throws IOException {
        Files.writeString(dir.resolve("blocked.lst"), "10.1.2.3\n");
        Files.writeString(dir.resolve("hosts.map"), "www.example.com be_www\n");
        Files.writeString(dir.resolve("page.txt"), "hello\n");
        String cfg = """
                global
                    default-path config
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind :8080
                    acl blocked src -f blocked.lst
                    http-request deny if blocked
                    http-request return status 200 content-type text/plain file page.txt if { path /page }
                    http-request set-header x-be %[req.hdr(host),map(hosts.map,none)]
                    default_backend be
                backend be
                    server s1 127.0.0.1:8081
                """;
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "2.6"))
                .parse(List.of(new ConfigParser.Source(dir.resolve("haproxy.cfg").toString(), cfg)));
        assertThat(r.diagnostics()).isEmpty();
        Proxy fe = r.config().proxy("fe").orElseThrow();
        List<String> problems = new ArrayList<>();
        ProxyRules rules = ProxyRules.compile(fe, problems);
        assertThat(problems).isEmpty();
        assertThat(rules.request()).hasSize(3);

        FakeTxn t = new FakeTxn("GET", "/", "host", "www.example.com");
        Object v = CompileScope.in(new StickTables(), "fe", dir.toString(), () -> RuleCompiler.sample("req.hdr(host),map(hosts.map,none)")).get(t);
        assertThat(Samples.str(v).toString()).isEqualTo("be_www");
        Acl blocked = CompileScope.in(new StickTables(), "fe", dir.toString(),
                () -> RuleCompiler.acl(new AclExpr("src", List.of("-f", "blocked.lst"), List.of())));
        assertThat(blocked.test(t)).isTrue();
    }

    @Test
    void withoutDefaultPathTheyAreReadFromTheWorkingDirectory() throws IOException {
        Files.writeString(dir.resolve("blocked.lst"), "10.1.2.3\n");
        String cfg = "defaults\n    mode http\nfrontend fe\n    bind :8080\n    acl blocked src -f blocked.lst\n    http-request deny if blocked\n";
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "2.6"))
                .parse(List.of(new ConfigParser.Source(dir.resolve("haproxy.cfg").toString(), cfg)));
        List<String> problems = new ArrayList<>();
        ProxyRules.compile(r.config().proxy("fe").orElseThrow(), problems);
        assertThat(problems).anySatisfy(m -> assertThat(m).contains("failed to open pattern file 'blocked.lst'"));
    }
}

package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.Diagnostic;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.UnixPerms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The UNIX binds' user and group names resolved through the C library, with HAProxy 2.6's messages at their lines. */
class UnixOwnersTest {
    private static final String DEFAULTS = "defaults\n    mode http\n    timeout client 1s\n    timeout server 1s\n    timeout connect 1s\n";

    private static Config config(String text) {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "2.6"))
                .parse(List.of(new ConfigParser.Source("t.cfg", text)));
        assertThat(r.ok()).as(r.diagnostics().toString()).isTrue();
        return r.config();
    }

    @Test
    void namesBecomeIdsAndNumbersStay() throws Exception {
        int nobody = Libc.userId("nobody");
        assertThat(nobody).isPositive();
        UnixOwners.Resolved r = UnixOwners.resolve(config("global\n    unix-bind group root mode 600\n" + DEFAULTS
                + "frontend fe\n    bind /tmp/a.sock user nobody\n    bind /tmp/b.sock,/tmp/c.sock uid 7 gid 8\n    bind 127.0.0.1:1\n"));
        assertThat(r.problems()).isEmpty();
        var binds = r.config().proxies().getFirst().binds();
        assertThat(binds).extracting(b -> b.socket().unix()).containsExactly(new UnixPerms(0600, nobody, 0), new UnixPerms(0600, 7, 8),
                new UnixPerms(0600, 7, 8), new UnixPerms(0600, -1, 0));
        assertThat(r.config().global().process().unixBind()).isEqualTo(new UnixPerms(0600, -1, -1, null,
                new UnixPerms.Name("root", new dev.sluice.config.SourceRef("t.cfg", 2), null)));
    }

    @Test
    void withoutNamesTheConfigurationIsTheSameObject() {
        Config c = config("global\n    unix-bind uid 5\n" + DEFAULTS + "frontend fe\n    bind /tmp/a.sock mode 600\n");
        assertThat(UnixOwners.resolve(c).config()).isSameAs(c);
    }

    @Test
    void unknownNamesAreHaproxysParseErrorsOnceEach() {
        // what HAProxy 2.6.12 -c prints for these lines (ahead of each: "parsing [t.cfg:N] : ")
        UnixOwners.Resolved r = UnixOwners.resolve(config("global\n    unix-bind user no-such-user-here\n    unix-bind group no-such-group-here\n"
                + DEFAULTS + "frontend fe\n    bind /tmp/a.sock,/tmp/b.sock user no-such-user-here\n    bind /tmp/c.sock group no-such-group-here\n"
                + "listen li\n    bind unix@d.sock\n    bind /tmp/e.sock group no-such-group-here user root\n"));
        assertThat(r.problems()).extracting(Diagnostic::toString).containsExactly(
                "t.cfg:2: error: 'unix-bind' : 'no-such-user-here' unknown user.",
                "t.cfg:3: error: 'unix-bind' : 'no-such-group-here' unknown group.",
                "t.cfg:10: error: 'bind /tmp/a.sock,/tmp/b.sock' in section 'frontend' : 'user' : unknown user name 'no-such-user-here'",
                "t.cfg:11: error: 'bind /tmp/c.sock' in section 'frontend' : 'group' : unknown group name 'no-such-group-here'",
                "t.cfg:14: error: 'bind /tmp/e.sock' in section 'listen' : 'group' : unknown group name 'no-such-group-here'");
    }

    @Test
    void theDaemonsParseReportsThem(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("h.cfg");
        Files.writeString(f, DEFAULTS + "frontend fe\n    bind " + dir.resolve("x.sock") + " user no-such-user-here\n");
        Main.Parsed p = Main.parse(List.of(f));
        assertThat(p.diagnostics()).extracting(Diagnostic::toString).containsExactly(
                f + ":7: error: 'bind " + dir.resolve("x.sock") + "' in section 'frontend' : 'user' : unknown user name 'no-such-user-here'");
    }
}

package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.ServerStateFiles;
import dev.sluice.config.model.ServerStateFiles.From;
import org.junit.jupiter.api.Test;

/**
 * {@code server-state-base}, {@code server-state-file}, {@code load-server-state-from-file} and
 * {@code server-state-file-name}: values, inheritance and HAProxy 2.6's messages (as {@code haproxy -c} prints them).
 */
class ServerStateKeywordsTest {

    @Test
    void globalFileAndBase() {
        var c = Configs.valid("""
                global
                    server-state-base /var/state/haproxy/
                    server-state-file global
                """ + Configs.DEFAULTS.replace("defaults\n", "defaults\n    load-server-state-from-file global\n") + """
                frontend fe
                    bind :8080
                    default_backend be
                backend be
                    server s1 127.0.0.1:80
                """);
        ServerStateFiles f = c.global().serverState();
        assertThat(f.base()).isEqualTo("/var/state/haproxy/");
        assertThat(f.globalFile()).isEqualTo("global");
        assertThat(f.globalFileAt()).isEqualTo(Configs.at(3));
        assertThat(f.path("global")).isEqualTo("/var/state/haproxy/global");
        assertThat(f.path("/abs/x")).isEqualTo("/abs/x");
        assertThat(new ServerStateFiles("/b", null, null).path("x")).isEqualTo("/b/x");
        assertThat(new ServerStateFiles(null, null, null).path("x")).isEqualTo("x");
        // defaults pass load-server-state-from-file on; only a backend keeps it
        assertThat(Configs.proxy(c, "be").options().serverState()).isEqualTo(new ServerStateFiles.Load(From.GLOBAL, null));
        assertThat(Configs.proxy(c, "fe").options().serverState()).isEqualTo(ServerStateFiles.Load.NONE);
        assertThat(Configs.valid("global\n").global().serverState()).isEqualTo(ServerStateFiles.NONE);
    }

    @Test
    void globalMessagesAsHaproxy() {
        var r = Configs.parse(Configs.inGlobal("server-state-file /a\nserver-state-file /b\nserver-state-base /x\nserver-state-base /y"));
        assertThat(r.ok()).isTrue();
        assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(3, "'server-state-file' already specified. Continuing."),
                tuple(5, "'server-state-base' already specified. Continuing."));
        // the first one stays
        assertThat(r.config().global().serverState().globalFile()).isEqualTo("/a");
        assertThat(r.config().global().serverState().base()).isEqualTo("/x");
        Configs.assertSingleError(Configs.parse(Configs.inGlobal("server-state-file")), Configs.GLOBAL_LINE,
                "'server-state-file' expect one argument: a file path.");
        Configs.assertSingleError(Configs.parse(Configs.inGlobal("server-state-base")), Configs.GLOBAL_LINE,
                "'server-state-base' expects one argument: a directory path.");
    }

    @Test
    void backendKeywords() {
        assertThat(Configs.backendOf("").options().serverState()).isEqualTo(ServerStateFiles.Load.NONE);
        var c = Configs.valid("""
                global
                    server-state-file /s
                """ + Configs.DEFAULTS.replace("defaults\n", "defaults\n    load-server-state-from-file local\n    server-state-file-name dflt\n") + """
                frontend fe
                    bind :8080
                    default_backend a
                backend a
                    server s1 127.0.0.1:80
                backend b
                    server-state-file-name other
                backend c
                    server-state-file-name use-backend-name
                backend d
                    load-server-state-from-file none
                    server-state-file-name x
                backend e
                    load-server-state-from-file global
                """);
        // the file name is not inherited from defaults (HAProxy 2.6 never copies it)
        assertThat(Configs.proxy(c, "a").options().serverState()).isEqualTo(new ServerStateFiles.Load(From.LOCAL, null));
        assertThat(Configs.proxy(c, "b").options().serverState()).isEqualTo(new ServerStateFiles.Load(From.LOCAL, "other"));
        assertThat(Configs.proxy(c, "c").options().serverState()).isEqualTo(new ServerStateFiles.Load(From.LOCAL, "c"));
        assertThat(Configs.proxy(c, "d").options().serverState()).isEqualTo(ServerStateFiles.Load.NONE);
        assertThat(Configs.proxy(c, "e").options().serverState()).isEqualTo(new ServerStateFiles.Load(From.GLOBAL, null));
    }

    @Test
    void backendMessagesAsHaproxy() {
        Configs.assertSingleError(Configs.parse(Configs.inBackend("load-server-state-from-file bogus")), Configs.BACKEND_LINE,
                "'load-server-state-from-file' expects 'global', 'local' or 'none'. Got 'bogus'");
        Configs.assertSingleError(Configs.parse(Configs.inBackend("server-state-file-name a b")), Configs.BACKEND_LINE,
                "'server-state-file-name' cannot handle unexpected argument 'b'.");
        var r = Configs.parse(Configs.inFrontend("load-server-state-from-file local\nserver-state-file-name foo"));
        assertThat(r.ok()).isTrue();
        assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(Configs.FRONTEND_LINE, "'load-server-state-from-file' ignored because frontend 'fe' has no backend capability."),
                tuple(Configs.FRONTEND_LINE + 1, "'server-state-file-name' ignored because frontend 'fe' has no backend capability."));
        // global without a global file: HAProxy's warning, for each backend (listen included), not for frontends
        r = Configs.parse(Configs.DEFAULTS.replace("defaults\n", "defaults\n    load-server-state-from-file global\n") + """
                frontend fe
                    bind :8080
                    default_backend be
                backend be
                    server s1 127.0.0.1:80
                listen li
                    bind :8081
                """);
        assertThat(r.ok()).isTrue();
        assertThat(Configs.warnings(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(10, "backend 'be' configured to load server state file from global section 'server-state-file' directive."
                        + " Unfortunately, 'server-state-file' is not set!"),
                tuple(12, "backend 'li' configured to load server state file from global section 'server-state-file' directive."
                        + " Unfortunately, 'server-state-file' is not set!"));
    }
}

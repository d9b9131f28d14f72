package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code sluice -c}: HAProxy's configuration check, exit codes and messages. */
class CheckModeTest {
    private static final String NO_LISTENER = """
            defaults
                mode http
                timeout client 5s
            backend be
                server s1 127.0.0.1:9
            """;

    /**
     * As HAProxy 2.6: a configuration with nothing to listen on passes -c with exit status 2 and its words, and does
     * not start (exit 1, an alert); a stats socket alone is something to listen on.
     */
    @Test
    void aConfigurationWithoutListenerDoesNotStart() throws Exception {
        String none = NO_LISTENER;
        Sluice.Result r = Sluice.check(none);
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.output()).contains("Configuration file has no error but will not start (no listener) => exit(2).");
        r = Sluice.run(List.of("-f", Sluice.writeConfig(none).toString()), Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("[ALERT] No enabled listener found (check for 'bind' directives) ! Exiting.");
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("nolistener");
        String socketOnly = "global\n    stats socket " + dir.resolve("admin.sock") + "\n" + none;
        assertThat(Sluice.check(socketOnly).exitCode()).isZero();
    }

    /** The words and exit status {@link #aConfigurationWithoutListenerDoesNotStart} expects are HAProxy 2.6's. */
    @Test
    void haproxyChecksAConfigurationWithoutListenerSo() throws Exception {
        Process h = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", Sluice.writeConfig(NO_LISTENER).toString()).redirectErrorStream(true).start();
        String out = new String(h.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(h.waitFor()).isEqualTo(2);
        assertThat(out).contains("Configuration file has no error but will not start (no listener) => exit(2).");
    }

    @Test
    void validConfigurationExitsZeroAndSaysSo() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend be
                backend be
                    server s1 127.0.0.1:2
                """);
        assertThat(r.exitCode()).isZero();
        assertThat(r.output()).isEqualTo("Configuration file is valid\n");
    }

    @Test
    void threeErrorsAreAllReportedWithTheirLineNumbers() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    bogus_keyword on
                    default_backend nope
                backend be
                    server s1 127.0.0.1:2 weight 300
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output())
                .containsPattern("test\\.cfg:8: error: unknown keyword 'bogus_keyword' in 'frontend' section")
                .containsPattern("test\\.cfg:11: error: .*weight of server s1 is not within 0 and 256 \\(300\\)")
                .containsPattern("test\\.cfg:9: error: Proxy 'fe': unable to find required default_backend: 'nope'")
                .doesNotContain("Configuration file is valid");
    }

    @Test
    void warningsAloneKeepTheConfigurationValid() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                frontend fe
                    bind 127.0.0.1:1
                    http-request return status 200
                """);
        assertThat(r.exitCode()).isZero();
        assertThat(r.output()).contains("warning: missing timeouts for frontend 'fe'").contains("Warnings were found.")
                .endsWith("Configuration file is valid\n");
    }

    @Test
    void cipherNamesBoringSslCannotUseAreLeftOutAndOnlyAnEmptyListIsAnError() {
        // a hardening list from a real configuration, which HAProxy 2.6 (OpenSSL) accepts as is
        String hardened = "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
                + "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-SHA384:ECDHE-RSA-AES256-SHA384:"
                + "ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256";
        java.nio.file.Path pem = new TestPki("check-ca").leaf("localhost", "127.0.0.1").pem();
        String cfg = """
                global
                    ssl-default-bind-ciphers %s
                    ssl-default-bind-options no-sslv3
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1 ssl crt %s
                    http-request return status 200
                """;
        Sluice.Result r = Sluice.check(cfg.formatted(hardened, pem));
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("test.cfg:10: warning: 'bind 127.0.0.1:1' in proxy 'fe' : 'ciphers' : ignoring cipher name(s) BoringSSL "
                + "cannot use: ECDHE-ECDSA-AES256-SHA384:ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256\n")
                .doesNotContain("failed to set cipher suite").endsWith("Warnings were found.\nConfiguration file is valid\n");
        Sluice.Result none = Sluice.check(cfg.formatted("ECDHE-RSA-AES256-SHA384:ECDHE-RSA-AES128-SHA256", pem));
        assertThat(none.exitCode()).isEqualTo(1);
        assertThat(none.output()).contains("test.cfg:10: error: 'bind 127.0.0.1:1' in proxy 'fe' : 'ciphers' : "
                + "'ECDHE-RSA-AES256-SHA384:ECDHE-RSA-AES128-SHA256' selects no cipher BoringSSL can use").contains("Fatal errors found in configuration.");
    }

    @Test
    void unknownFlagsAndMissingFilesAreErrors() {
        Sluice.Result bad = Sluice.run(List.of("-Z"), Map.of());
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.output()).contains("unknown option '-Z'").contains("Usage");
        Sluice.Result missing = Sluice.run(List.of("-c", "-f", "/nonexistent/sluice.cfg"), Map.of());
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.output()).contains("/nonexistent/sluice.cfg: error: cannot open configuration file: No such file or directory");
    }

    @Test
    void versionAndHelp() {
        assertThat(Sluice.run(List.of("-v"), Map.of()).output()).startsWith("Sluice version ");
        Sluice.Result vv = Sluice.run(List.of("-vv"), Map.of());
        assertThat(vv.output()).contains("Built with Netty 4.2.18.Final").contains("Transport: epoll");
        Sluice.Result help = Sluice.run(List.of("--help"), Map.of());
        assertThat(help.exitCode()).isZero();
        assertThat(help.output()).contains("-f <file|dir>").contains("-c checks");
    }

    @Test
    void aHaproxyFeatureSluiceLacksIsNamed() {
        Sluice.Result r = Sluice.check("""
                global
                    lua-load /etc/haproxy/x.lua
                defaults
                    mode http
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("'lua-load' is not supported by Sluice yet: Lua scripting");
    }

    @Test
    void rulesReadingAMessageTheirPhaseDoesNotHaveAreWarnedOrRejectedAsHaproxyDoes() {
        String head = """
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend be
                    acl p path /x
                """;
        String be = "backend be\n    server s1 127.0.0.1:2\n";
        Sluice.Result warned = Sluice.check(head + """
                    http-response set-header x-a 1 if p
                    http-request set-header x-b 1 if { status 200 }
                    http-response set-header x-c %[hdr(host)] if { hdr(x) -m found }
                """ + be);
        assertThat(warned.exitCode()).isZero();
        assertThat(warned.output())
                .contains("test.cfg:10: warning: acl 'p' will never match because it only involves keywords that are incompatible with "
                        + "'frontend http-response header rule'.")
                .contains("test.cfg:11: warning: anonymous acl will never match because it uses keyword 'status' which is incompatible with "
                        + "'frontend http-request header rule'.")
                .contains("test.cfg:12: warning: anonymous acl will never match because it uses keyword 'hdr' which is incompatible with "
                        + "'frontend http-response header rule'.")
                .contains("Warnings were found.").contains("Configuration file is valid");

        Sluice.Result bad = Sluice.check(head + """
                    http-response set-header x-b %[path]
                    http-request set-header x-d %[res.hdr(a)]
                    http-after-response set-header x-i 1 if { var(txn.a) x }
                    http-request set-header x-e %[nosuchfetch]
                    http-request set-header x-f %[path,nosuchconv]
                """ + be);
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.output())
                .contains("test.cfg:10: error: error detected while parsing a 'http-response set-header' rule : sample fetch 'path' may not be "
                        + "reliably used here because it needs 'HTTP request headers' which is not available here.")
                .contains("test.cfg:11: error: error detected while parsing a 'http-request set-header' rule : sample fetch 'res.hdr' may not be "
                        + "reliably used here because it needs 'HTTP response headers' which is not available here.")
                .contains("test.cfg:12: error: error detected while parsing a 'http-after-response set-header' rule : matching method must be "
                        + "specified first (using '-m') when using a sample fetch of this type ('var').")
                .containsPattern("test\\.cfg:13: error: .*unknown fetch method 'nosuchfetch'")
                .containsPattern("test\\.cfg:14: error: .*unknown converter 'nosuchconv'")
                .contains("Fatal errors found in configuration.");
    }

    @Test
    void zeroWarningMakesWarningsFatal() {
        String body = """
                defaults
                    mode http
                frontend fe
                    bind 127.0.0.1:1
                    http-request return status 200
                """;
        Sluice.Result warned = Sluice.check("global\n    zero-warning\n" + body);
        assertThat(warned.exitCode()).isEqualTo(1);
        assertThat(warned.output()).contains("warning: missing timeouts for frontend 'fe'")
                .contains("[ALERT] Some warnings were found and 'zero-warning' is set. Aborting.")
                .doesNotContain("Configuration file is valid");
        Sluice.Result clean = Sluice.check("global\n    zero-warning\n    hard-stop-after 30s\n    noreuseport\n"
                + body.replace("    mode http\n", "    mode http\n    timeout client 5s\n"));
        assertThat(clean.output()).isEqualTo("Configuration file is valid\n");
        assertThat(clean.exitCode()).isZero();
    }
}

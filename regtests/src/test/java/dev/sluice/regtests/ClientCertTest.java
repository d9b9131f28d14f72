package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TLS session fetches of a client connection, Sluice against HAProxy 2.6 on one configuration: a bind with {@code
 * verify optional} and a CA file, each expression the body of an {@code http-request return ... lf-string "%[expr]"}
 * selected by the path, asked by one curl connection with a client certificate (signed by an intermediate CA the client
 * sends), then without one; both daemons must answer the same bytes. The certificates are made by the openssl command
 * when the test runs: an RSA root, an RSA intermediate, an RSA client with a subject that needs every kind of escaping
 * (a multi-valued RDN, UTF-8, RFC 2253's specials, a repeated CN) and a serial with its high bit set, an EC server
 * certificate valid past 2049 (a GeneralizedTime). Then a client certificate from another CA, which {@code verify optional}
 * still refuses in both, {@code verify required} without a certificate, a resumed session over TLS 1.2 and 1.3 (the
 * certificate from the session, no chain, {@code ssl_fc_has_crt} false), the client random and master secret against
 * curl's key log, and a few fetches over TLS 1.2 (the session id:
 * BoringSSL's TLS 1.3 server sessions have none, where OpenSSL's have 32 random bytes, a departure). Then the server
 * connection's fetches ({@code ssl_bc_*}, {@code ssl_s_*}) as {@code http-response set-header} values, each daemon a TLS
 * client (with the client certificate: {@code server ... crt}) of one HAProxy origin (a BoringSSL client offers AES-128
 * first where OpenSSL offers AES-256, and BoringSSL's TLS 1.3 server follows the client: a Sluice origin would pick
 * another suite).
 */
class ClientCertTest {
    /** Expressions asked with the client certificate and without. */
    static final List<String> EXPRESSIONS = List.of(
            "ssl_c_used", "ssl_c_verify", "ssl_c_err", "ssl_c_ca_err", "ssl_c_ca_err_depth", "ssl_fc_has_crt", "ssl_c_s_dn",
            "ssl_c_i_dn", "ssl_c_s_dn(CN)", "ssl_c_s_dn(cn,2)", "ssl_c_s_dn(CN,-1)", "ssl_c_s_dn(CN,-2)", "ssl_c_s_dn(CN,3)",
            "ssl_c_s_dn(OU,2)", "ssl_c_s_dn(emailAddress)", "ssl_c_s_dn(ST)", "ssl_c_s_dn(,0,rfc2253)", "ssl_c_i_dn(,0,rfc2253)",
            "ssl_c_i_dn(CN)", "ssl_c_serial,hex", "ssl_c_sha1,hex", "ssl_c_der,base64", "ssl_c_chain_der,base64", "ssl_c_notbefore",
            "ssl_c_notafter", "ssl_c_sig_alg", "ssl_c_key_alg", "ssl_c_version", "ssl_f_s_dn", "ssl_f_i_dn", "ssl_f_s_dn(CN)",
            "ssl_f_s_dn(,0,rfc2253)", "ssl_f_i_dn(,0,rfc2253)", "ssl_f_serial,hex", "ssl_f_sha1,hex", "ssl_f_der,base64",
            "ssl_f_notbefore", "ssl_f_notafter", "ssl_f_sig_alg", "ssl_f_key_alg", "ssl_f_version", "ssl_fc_use_keysize",
            "ssl_fc_alg_keysize", "ssl_fc_err", "ssl_fc_err_str", "ssl_fc_client_random,hex,length", "ssl_fc_server_random,hex,length",
            "ssl_fc_protocol", "ssl_fc_cipher", "ssl_c_s_dn,length", "ssl_c_used,iif(yes,no)", "ssl_fc_has_early", "ssl_fc_npn", "ssl_fc_session_key,hex,length", "ssl_fc_session_id,hex,length", "ssl_fc_client_random,hex",
            "ssl_fc_session_key,hex");

    /**
     * Not compared as they come over TLS 1.3: the session id (a departure, see TLS12) and what is random (checked against
     * the client's key log over TLS 1.2 instead).
     */
    static boolean varying(String e) {
        return e.startsWith("ssl_fc_session_id") || e.equals("ssl_fc_client_random,hex") || e.equals("ssl_fc_session_key,hex");
    }

    /** Expressions asked over TLS 1.2 too (a TLS 1.2 suite is named as Java names it, a known departure: no ssl_fc_cipher). */
    static final List<String> TLS12 = List.of("ssl_fc_protocol", "ssl_fc_session_id,hex,length", "ssl_fc_use_keysize", "ssl_fc_alg_keysize",
            "ssl_c_s_dn(CN)", "ssl_fc_has_crt", "ssl_f_key_alg");

    /** Expressions of the server connection, set as response headers by a backend that connects over TLS. */
    static final List<String> BACKEND = List.of(
            "ssl_bc", "ssl_bc_protocol", "ssl_bc_cipher", "ssl_bc_alpn", "ssl_bc_is_resumed", "ssl_bc_use_keysize", "ssl_bc_alg_keysize",
            "ssl_bc_err", "ssl_bc_err_str", "ssl_bc_session_key,hex,length", "ssl_bc_client_random,hex,length", "ssl_bc_server_random,hex,length", "ssl_s_s_dn",
            "ssl_s_i_dn", "ssl_s_s_dn(CN)", "ssl_s_i_dn(,0,rfc2253)", "ssl_s_serial,hex", "ssl_s_sha1,hex", "ssl_s_der,base64",
            "ssl_s_chain_der,base64", "ssl_s_notbefore", "ssl_s_notafter", "ssl_s_sig_alg", "ssl_s_key_alg", "ssl_s_version",
            "ssl_fc", "ssl_fc_is_resumed", "ssl_c_used", "ssl_bc_npn");

    static Path dir;

    @BeforeAll
    static void certificates() throws Exception {
        Program.OPENSSL.require();
        dir = Files.createTempDirectory("sluice-client-certs");
        Files.writeString(dir.resolve("ca.ext"), "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n");
        Files.writeString(dir.resolve("server.ext"), "basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n");
        Files.writeString(dir.resolve("client.ext"), "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n");
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj",
                "/C=FR/O=Sluice Test/CN=Root CA");
        openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "inter.key", "-out", "inter.csr", "-subj",
                "/O=Sluice Test/OU=Clients/CN=Intermediate CA");
        openssl("x509", "-req", "-in", "inter.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "4097", "-days", "30", "-sha256",
                "-extfile", "ca.ext", "-out", "inter.pem");
        openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key", "-out",
                "server.csr", "-subj", "/CN=localhost");
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "0x2A", "-days", "10000",
                "-sha384", "-extfile", "server.ext", "-out", "server.crt");
        openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr", "-utf8", "-multivalue-rdn",
                "-subj", "/C=FR/ST=Île-de-France/O=Acme, Inc./OU=R&D+OU=#ops /OU=second ou/CN=client \"one\"; <1>"
                        + "/emailAddress=a\\+b@example.com/CN=x=y");
        openssl("x509", "-req", "-in", "client.csr", "-CA", "inter.pem", "-CAkey", "inter.key", "-set_serial", "0xFF0102", "-days", "30",
                "-sha256", "-extfile", "client.ext", "-out", "client.crt");
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "stranger.key", "-out",
                "stranger.crt", "-days", "30", "-subj", "/CN=stranger");
        Files.writeString(dir.resolve("server.pem"), Files.readString(dir.resolve("server.crt")) + Files.readString(dir.resolve("server.key")));
        Files.writeString(dir.resolve("client-full.pem"), Files.readString(dir.resolve("client.crt")) + Files.readString(dir.resolve("inter.pem"))
                + Files.readString(dir.resolve("client.key")));
        Files.writeString(dir.resolve("client-chain.pem"), Files.readString(dir.resolve("client.crt")) + Files.readString(dir.resolve("inter.pem")));
    }

    @AfterAll
    static void clean() throws Exception {
        if (dir != null) {
            try (var s = Files.list(dir)) {
                s.forEach(f -> f.toFile().delete());
            }
            Files.delete(dir);
        }
    }

    static void openssl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(Program.command(cmd)).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", cmd) + ": " + out).isZero();
    }

    static String config(int port, int requiredPort) {
        StringBuilder sb = new StringBuilder("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend f
                    bind 127.0.0.1:%d ssl crt %s ca-file %s verify optional alpn http/1.1
                    http-request return status 200 content-type text/plain lf-string "r=%%[ssl_fc_is_resumed] u=%%[ssl_c_used] h=%%[ssl_fc_has_crt] cn=%%[ssl_c_s_dn(CN)] ch=%%[ssl_c_chain_der,hex,length] v=%%[ssl_c_verify]\\n" if { path /r }
                """.formatted(port, dir.resolve("server.pem"), dir.resolve("ca.pem")));
        for (int i = 0; i < EXPRESSIONS.size(); i++) {
            sb.append("    http-request return status 200 content-type text/plain lf-string \"%[").append(EXPRESSIONS.get(i))
                    .append("]\" if { path /").append(i).append(" }\n");
        }
        sb.append("""
                frontend req
                    bind 127.0.0.1:%d ssl crt %s ca-file %s verify required alpn http/1.1
                    http-request return status 200 content-type text/plain lf-string "%%[ssl_c_s_dn(CN)]"
                """.formatted(requiredPort, dir.resolve("server.pem"), dir.resolve("ca.pem")));
        return sb.toString();
    }

    /** One curl connection asking every expression; {@code cert}: the certificate and key files, or none. */
    static Map<String, String> ask(int port, String cert, String key) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--http1.1", "--cacert", dir.resolve("ca.pem").toString(), "-w",
                "\n@@%{http_code}@@\n"));
        if (cert != null) {
            cmd.addAll(List.of("--cert", dir.resolve(cert).toString(), "--key", dir.resolve(key).toString()));
        }
        for (int i = 0; i < EXPRESSIONS.size(); i++) {
            cmd.add("https://127.0.0.1:" + port + "/" + i);
        }
        Sluice.Result r = TlsTest.exec(cmd, null);
        assertThat(r.exitCode()).as(r.output()).isZero();
        String[] parts = r.output().split("\n@@", -1);
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < EXPRESSIONS.size(); i++) {
            String part = parts[i];
            int nl = part.indexOf("@@\n");
            // each part after the first starts with the previous status code
            out.put(EXPRESSIONS.get(i), i == 0 ? part : part.substring(nl + 3));
        }
        return out;
    }

    /** What curl says with {@code args} against {@code port}: its exit code, then the body. */
    static String attempt(int port, String... args) throws Exception {
        return attempt(port, -1, args);
    }

    /** The same, asking for expression {@code index} ({@code /<index>}; -1: {@code /}). */
    static String attempt(int port, int index, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-s", "--http1.1", "--cacert", dir.resolve("ca.pem").toString()));
        cmd.addAll(List.of(args));
        cmd.add("https://127.0.0.1:" + port + "/" + (index < 0 ? "" : Integer.toString(index)));
        Sluice.Result r = TlsTest.exec(cmd, null);
        return r.exitCode() == 0 ? "ok " + r.output() : "failed";
    }

    /**
     * Over TLS 1.2, whether the client random and the master secret the fetches give are those curl wrote in its key log
     * (SSLKEYLOGFILE: {@code CLIENT_RANDOM <random> <master secret>}).
     */
    static String keyLog(int port) throws Exception {
        Path log = dir.resolve("keylog-" + port + ".txt");
        Files.deleteIfExists(log);
        List<String> cmd = new ArrayList<>(List.of("curl", "-s", "--http1.1", "--tls-max", "1.2", "--cacert", dir.resolve("ca.pem").toString(),
                "https://127.0.0.1:" + port + "/" + EXPRESSIONS.indexOf("ssl_fc_client_random,hex"),
                "https://127.0.0.1:" + port + "/" + EXPRESSIONS.indexOf("ssl_fc_session_key,hex")));
        ProcessBuilder pb = new ProcessBuilder(Program.command(cmd)).redirectErrorStream(true);
        pb.environment().put("SSLKEYLOGFILE", log.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(p.waitFor()).as(out).isZero();
        String expected = null;
        for (String line : Files.readAllLines(log)) {
            if (line.startsWith("CLIENT_RANDOM ")) {
                String[] f = line.split(" ");
                expected = (f[1] + f[2]).toUpperCase(java.util.Locale.ROOT);
            }
        }
        return expected == null ? "no CLIENT_RANDOM line in " + Files.readString(log) : out.equals(expected) ? "matches" : out + " != " + expected;
    }

    static List<String> run(boolean haproxy) throws Exception {
        int port = Ports.free();
        int requiredPort = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port, requiredPort), port)) {
            // TLS 1.3: BoringSSL's server sessions have no id where OpenSSL makes one up (a departure): compared over TLS 1.2 only
            ask(port, "client-chain.pem", "client.key").forEach((e, v) -> out.add(varying(e) ? "-" : "cert " + e + " = [" + v + "]"));
            ask(port, null, null).forEach((e, v) -> out.add(varying(e) ? "-" : "none " + e + " = [" + v + "]"));
            out.add("tls1.2 key log: " + keyLog(port));
            for (String v : new String[] {"1.2", "1.3"}) {
                // two connections of one curl: the second resumes the first's session (the certificate comes from it)
                String url = "https://127.0.0.1:" + port + "/r";
                Sluice.Result r = TlsTest.exec(List.of("curl", "-sS", "--http1.1", "--cacert", dir.resolve("ca.pem").toString(), "--tls-max", v,
                        "--tlsv" + v, "--cert", dir.resolve("client-chain.pem").toString(), "--key", dir.resolve("client.key").toString(), "-H",
                        "Connection: close", url, url), null);
                out.add("tls" + v + " resumed: " + r.exitCode() + " " + r.output().replace("\n", " | "));
            }
            for (String e : TLS12) {
                out.add("tls1.2 " + e + ": " + attempt(port, EXPRESSIONS.indexOf(e), "--tls-max", "1.2", "--cert",
                        dir.resolve("client-chain.pem").toString(), "--key", dir.resolve("client.key").toString()));
            }
            out.add("stranger on optional: " + attempt(port, "--cert", dir.resolve("stranger.crt").toString(), "--key",
                    dir.resolve("stranger.key").toString()));
            out.add("none on required: " + attempt(requiredPort));
            out.add("cert on required: " + attempt(requiredPort, "--cert", dir.resolve("client-chain.pem").toString(), "--key",
                    dir.resolve("client.key").toString()));
        }
        return out;
    }

    /** The TLS server both daemons connect to: HAProxy, so that the suite it picks does not depend on the daemon tested. */
    static String originConfig(int origin) {
        return """
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend origin
                    bind 127.0.0.1:%1$d ssl crt %2$s ca-file %3$s verify optional alpn http/1.1
                    http-request return status 200 content-type text/plain lf-string "%%[ssl_c_s_dn(CN)] %%[ssl_c_used]"
                """.formatted(origin, dir.resolve("server.pem"), dir.resolve("ca.pem"));
    }

    static String backendConfig(int port, int origin) {
        StringBuilder sb = new StringBuilder("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend front
                    bind 127.0.0.1:%1$d
                    default_backend be
                backend be
                    server s1 127.0.0.1:%2$d ssl verify required ca-file %3$s sni str(localhost) alpn http/1.1 crt %4$s
                """.formatted(port, origin, dir.resolve("ca.pem"), dir.resolve("client-full.pem")));
        for (int i = 0; i < BACKEND.size(); i++) {
            sb.append("    http-response set-header X-B").append(i).append(" \"%[").append(BACKEND.get(i)).append("]\"\n");
        }
        return sb.toString();
    }

    static List<String> runBackend(boolean haproxy, int origin) throws Exception {
        int port = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, backendConfig(port, origin), port)) {
            Sluice.Result r = TlsTest.exec(List.of("curl", "-sS", "-D", "-", "http://127.0.0.1:" + port + "/"), null);
            assertThat(r.exitCode()).as(r.output()).isZero();
            Map<String, String> headers = new LinkedHashMap<>();
            String body = "";
            String[] lines = r.output().split("\r\n", -1);
            for (int i = 0; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (lines[i].isEmpty()) {
                    body = String.join("\r\n", java.util.Arrays.copyOfRange(lines, i + 1, lines.length));
                    break;
                }
                if (colon > 0) {
                    headers.put(lines[i].substring(0, colon).toLowerCase(java.util.Locale.ROOT), lines[i].substring(colon + 1).trim());
                }
            }
            for (int i = 0; i < BACKEND.size(); i++) {
                out.add(BACKEND.get(i) + " = [" + headers.get("x-b" + i) + "]");
            }
            out.add("body: " + body);
        }
        return out;
    }

    @Test
    void serverConnectionFetchesAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        Program.CURL.require();
        int origin = Ports.free();
        List<String> theirs;
        List<String> ours;
        try (Daemon o = Daemon.start(true, originConfig(origin), origin)) {
            theirs = runBackend(true, origin);
            ours = runBackend(false, origin);
        }
        assertThat(theirs).contains("ssl_bc = [1]", "ssl_s_s_dn = [/CN=localhost]", "ssl_fc = [0]", "body: client \"one\"; <1> 1");
        assertThat(ours).hasSameSizeAs(theirs);
        List<String> differ = new ArrayList<>();
        for (int i = 0; i < theirs.size(); i++) {
            if (!theirs.get(i).equals(ours.get(i))) {
                differ.add("haproxy " + theirs.get(i) + " | sluice " + ours.get(i));
            }
        }
        assertThat(differ).isEmpty();
    }

    @Test
    void fetchesAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        Program.CURL.require();
        List<String> theirs = run(true);
        List<String> ours = run(false);
        assertThat(theirs).contains("cert ssl_c_s_dn(CN) = [client \"one\"; <1>]", "cert ssl_c_used = [1]", "none ssl_c_used = [0]",
                "stranger on optional: failed", "cert on required: ok client \"one\"; <1>",
                "tls1.2 ssl_fc_protocol: ok TLSv1.2", "tls1.2 ssl_fc_session_id,hex,length: ok 64", "tls1.2 key log: matches");
        assertThat(theirs).anyMatch(l -> l.startsWith("tls1.3 resumed: 0 r=0 u=1 h=1") && l.contains("| r=1 u=1 h=0 cn=client"));
        assertThat(ours).hasSameSizeAs(theirs);
        List<String> differ = new ArrayList<>();
        for (int i = 0; i < theirs.size(); i++) {
            if (!theirs.get(i).equals(ours.get(i))) {
                differ.add("haproxy " + theirs.get(i) + " | sluice " + ours.get(i));
            }
        }
        assertThat(differ).isEmpty();
    }
}

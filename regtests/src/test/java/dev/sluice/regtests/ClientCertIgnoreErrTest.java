package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ca-ignore-err} and {@code crt-ignore-err}: the same binds in HAProxy 2.6 and Sluice ({@code verify optional} and
 * {@code required}, with a CA file, without and with ignore lists), the same client certificates made by openssl (signed
 * by the CA; expired; self-signed; signed by an unknown CA, alone and with that CA's root in the chain; with an
 * intermediate the client sends, valid or expired; signed by a forged root: same name and key id, another key), and for each: whether the handshake goes through (curl's exit code and the alert it
 * names), the response that gives {@code ssl_c_err ssl_c_ca_err ssl_c_ca_err_depth ssl_c_verify}, and the log line with
 * the same values (or the embryonic line of a failed handshake); then a resumed session over TLS 1.2 and 1.3 of a
 * certificate whose error was ignored ({@code ssl_c_verify} kept, the three others 0). Both must be equal, in order.
 */
class ClientCertIgnoreErrTest {
    static Path dir;
    static final String[] CERTS = {"good", "inter", "expired", "self", "unknown", "unknownchain", "expiredca", "forged"};
    static final String[] BINDS = {
        "verify optional",
        "verify optional crt-ignore-err all ca-ignore-err all",
        "verify required crt-ignore-err 10,18",
        "verify optional ca-ignore-err 19,10 crt-ignore-err 20",
    };

    @BeforeAll
    static void certificates() throws Exception {
        Program.OPENSSL.require();
        dir = Files.createTempDirectory("sluice-ignore-err");
        ClientCertTest.dir = dir;
        Files.writeString(dir.resolve("ca.ext"), "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n");
        Files.writeString(dir.resolve("client.ext"), "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n");
        String ec = "ec_paramgen_curve:P-256";
        ClientCertTest.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30",
                "-subj", "/CN=Root CA");
        ClientCertTest.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "other.key", "-out", "other.pem", "-days",
                "30", "-subj", "/CN=Other CA", "-addext", "basicConstraints=critical,CA:TRUE");
        ClientCertTest.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "server.key", "-out", "server.crt", "-days",
                "30", "-subj", "/CN=localhost");
        Files.writeString(dir.resolve("server.pem"), Files.readString(dir.resolve("server.crt")) + Files.readString(dir.resolve("server.key")));
        // an intermediate under the root, and one already expired
        ClientCertTest.openssl("req", "-new", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "i.key", "-out", "i.csr", "-subj", "/CN=Inter");
        ClientCertTest.openssl("x509", "-req", "-in", "i.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-days", "30", "-extfile", "ca.ext",
                "-out", "i.pem");
        ClientCertTest.openssl("x509", "-req", "-in", "i.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-days", "-1", "-extfile", "ca.ext",
                "-out", "iold.pem");
        // a CA with the root's name and key id but another key: what it signs has the root as issuer, and a bad signature
        byte[] skid;
        try (var in = Files.newInputStream(dir.resolve("ca.pem"))) {
            skid = ((java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in))
                    .getExtensionValue("2.5.29.14");
        }
        String keyId = java.util.HexFormat.of().formatHex(skid, skid.length - 20, skid.length);
        ClientCertTest.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "fake.key", "-out", "fake.pem", "-days", "30",
                "-subj", "/CN=Root CA", "-addext", "subjectKeyIdentifier=" + keyId, "-addext", "basicConstraints=critical,CA:TRUE");
        for (String c : CERTS) {
            if (!c.equals("self")) {
                ClientCertTest.openssl("req", "-new", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", c + ".key", "-out", c + ".csr",
                        "-subj", "/CN=" + c);
            }
        }
        sign("good", "ca", "30");
        sign("expired", "ca", "-1");
        sign("unknown", "other", "30");
        sign("unknownchain", "other", "30");
        sign("inter", "i", "30");
        sign("expiredca", "iold", "30");
        sign("forged", "fake", "30");
        ClientCertTest.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "self.key", "-out", "self.crt", "-days",
                "30", "-subj", "/CN=self");
        append("unknownchain", "other.pem");
        append("inter", "i.pem");
        append("expiredca", "iold.pem");
    }

    private static void sign(String c, String ca, String days) throws Exception {
        String caCert = ca.equals("i") || ca.equals("iold") ? ca + ".pem" : ca + ".pem";
        String caKey = ca.startsWith("i") ? "i.key" : ca + ".key";
        ClientCertTest.openssl("x509", "-req", "-in", c + ".csr", "-CA", caCert, "-CAkey", caKey, "-days", days, "-extfile", "client.ext",
                "-out", c + ".crt");
    }

    private static void append(String c, String pem) throws Exception {
        Files.writeString(dir.resolve(c + ".crt"), Files.readString(dir.resolve(c + ".crt")) + Files.readString(dir.resolve(pem)));
    }

    @AfterAll
    static void clean() throws Exception {
        ClientCertTest.clean();
    }

    static String config(int[] ports) {
        StringBuilder sb = new StringBuilder("""
                global
                    log stdout format raw local0 info
                defaults
                    mode http
                    log global
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                    log-format "%ft %[ssl_c_err] %[ssl_c_ca_err] %[ssl_c_ca_err_depth] %[ssl_c_verify] %[ssl_c_used]"
                """);
        for (int i = 0; i < BINDS.length; i++) {
            sb.append("""
                    frontend f%d
                        bind 127.0.0.1:%d ssl crt %s ca-file %s %s alpn http/1.1
                        http-request return status 200 content-type text/plain lf-string "%%[ssl_c_err] %%[ssl_c_ca_err] %%[ssl_c_ca_err_depth] %%[ssl_c_verify] %%[ssl_fc_is_resumed]"
                    """.formatted(i, ports[i], dir.resolve("server.pem"), dir.resolve("ca.pem"), BINDS[i]));
        }
        return sb.toString();
    }

    static List<String> run(boolean haproxy) throws Exception {
        int[] ports = new int[BINDS.length];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Ports.free();
        }
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(ports), ports[0])) {
            for (int i = 0; i < BINDS.length; i++) {
                for (String c : CERTS) {
                    String crt = dir.resolve(c + ".crt").toString();
                    String key = dir.resolve(c + ".key").toString();
                    Sluice.Result r = TlsTest.exec(List.of("curl", "-sS", "--http1.1", "-k", "--cert", crt, "--key", key,
                            "https://127.0.0.1:" + ports[i] + "/"), null);
                    // curl names the alert it got: "... alert certificate expired", "... alert unknown ca"
                    String said = r.exitCode() == 0 ? r.output() : r.output().replaceAll("(?s).*(alert [a-z ]+).*", "$1").strip();
                    out.add(BINDS[i] + " / " + c + ": " + r.exitCode() + " " + said);
                }
            }
            for (String v : new String[] {"1.2", "1.3"}) {
                // two connections of one curl: the second resumes the first's session, whose certificate had an ignored error
                String url = "https://127.0.0.1:" + ports[1] + "/";
                Sluice.Result r = TlsTest.exec(List.of("curl", "-sS", "--http1.1", "-k", "--tls-max", v, "--tlsv" + v, "--cert",
                        dir.resolve("expired.crt").toString(), "--key", dir.resolve("expired.key").toString(), "-H", "Connection: close", url,
                        url), null);
                out.add("tls" + v + " resumed: " + r.exitCode() + " " + r.output().replace("\n", " | "));
            }
            Daemon.sleep(300);
            // log lines are written as connections end, which two connections of one curl may do in either order: sorted
            List<String> logs = new ArrayList<>();
            for (String line : d.output().lines().toList()) {
                // the access lines, and the embryonic ones without their client port and date
                if (line.matches("^f\\d~? .*")) {
                    logs.add("log " + line);
                } else if (line.contains("] f") && line.contains("/1: ")) {
                    logs.add("log " + line.replaceAll("^.*\\] (f\\d+/1: .*)$", "$1"));
                }
            }
            logs.sort(null);
            out.addAll(logs);
        }
        return out;
    }

    @Test
    void ignoredErrorsAndTheirFetchesAreHaproxys() throws Exception {
        List<String> sluice = run(false);
        assertThat(sluice).contains(
                "verify optional / good: 0 0 0 0 0 0",
                "verify optional / expired: 56 alert certificate expired",
                "verify optional crt-ignore-err all ca-ignore-err all / expired: 0 10 0 0 10 0",
                "verify optional crt-ignore-err all ca-ignore-err all / self: 0 18 0 0 18 0",
                "verify optional crt-ignore-err all ca-ignore-err all / unknown: 0 20 0 0 21 0",
                "verify optional crt-ignore-err all ca-ignore-err all / unknownchain: 0 0 19 1 19 0",
                "log f0/1: SSL client certificate not trusted",
                "log f0/1: SSL client CA chain cannot be verified",
                "log f1~ 10 0 0 10 1");
        Program.HAPROXY.require();
        List<String> haproxy = run(true);
        assertThat(sluice).as("HAProxy 2.6").containsExactlyElementsOf(haproxy);
    }
}

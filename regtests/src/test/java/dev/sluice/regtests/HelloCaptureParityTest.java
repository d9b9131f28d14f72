package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * {@code tune.ssl.capture-buffer-size} and the fetches of the client hello it keeps ({@code ssl_fc_protocol_hello_id},
 * {@code ssl_fc_cipherlist_bin|hex|str|xxh}, {@code ssl_fc_extlist_bin}, {@code ssl_fc_eclist_bin},
 * {@code ssl_fc_ecformats_bin}: what JA3 fingerprints are made of) against HAProxy 2.6, for the hellos of curl (OpenSSL,
 * TLS 1.3 and 1.2 with chosen ciphers and groups) and of the JDK, with room for all of a hello and with 40 bytes (the
 * lists cut where the room ends); and no sample without the capture or without TLS.
 */
class HelloCaptureParityTest {

    private static final String FIELDS = "v=%[ssl_fc_protocol_hello_id] xxh=%[ssl_fc_cipherlist_xxh] c=%[ssl_fc_cipherlist_bin,hex] "
            + "cg=%[ssl_fc_cipherlist_bin(1),be2dec(-,2)] h=%[ssl_fc_cipherlist_hex] s=%[ssl_fc_cipherlist_str] "
            + "e=%[ssl_fc_extlist_bin,be2dec(-,2)] eg=%[ssl_fc_extlist_bin(1),be2dec(-,2)] g=%[ssl_fc_eclist_bin(1),be2dec(-,2)] "
            + "f=%[ssl_fc_ecformats_bin,be2dec(-,1)] xl=%[ssl_fc_extlist_bin,length]";

    private static List<String> run(boolean haproxy, int capture, TestPki.Issued cert, TestPki pki) throws Exception {
        int tls = Ports.free();
        int plain = Ports.free();
        String cfg = """
                global
                    %s
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d ssl crt %s alpn http/1.1
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain lf-string "%s\\n"
                """.formatted(capture > 0 ? "tune.ssl.capture-buffer-size " + capture : "", tls, cert.pem(), plain, FIELDS);
        try (Daemon d = Daemon.start(haproxy, cfg, tls)) {
            String url = "https://cap.test:" + tls + "/";
            String resolve = "cap.test:" + tls + ":127.0.0.1";
            List<String> out = new ArrayList<>();
            out.add(Http2Test.run(List.of("curl", "-sS", "-k", "--resolve", resolve, "--http1.1", "--tlsv1.3", url)));
            out.add(Http2Test.run(List.of("curl", "-sS", "-k", "--resolve", resolve, "--http1.1", "--tlsv1.2", "--tls-max", "1.2",
                    "--ciphers", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:AES128-SHA", "--curves", "X25519:P-256:P-384",
                    url)));
            out.add(jdk(tls, pki));
            out.add(Http2Test.run(List.of("curl", "-sS", "http://127.0.0.1:" + plain + "/")));
            return out;
        }
    }

    /** A request from the JDK's TLS client (its own hello: another cipher and extension order, more groups). */
    private static String jdk(int port, TestPki pki) throws Exception {
        try (SSLSocket s = (SSLSocket) pki.clientContext().getSocketFactory().createSocket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            s.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            OutputStream o = s.getOutputStream();
            o.write("GET / HTTP/1.1\r\nHost: cap.test\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return all.substring(all.indexOf("\r\n\r\n") + 4);
        }
    }

    @Test
    void helloFetchesAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        Program.CURL.require();
        TestPki pki = new TestPki("cap-ca");
        TestPki.Issued cert = pki.leaf("cap.test");
        for (int capture : new int[] {4096, 40, 0}) {
            List<String> theirs = run(true, capture, cert, pki);
            List<String> ours = run(false, capture, cert, pki);
            assertThat(ours).as("capture %d: Sluice against HAProxy", capture).isEqualTo(theirs);
            if (capture == 4096) {
                // what HAProxy answered for curl's TLS 1.2 hello: the three ciphers asked for and the renegotiation SCSV
                assertThat(theirs.get(1)).contains("v=771 ", "s=ECDHE-RSA-AES128-GCM-SHA256,ECDHE-ECDSA-AES256-GCM-SHA384,AES128-SHA,"
                        + "TLS_EMPTY_RENEGOTIATION_INFO_SCSV ", " g=29-23-24 ");
                assertThat(theirs.get(0)).contains(" s=TLS_AES_256_GCM_SHA384,");
            } else if (capture == 40) {
                // the cipher list takes what it needs of the 40 bytes, the extension ids the rest
                assertThat(theirs.get(2)).matches("(?s).* xl=\\d+\\n");
            } else {
                assertThat(theirs.get(0)).startsWith("v= xxh= c= cg= h= s= e= eg= g= f= xl=");
            }
            assertThat(theirs.get(3)).startsWith("v= xxh= c= ");
        }
    }
}

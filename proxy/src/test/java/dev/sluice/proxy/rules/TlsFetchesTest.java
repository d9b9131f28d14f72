package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.tls.TlsSession;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TLS session fetches over a transaction's client and server sessions: no sample (or false) in clear text, the
 * client's chain without its own certificate in ssl_c_chain_der and the server's whole chain in ssl_s_chain_der, the
 * bind's own certificate, ssl_fc_has_crt false on a resumed session, key sizes from the suite, the argument checks of the
 * DN fetches and the phases: ssl_bc_* not in request rules. The formats themselves: tls.CertFieldsTest, regtests.ClientCertTest.
 */
class TlsFetchesTest {
    static X509Certificate leaf;
    static X509Certificate inter;
    static X509Certificate local;

    @BeforeAll
    static void certificates() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair kp = g.generateKeyPair();
        leaf = cert("CN=client,O=Acme", "CN=Inter", kp);
        inter = cert("CN=Inter", "CN=Root", kp);
        local = cert("CN=front.test", "CN=Root", kp);
    }

    static X509Certificate cert(String subject, String issuer, KeyPair kp) throws Exception {
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name(issuer), BigInteger.valueOf(258), new Date(0),
                new Date(2_000_000_000_000L), new X500Name(subject), kp.getPublic());
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate())));
    }

    /** An SSLSession answering what the fetches ask: the peer's and this side's certificates, the id. */
    static SSLSession session(Certificate[] peer, Certificate[] mine, byte[] id) {
        return (SSLSession) Proxy.newProxyInstance(TlsFetchesTest.class.getClassLoader(), new Class<?>[] {SSLSession.class}, (p, m, a) -> switch (m.getName()) {
            case "getPeerCertificates" -> {
                if (peer.length == 0) {
                    throw new SSLPeerUnverifiedException("none");
                }
                yield peer.clone();
            }
            case "getLocalCertificates" -> mine;
            case "getId" -> id;
            case "hashCode" -> 1;
            case "equals" -> p == a[0];
            case "toString" -> "session";
            default -> null;
        });
    }

    static Object eval(String expr, Txn t) {
        return RuleCompiler.sample(expr).get(t);
    }

    static byte[] der(X509Certificate... cs) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (X509Certificate c : cs) {
            out.writeBytes(c.getEncoded());
        }
        return out.toByteArray();
    }

    @Test
    void clearTextHasNoSample() {
        FakeTxn t = new FakeTxn("GET", "/");
        for (String f : new String[] {"ssl_c_used", "ssl_c_verify", "ssl_c_s_dn", "ssl_f_s_dn", "ssl_fc_has_crt", "ssl_fc_use_keysize",
            "ssl_fc_session_id", "ssl_fc_session_key", "ssl_fc_has_early", "ssl_bc_protocol", "ssl_bc_session_key", "ssl_bc_cipher", "ssl_bc_err", "ssl_s_s_dn", "ssl_s_chain_der"}) {
            assertThat(eval(f, t)).as(f).isNull();
        }
        assertThat(eval("ssl_bc", t)).isEqualTo(false);
        assertThat(eval("ssl_bc_is_resumed", t)).isEqualTo(false);
        assertThat(eval("ssl_fc_is_resumed", t)).isEqualTo(false);
    }

    @Test
    void clientFrontendAndServerCertificates() throws Exception {
        FakeTxn t = new FakeTxn("GET", "/");
        t.tls = new TlsSession("TLSv1.3", "TLS_AES_256_GCM_SHA384", "h2", null, false,
                session(new Certificate[] {leaf, inter}, new Certificate[] {local}, new byte[0]));
        t.serverTls = new TlsSession("TLSv1.2", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "http/1.1", "back", true,
                session(new Certificate[] {local, inter}, null, new byte[] {1, 2, 3}));
        assertThat(eval("ssl_c_used", t)).isEqualTo(true);
        assertThat(eval("ssl_fc_has_crt", t)).isEqualTo(true);
        assertThat(eval("ssl_c_verify", t)).isEqualTo(0L);
        assertThat(eval("ssl_c_s_dn", t).toString()).isEqualTo("/CN=client/O=Acme");
        assertThat(eval("ssl_c_s_dn(o)", t).toString()).isEqualTo("Acme");
        assertThat(eval("ssl_c_s_dn(,0,rfc2253)", t).toString()).isEqualTo("O=Acme,CN=client");
        assertThat(eval("ssl_c_i_dn", t).toString()).isEqualTo("/CN=Inter");
        assertThat(eval("ssl_c_serial,hex", t).toString()).isEqualTo("0102");
        assertThat((byte[]) eval("ssl_c_chain_der", t)).isEqualTo(der(inter));
        assertThat((byte[]) eval("ssl_c_der", t)).isEqualTo(der(leaf));
        assertThat(eval("ssl_f_s_dn", t).toString()).isEqualTo("/CN=front.test");
        assertThat(eval("ssl_f_version", t)).isEqualTo(3L);
        assertThat(eval("ssl_fc_use_keysize", t)).isEqualTo(256L);
        assertThat(eval("ssl_fc_session_id", t)).isNull();
        assertThat(eval("ssl_fc_has_early", t)).isEqualTo(false);
        assertThat(eval("ssl_fc_npn", t)).isNull();
        assertThat(eval("ssl_bc_npn", t)).isNull();
        // the server connection
        assertThat(eval("ssl_bc", t)).isEqualTo(true);
        assertThat(eval("ssl_bc_protocol", t).toString()).isEqualTo("TLSv1.2");
        assertThat(eval("ssl_bc_alpn", t).toString()).isEqualTo("http/1.1");
        assertThat(eval("ssl_bc_is_resumed", t)).isEqualTo(true);
        assertThat(eval("ssl_bc_use_keysize", t)).isEqualTo(112L);
        assertThat(eval("ssl_bc_alg_keysize", t)).isEqualTo(168L);
        assertThat((byte[]) eval("ssl_bc_session_id", t)).containsExactly(1, 2, 3);
        assertThat(eval("ssl_s_s_dn(CN)", t).toString()).isEqualTo("front.test");
        assertThat((byte[]) eval("ssl_s_chain_der", t)).isEqualTo(der(local, inter));
        // without BoringSSL's engine (here: none), no random nor secret
        assertThat(eval("ssl_bc_client_random", t)).isNull();
        assertThat(eval("ssl_fc_session_key", t)).isNull();
        // no certificate from the client; a resumed session ran no verification
        t.tls = new TlsSession("TLSv1.3", "TLS_CHACHA20_POLY1305_SHA256", null, null, true, session(new Certificate[0], null, null));
        assertThat(eval("ssl_c_used", t)).isEqualTo(false);
        assertThat(eval("ssl_c_s_dn", t)).isNull();
        assertThat(eval("ssl_c_chain_der", t)).isNull();
        assertThat(eval("ssl_fc_alg_keysize", t)).isEqualTo(256L);
        t.tls = new TlsSession("TLSv1.3", "TLS_AES_128_GCM_SHA256", null, null, true, session(new Certificate[] {leaf, inter}, null, null));
        assertThat(eval("ssl_c_used", t)).isEqualTo(true);
        assertThat(eval("ssl_fc_has_crt", t)).isEqualTo(false);
        assertThat(eval("ssl_c_chain_der", t)).isNull();
    }

    @Test
    void dnArgumentsAndPhases() {
        assertThatThrownBy(() -> RuleCompiler.sample("ssl_c_s_dn(CN,x)")).hasMessageContaining("'x'");
        assertThatThrownBy(() -> RuleCompiler.sample("ssl_f_i_dn(,0,ldap)"))
                .hasMessageContaining("only rfc2253 or a blank value are currently supported as the format argument.");
        RuleCompiler.checkPhase("ssl_c_s_dn(CN)", RuleCompiler.Phase.RESPONSE);
        RuleCompiler.checkPhase("ssl_s_s_dn", RuleCompiler.Phase.REQUEST);
        RuleCompiler.checkPhase("ssl_bc_protocol", RuleCompiler.Phase.RESPONSE);
        assertThatThrownBy(() -> RuleCompiler.checkPhase("ssl_bc", RuleCompiler.Phase.REQUEST))
                .hasMessage("sample fetch 'ssl_bc' may not be reliably used here because it needs 'server-side connection' which is not available here");
    }
}

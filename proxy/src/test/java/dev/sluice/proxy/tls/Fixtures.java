package dev.sluice.proxy.tls;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.ServerTls;
import dev.sluice.config.model.TlsVersion;
import dev.sluice.config.model.Verify;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * What the TLS tests share: one PKI made once per JVM (an RSA CA that signed every server certificate, an
 * unrelated EC CA), writers of it into a test's directory, and builders of the config records and of
 * client contexts.
 */
final class Fixtures {
    private Fixtures() {
    }

    static final TestPki.Issued CA = TestPki.ca("Sluice Test CA", TestPki.rsa());
    static final TestPki.Issued OTHER_CA = TestPki.ca("Unrelated CA", TestPki.ec());
    /** RSA, the default certificate of SNI tests. */
    static final TestPki.Issued DEFAULT = TestPki.leaf(CA, TestPki.rsa(), "default.test", "default.test");
    /** EC P-256, exact names. */
    static final TestPki.Issued A = TestPki.leaf(CA, TestPki.ec(), "a.example.com", "a.example.com", "alias.example.com");
    /** RSA, a wildcard SAN and a CN that is not a SAN. */
    static final TestPki.Issued WILD = TestPki.leaf(CA, TestPki.rsa(), "cn-only.example.net", "*.wild.example.com");
    /** A client certificate (EC) signed by the CA. */
    static final TestPki.Issued CLIENT = TestPki.leaf(CA, TestPki.ec(), "client.test");
    /** A server certificate from the unrelated CA. */
    static final TestPki.Issued STRANGER = TestPki.leaf(OTHER_CA, TestPki.ec(), "a.example.com", "a.example.com");

    /** Writes certificate + PKCS#8 key in one file. */
    static Path combined(Path dir, String name, TestPki.Issued i) {
        return TestPki.write(dir, name, TestPki.cert(i.cert()), TestPki.pkcs8(i.key()));
    }

    static Path caFile(Path dir) {
        return TestPki.write(dir, "ca.pem", TestPki.cert(CA.cert()));
    }

    static Path otherCaFile(Path dir) {
        return TestPki.write(dir, "other-ca.pem", TestPki.cert(OTHER_CA.cert()));
    }

    /** A bind with the given certificates and HAProxy's defaults otherwise. */
    static BindTls bind(Path... crts) {
        return new BindTls(List.of(crts).stream().map(Path::toString).toList(), BindTls.DEFAULT_ALPN, null, null, null, null, null, Verify.NONE,
                true, false, null, false);
    }

    static BindTls with(BindTls t, String field, Object value) {
        return new BindTls(t.certificates(),
                field.equals("alpn") ? castList(value) : t.alpn(),
                field.equals("ciphers") ? (String) value : t.ciphers(),
                field.equals("ciphersuites") ? (String) value : t.ciphersuites(),
                field.equals("min") ? (TlsVersion) value : t.minVersion(),
                field.equals("max") ? (TlsVersion) value : t.maxVersion(),
                field.equals("caFile") ? (String) value : t.caFile(),
                field.equals("verify") ? (Verify) value : t.verify(),
                field.equals("tickets") ? (Boolean) value : t.tickets(),
                field.equals("strictSni") ? (Boolean) value : t.strictSni(),
                field.equals("curves") ? (String) value : t.curves(),
                field.equals("preferClientCiphers") ? (Boolean) value : t.preferClientCiphers());
    }

    @SuppressWarnings("unchecked")
    private static List<String> castList(Object o) {
        return (List<String>) o;
    }

    static ServerTls server(Verify verify, String caFile, List<String> alpn, String crt, TlsVersion max, boolean reuse) {
        return new ServerTls(verify, caFile, null, alpn, crt, null, null, null, max, reuse);
    }

    /** The global section with these session cache settings, through the real parser. */
    static Global global(int cacheSize, String lifetime) {
        return parse("global\n    tune.ssl.cachesize " + cacheSize + "\n    tune.ssl.lifetime " + lifetime + "\n").global();
    }

    static Global global() {
        return global(20000, "300s");
    }

    static Config parse(String text) {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(k -> null, Set.of("OPENSSL"), "3.2"))
                .parse(List.of(new ConfigParser.Source("test.cfg", text)));
        if (!r.ok()) {
            throw new IllegalStateException("config does not parse: " + r.diagnostics());
        }
        return r.config();
    }

    /** A test client on BoringSSL trusting the test CA, without host name checks, offering {@code alpn} (none when empty). */
    static SslContextBuilder client(String... alpn) {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL).trustManager(CA.cert())
                .endpointIdentificationAlgorithm(null);
        if (alpn.length > 0) {
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
        }
        return b;
    }

    static TlsContexts contexts(Global g) {
        return new TlsContexts(g, TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()));
    }

    static ServerTlsContext serverContext(BindTls t) {
        return serverContext(t, global());
    }

    static ServerTlsContext serverContext(BindTls t, Global g) {
        return ServerTlsContext.build(t, g, TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()), w -> {
        });
    }
}

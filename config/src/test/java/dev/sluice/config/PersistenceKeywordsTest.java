package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Cookie;
import dev.sluice.config.model.Proxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code cookie}, {@code dynamic-cookie-key} and the server's {@code cookie}, with HAProxy 2.6's messages. */
class PersistenceKeywordsTest {

    @Test
    void noCookieByDefault() {
        assertThat(backendOf("server s1 127.0.0.1:80").cookie()).isNull();
        assertThat(backendOf("server s1 127.0.0.1:80").servers().getFirst().cookie()).isNull();
    }

    @Test
    void everyOptionIsRead() {
        Proxy be = backendOf("""
                cookie SRV insert indirect nocache postonly preserve httponly secure domain .a.com domain .b.com maxidle 30m maxlife 8h dynamic attr SameSite=Lax attr x=y
                dynamic-cookie-key k3y
                server s1 127.0.0.1:80 cookie a1
                server s2 127.0.0.1:81
                """);
        Cookie c = be.cookie();
        assertThat(c.name()).isEqualTo("SRV");
        assertThat(c.mode()).isEqualTo(Cookie.Mode.INSERT);
        assertThat(c.indirect() && c.nocache() && c.postonly() && c.preserve() && c.httponly() && c.secure() && c.dynamic()).isTrue();
        assertThat(c.domain()).isEqualTo(".a.com; domain=.b.com");
        assertThat(c.maxIdle()).isEqualTo(1800);
        assertThat(c.maxLife()).isEqualTo(8 * 3600);
        assertThat(c.attrs()).isEqualTo("SameSite=Lax; x=y");
        assertThat(c.dynamicKey()).isEqualTo("k3y");
        assertThat(c.logsFlags()).isTrue();
        assertThat(be.servers().get(0).cookie()).isEqualTo("a1");
        assertThat(be.servers().get(1).cookie()).isNull();
    }

    @Test
    void modesAndTheLogFlags() {
        assertThat(backendOf("cookie SRV").cookie().mode()).isEqualTo(Cookie.Mode.PASSIVE);
        assertThat(backendOf("cookie SRV").cookie().logsFlags()).isFalse();
        assertThat(backendOf("cookie SRV indirect").cookie().logsFlags()).isTrue();
        assertThat(backendOf("cookie SRV rewrite").cookie().mode()).isEqualTo(Cookie.Mode.REWRITE);
        assertThat(backendOf("cookie JSESSIONID prefix indirect").cookie().mode()).isEqualTo(Cookie.Mode.PREFIX);
    }

    @Test
    void maxidleAndMaxlifeAreSecondsRoundedUp() {
        assertThat(backendOf("cookie S insert maxidle 30").cookie().maxIdle()).isEqualTo(30);
        assertThat(backendOf("cookie S insert maxidle 1ms").cookie().maxIdle()).isEqualTo(1);
        assertThat(backendOf("cookie S insert maxidle 1500ms").cookie().maxIdle()).isEqualTo(2);
        assertThat(backendOf("cookie S insert maxlife 2d").cookie().maxLife()).isEqualTo(172800);
        assertThat(backendOf("cookie S insert maxlife 0").cookie().maxLife()).isZero();
    }

    @Test
    void aLaterLineStartsOverButAttributesPileUp() {
        Cookie c = backendOf("cookie A insert indirect domain .a.com maxidle 10 attr x=1\ncookie B prefix attr y=2").cookie();
        assertThat(c.name()).isEqualTo("B");
        assertThat(c.mode()).isEqualTo(Cookie.Mode.PREFIX);
        assertThat(c.indirect()).isFalse();
        assertThat(c.domain()).isNull();
        assertThat(c.maxIdle()).isZero();
        assertThat(c.attrs()).isEqualTo("x=1; y=2");
    }

    @Test
    void defaultsPassTheCookieAndTheKeyOn() {
        var cfg = Configs.valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    cookie SRV insert indirect nocache\n"
                + "    dynamic-cookie-key s\n    default-server cookie zz\n") + """
                frontend fe
                    bind :8080
                    default_backend be
                backend be
                    server s1 127.0.0.1:80
                """);
        Proxy be = Configs.proxy(cfg, "be");
        assertThat(be.cookie().name()).isEqualTo("SRV");
        assertThat(be.cookie().dynamicKey()).isEqualTo("s");
        assertThat(be.servers().getFirst().cookie()).isEqualTo("zz");
        assertThat(Configs.proxy(cfg, "fe").cookie()).isNull();
    }

    @Test
    void inAFrontendItIsIgnoredWithHaproxysWarning() {
        var r = parse(Configs.inFrontend("cookie SRV insert"));
        assertThat(r.ok()).isTrue();
        assertThat(Configs.warnings(r)).singleElement()
                .satisfies(d -> assertThat(d.message()).isEqualTo("'cookie' ignored because frontend 'fe' has no backend capability."));
        assertThat(Configs.proxy(r.config(), "fe").cookie()).isNull();
    }

    @Test
    void aDomainWithoutDotIsWarnedAbout() {
        var r = parse(inBackend("cookie S insert domain local"));
        assertThat(r.ok()).isTrue();
        assertThat(Configs.warnings(r)).singleElement().satisfies(d -> assertThat(d.message())
                .isEqualTo("domain 'local' contains no embedded dot, this configuration may not work properly (see RFC6265#5.2.3)."));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "cookie                             => 'cookie' expects <cookie_name> as argument.",
            "cookie S rewrite indirect          => cookie 'rewrite' and 'indirect' modes are incompatible.",
            "cookie S rewrite insert            => cookie 'rewrite', 'insert' and 'prefix' modes are incompatible.",
            "cookie S insert prefix             => cookie 'rewrite', 'insert' and 'prefix' modes are incompatible.",
            "cookie S preserve                  => cookie 'preserve' requires at least 'insert' or 'indirect'.",
            "cookie S insert bogus              => 'cookie' supports 'rewrite', 'insert', 'prefix', 'indirect', 'nocache', 'postonly', 'domain', 'maxidle', 'dynamic', 'maxlife' and 'attr' options.",
            "cookie S insert domain             => 'domain' expects <domain> as argument.",
            "cookie S insert domain a,b.com     => character ',' is not permitted in domain name 'a,b.com'.",
            "cookie S insert maxidle            => 'maxidle' expects <idletime> in seconds as argument.",
            "cookie S insert maxlife            => 'maxlife' expects <lifetime> in seconds as argument.",
            "cookie S insert maxidle 10x        => unexpected character 'x' in argument to <maxidle>.",
            "cookie S insert maxidle 3000000000 => timer overflow in argument <3000000000> to <maxidle>, maximum value is 2147483647 s (~68 years).",
            "`cookie S insert attr \"a;b\"`     => character '%x3B' is not permitted in attribute value.",
            "dynamic-cookie-key                 => 'dynamic-cookie-key' expects <secret_key> as argument.",
            "server s1 127.0.0.1:80 cookie      => 'server' : server 's1' : 'cookie' expects <value> as argument.",
    })
    void errorsAsHaproxy(String line, String message) {
        assertThat(assertSingleError(parse(inBackend(line)), BACKEND_LINE, message).message()).isEqualTo(message);
    }
}

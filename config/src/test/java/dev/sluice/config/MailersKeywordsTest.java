package dev.sluice.config;

import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.EmailAlert;
import org.junit.jupiter.api.Test;

/** The {@code mailers} section and {@code email-alert}, with HAProxy 2.6.12's messages (haproxy -c). */
class MailersKeywordsTest {

    @Test
    void aProxyGetsItsMailersFromDefaultsAndTheSection() {
        Config c = valid(Configs.DEFAULTS + """
                    email-alert mailers mx
                    email-alert from haproxy@example.com
                mailers mx
                    mailer smtp1 127.0.0.1:2525
                    mailer smtp2 [::1]:25
                    timeout mail 3s
                backend be
                    email-alert to ops@example.com
                    email-alert level notice
                    email-alert myhostname lb1
                """);
        EmailAlert a = Configs.proxy(c, "be").emailAlert();
        assertThat(a.section()).isEqualTo("mx");
        assertThat(a.from()).isEqualTo("haproxy@example.com");
        assertThat(a.to()).isEqualTo("ops@example.com");
        assertThat(a.level()).isEqualTo(5);
        assertThat(a.myhostname()).isEqualTo("lb1");
        assertThat(a.timeoutMs()).isEqualTo(3000);
        // HAProxy links the mailers backwards
        assertThat(a.mailers()).extracting(EmailAlert.Mailer::name, EmailAlert.Mailer::host, EmailAlert.Mailer::port)
                .containsExactly(tuple("smtp2", "::1", 25), tuple("smtp1", "127.0.0.1", 2525));
    }

    @Test
    void defaultsOfTheSettings() {
        Config c = valid(Configs.DEFAULTS + """
                mailers mx
                    mailer smtp1 127.0.0.1:2525
                backend be
                    email-alert mailers mx
                    email-alert from a@b
                    email-alert to c@d
                """);
        EmailAlert a = Configs.proxy(c, "be").emailAlert();
        assertThat(a.level()).isEqualTo(1);
        assertThat(a.myhostname()).isNull();
        assertThat(a.timeoutMs()).isEqualTo(10_000);
    }

    @Test
    void sectionLinesAreCheckedAsHaproxyDoes() {
        var r = parse(Configs.DEFAULTS + """
                    email-alert level bogus
                    email-alert foo bar
                mailers mx
                    mailer a 127.0.0.1
                    mailer b 127.0.0.1:abc
                    mailer c% 127.0.0.1:25
                    timeout mail
                    timeout foo 1s
                    timeout mail 2x
                    bogus 1
                mailers mx
                """);
        assertThat(Configs.errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(6, "unknown log level 'level' after 'bogus'"),
                tuple(7, "email-alert: unknown argument 'foo'."),
                tuple(9, "'mailer a' : missing port specification in '127.0.0.1'"),
                tuple(10, "'mailer b' : invalid character 'a' in port number 'abc' in '127.0.0.1:abc'"),
                tuple(11, "character '%' is not permitted in server name 'c%'."),
                tuple(12, "'timeout mail' expects <time> as argument."),
                tuple(13, "'timeout' expects 'mail' and <time> as arguments got 'foo'."),
                tuple(14, "unexpected character 'x' in argument to <timeout mail>."),
                tuple(15, "unknown keyword 'bogus' in 'mailers' section"),
                tuple(16, "mailers section 'mx' has the same name as another mailers section declared at test.cfg:8."));
    }

    @Test
    void anUnknownSectionIsAnErrorAnIncompleteSettingAWarning() {
        var r = parse(Configs.DEFAULTS + """
                mailers mx
                    mailer a 127.0.0.1:2525
                backend be
                    email-alert mailers nope
                    email-alert from a@b
                    email-alert to c@d
                backend be2
                    email-alert from a@b
                listen li
                    bind :9999
                    email-alert level info
                """);
        assertThat(Configs.errors(r)).extracting(Diagnostic::line, Diagnostic::message)
                .containsExactly(tuple(8, "Proxy 'be': unable to find mailers 'nope'."));
        String ignored = " (the presence any of 'email-alert from', 'email-alert level' 'email-alert mailers', 'email-alert myhostname', or"
                + " 'email-alert to' requires each of 'email-alert from', 'email-alert mailers' and 'email-alert to' to be present).";
        assertThat(Configs.warnings(r)).extracting(Diagnostic::message).contains(
                "'email-alert' will be ignored for backend 'be2'" + ignored,
                "'email-alert' will be ignored for proxy 'li'" + ignored,
                "Removing incomplete section 'mailers mx'.");
    }
}

package dev.sluice.proxy.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CryptTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The test vectors of the SHA-crypt specification (the "rounds too low" ones clamp to 1000). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "$6$saltstring|Hello world!|$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
            "$6$rounds=10000$saltstringsaltstring|Hello world!|$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.",
            "$6$rounds=5000$toolongsaltstring|This is just a test|$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0",
            "$6$rounds=10$roundstoolow|the minimum number is still observed|$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.",
            "$5$saltstring|Hello world!|$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5",
            "$5$rounds=10000$saltstringsaltstring|Hello world!|$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA",
            "$5$rounds=5000$toolongsaltstring|This is just a test|$5$rounds=5000$toolongsaltstrin$Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5",
            "$5$rounds=10$roundstoolow|the minimum number is still observed|$5$rounds=1000$roundstoolow$yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC",
    })
    void specificationVectors(String setting, String password, String expected) {
        assertThat(Crypt.crypt(b(password), setting)).isEqualTo(expected);
        assertThat(Crypt.verify(b(password), expected)).isTrue();
        assertThat(Crypt.verify(b(password + "x"), expected)).isFalse();
    }

    /** Hashes made by glibc/libxcrypt crypt(3) and openssl passwd: long passwords, 16-character salts, empty ones, UTF-8. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "secret|$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1",
            "secret|$5$saltsalt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA",
            "secret|$1$saltsalt$9xy1btjgzLYfb7hivXtC//",
            "x|$1$$LP5.V3ajGqHDdXW6XwZQy.",
            "|$6$$/chiBau24cE26QQVW3IfIe68Xu5.JQ4E8Ie7lcRLwqxO5cxGuBhqF2HmTL.zWJ9zjChg3yJYFXeGBQ2y3Ba1d1",
            "päss|$1$12345678$68oBw8JKveyYdt.ZQmCas1",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa|$1$ab$cU148AGxT4doatxfHOrbD1",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa|$5$rounds=1001$0123456789abcdef$EMk7A7teaP4GOywC86BaalQy9huM6OvsJOk0zpbz6R.",
    })
    void systemCryptHashes(String password, String hash) {
        String pw = password == null ? "" : password;
        assertThat(Crypt.crypt(b(pw), hash)).isEqualTo(hash);
        assertThat(Crypt.verify(b(pw), hash)).isTrue();
    }

    /** Long passwords cross several digest blocks (200 bytes > 64). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "$6$rounds=1000$x$fVLi8cEZxgYW8bX.UvkmZehAB8d8rZOZB5nLt2V29jlsd5G0kWjwYFywT0fuv24L477coyRxrQ3YTzl.lbg3K1"})
    void longPassword(String hash) {
        assertThat(Crypt.verify(b("a".repeat(200)), hash)).isTrue();
        assertThat(Crypt.verify(b("a".repeat(199)), hash)).isFalse();
    }

    /** Whatever openssl on this machine makes for a fresh salt, Sluice verifies (skipped without openssl). */
    @ParameterizedTest
    @CsvSource({"-6", "-5", "-1"})
    void opensslPasswd(String method) throws IOException, InterruptedException {
        String salt = Long.toString(System.nanoTime(), 36).substring(0, 8);
        Process p;
        try {
            p = new ProcessBuilder("openssl", "passwd", method, "-salt", salt, "Sluice!pw").redirectErrorStream(true).start();
        } catch (IOException e) {
            org.junit.jupiter.api.Assumptions.abort("openssl is not installed");
            return;
        }
        String hash = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertThat(p.waitFor()).isZero();
        assertThat(hash).startsWith("$" + method.substring(1) + "$" + salt + "$");
        assertThat(Crypt.verify(b("Sluice!pw"), hash)).isTrue();
        assertThat(Crypt.verify(b("Sluice!pW"), hash)).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"$2y$10$abcdefghijklmnopqrstuu5Jp7m/dpOSmR4xJgNd4QUovX2I.OZd6", "abJnggxhB/yWI", "$y$j9T$abc$def"})
    void otherFormatsNeverVerify(String hash) {
        assertThat(Crypt.crypt(b("x"), hash)).isNull();
        assertThat(Crypt.verify(b("x"), hash)).isFalse();
    }
}

package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import org.junit.jupiter.api.Test;

/**
 * {@code tune.http.logurilen}: HAProxy keeps the request line for the log in that many bytes (default 1024, with its
 * final NUL) and reads {@code %HM}, {@code %HU} and {@code %HV} from what it kept: a long target loses its end and the
 * version. The lines below are what HAProxy 2.6 logs for the same requests.
 */
class LogUriLengthTest {
    private static String logged(String global, String path) {
        return logged(global, path, "%r|%HM|%HU|%HV|%HP");
    }

    private static String logged(String global, String path, String format) {
        try (LogCatcher log = new LogCatcher(); EmbeddedProxy proxy = EmbeddedProxy.of("""
                global
                %s
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:8080
                    %s
                    log-format "%s"
                    http-request return status 200
                """.formatted(global.indent(4), log.logLine(), format))) {
            EmbeddedProxy.Channel client = proxy.h1Client();
            client.receive("GET " + path + " HTTP/1.1\r\nhost: a\r\n\r\n");
            return log.next();
        }
    }

    @Test
    void theLogKeepsWhatTheLengthAllows() {
        assertThat(logged("tune.http.logurilen 20", "/short")).isEqualTo("GET /short HTTP/1.1|GET|/short|HTTP/1.1|/short");
        assertThat(logged("tune.http.logurilen 20", "/a/much/longer/path")).isEqualTo("GET /a/much/longer/p|GET|/a/much/longer/p|HTTP/0.9"
                + "|/a/much/longer/p");
        assertThat(logged("tune.http.logurilen 20", "/a/b?q=1234567890")).isEqualTo("GET /a/b?q=123456789|GET|/a/b?q=123456789|HTTP/0.9"
                + "|/a/b");
        assertThat(logged("tune.http.logurilen 20", "/abcdefghij12")).isEqualTo("GET /abcdefghij12 HT|GET|/abcdefghij12|HT|/abcdefghij12");
        // by default 1023 bytes are kept: a 1100-byte target loses the version (the log line itself is cut at 1024)
        String path = "/" + "x".repeat(1100);
        assertThat(logged("nbthread 1", path, "%HV %[str(x)]")).isEqualTo("HTTP/0.9 x");
        assertThat(logged("nbthread 1", "/" + "x".repeat(1000), "%HV")).isEqualTo("HTTP/1.1");
    }
}

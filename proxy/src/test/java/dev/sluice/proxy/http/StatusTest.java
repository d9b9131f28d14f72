package dev.sluice.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reason phrases as HAProxy's {@code http_get_reason} gives them, with its class fallbacks. */
class StatusTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"100|Continue", "101|Switching Protocols", "200|OK", "204|No Content", "302|Found",
        "304|Not Modified", "400|Bad Request", "403|Forbidden", "407|Proxy Authentication Required", "408|Request Time-out",
        "413|Request Entity Too Large", "414|Request-URI Too Long", "418|I'm a teapot", "422|Unprocessable Content",
        "425|Too Early", "431|Request Header Fields Too Large", "499|client has closed connection", "500|Internal Server Error",
        "502|Bad Gateway or Proxy Error", "503|Service Unavailable", "504|Gateway Time-out", "506|Variant also negotiate",
        "520|Web server is returning an unknown error",
        // class fallbacks
        "150|Informational", "299|Success", "399|Redirection", "498|Client Error", "599|Server Error", "0|Other", "99|Other",
        "600|Other", "999|Other", "-1|Other", "2147483647|Other"})
    void reasons(int status, String reason) {
        assertThat(Status.reason(status).toString()).isEqualTo(reason);
    }
}

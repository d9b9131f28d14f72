package dev.sluice.proxy.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.LogFormats;
import java.net.InetSocketAddress;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/**
 * {@link LogLine} renders known events in {@code option httplog}'s format to literal lines, field by field as the
 * regtests' AccessLogTest checks them against HAProxy 2.6 (a normal request, a server timeout, a bad request with no
 * backend nor server, a retried and redispatched request over TLS), with no process or socket.
 */
class LogLineTest {
    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final long ACCEPT = ZonedDateTime.of(2026, 12, 5, 9, 16, 24, 123_000_000, UTC).toInstant().toEpochMilli();

    private final LogLine httplog = new LogLine(LogFormats.parse(LogFormats.HTTPLOG), UTC);

    private static LogEvent served() {
        LogEvent e = new LogEvent();
        e.client = new InetSocketAddress("127.0.0.1", 40000);
        e.frontendAddress = new InetSocketAddress("127.0.0.1", 8080);
        e.acceptDate = ACCEPT;
        e.requestDate = ACCEPT + 5;
        e.frontend = "web";
        e.backend = "app";
        e.server = "a1";
        e.serverAddress = new InetSocketAddress("127.0.0.1", 9001);
        e.method = "GET";
        e.uri = "/ok?x=1";
        e.version = "HTTP/1.1";
        e.requestLine = "GET /ok?x=1 HTTP/1.1";
        e.status = 200;
        e.bytesOut = 75;
        e.tRequest = 0;
        e.tQueue = 0;
        e.tConnect = 1;
        e.tResponse = 2;
        e.tActive = 4;
        e.actconn = 1;
        e.feconn = 1;
        e.beconn = 1;
        e.srvconn = 1;
        return e;
    }

    @Test
    void aServedRequest() {
        assertThat(httplog.render(served())).isEqualTo(
                "127.0.0.1:40000 [05/Dec/2026:09:16:24.128] web app/a1 0/0/1/2/4 200 75 - - ---- 1/1/1/1/0 0/0 \"GET /ok?x=1 HTTP/1.1\"");
    }

    @Test
    void aServerTimeout() {
        LogEvent e = served();
        e.status = 504;
        e.bytesOut = 195;
        e.tResponse = -1;
        e.tActive = 3001;
        e.cause = 's';
        e.state = 'H';
        e.requestLine = "GET /slow HTTP/1.1";
        e.error = true;
        assertThat(httplog.render(e)).isEqualTo(
                "127.0.0.1:40000 [05/Dec/2026:09:16:24.128] web app/a1 0/0/1/-1/3001 504 195 - - sH-- 1/1/1/1/0 0/0 \"GET /slow HTTP/1.1\"");
    }

    @Test
    void aBadRequestHasNeitherBackendNorServer() {
        LogEvent e = new LogEvent();
        e.client = new InetSocketAddress("127.0.0.1", 40001);
        e.frontendAddress = new InetSocketAddress("127.0.0.1", 8080);
        e.acceptDate = ACCEPT;
        e.requestDate = ACCEPT;
        e.frontend = "web";
        e.requestLine = "<BADREQ>";
        e.status = 400;
        e.tActive = 0;
        e.cause = 'P';
        e.state = 'R';
        e.actconn = 1;
        e.feconn = 1;
        e.error = true;
        assertThat(httplog.render(e)).isEqualTo(
                "127.0.0.1:40001 [05/Dec/2026:09:16:24.123] web web/<NOSRV> -1/-1/-1/-1/0 400 0 - - PR-- 1/1/0/0/0 0/0 \"<BADREQ>\"");
    }

    @Test
    void aRetriedRedispatchedRequestOverTls() {
        LogEvent e = served();
        e.frontendTls = true;
        e.retries = 1;
        e.redispatched = true;
        e.serverQueue = 0;
        e.backendQueue = 2;
        assertThat(httplog.render(e)).isEqualTo(
                "127.0.0.1:40000 [05/Dec/2026:09:16:24.128] web~ app/a1 0/0/1/2/4 200 75 - - ---- 1/1/1/1/+1 0/2 \"GET /ok?x=1 HTTP/1.1\"");
    }

    /** The log-format keywords of HAProxy 2.6.0 (src/log.c, logformat_keywords[]). */
    private static final String HAPROXY_26 = "o B CC CS H ID ST T Ta Tc Th Ti Tl Tq Tr TR Td Ts Tt Tu Tw U ac b bc bi bp bq ci cp f fc fi fp ft"
            + " hr hrl hs hsl HM HP HPO HQ HU HV lc ms pid r rc rt s sc si sp sq sslc sslv t tr trg trl ts tsc";

    @Test
    void everyHaproxy26VariableIsKnown() {
        for (String k : HAPROXY_26.split(" ")) {
            assertThat(LogFormats.VARIABLES).as("%" + k).contains(k);
            LogFormats.parse("%" + k);
        }
    }

    @Test
    void aBadRequestHasNoRequestLineParts() {
        // HAProxy 2.6's sess_build_logline without a transaction: every part of the request line says <BADREQ>
        LogEvent e = served();
        e.method = null;
        e.uri = null;
        e.version = null;
        e.requestLine = "<BADREQ>";
        LogLine l = new LogLine(LogFormats.parse("%HM|%HU|%HP|%HPO|%HQ|%HV|%r|%{+Q}HQ"), UTC);
        assertThat(l.render(e)).isEqualTo("<BADREQ>|<BADREQ>|<BADREQ>|<BADREQ>|<BADREQ>|<BADREQ>|<BADREQ>|\"<BADREQ>\"");
    }

    @Test
    void anEmptyQueryOrPathIsNothingNotADash() {
        // HAProxy encodes an empty %HQ or %HPO as nothing, and a separator after it still counts
        LogEvent e = served();
        e.uri = "/p";
        LogLine l = new LogLine(LogFormats.parse("a %HQ %HPO %{+Q}HQ b"), UTC);
        assertThat(l.render(e)).isEqualTo("a  /p \"\" b");
        e.uri = "*";
        assertThat(l.render(e)).isEqualTo("a   \"\" b");
        // an authority (CONNECT) has no path
        e.uri = "example.com:443";
        assertThat(new LogLine(LogFormats.parse("%HPO|%HP"), UTC).render(e)).isEqualTo("|example.com:443");
    }

    @Test
    void theRequestLineIsEncodedAsHaproxys() {
        // url_encode_map: controls, 8-bit bytes, '"' and '#' as #XX with or without +Q; +E puts a '\\' before '\\' and ']'
        LogEvent e = served();
        e.uri = "/a\"b\u00e9]\\";
        e.requestLine = "GET " + e.uri + " HTTP/1.1";
        assertThat(new LogLine(LogFormats.parse("%HU %{+Q}r"), UTC).render(e)).isEqualTo("/a#22b#E9]\\ \"GET /a#22b#E9]\\ HTTP/1.1\"");
        assertThat(new LogLine(LogFormats.parse("%{+E}HU"), UTC).render(e)).isEqualTo("/a#22b#E9\\]\\\\");
    }

    @Test
    void theLineCounter() {
        LogEvent e = served();
        e.logCounter = 26;
        assertThat(new LogLine(LogFormats.parse("%lc %{+X}lc"), UTC).render(e)).isEqualTo("26 001A");
        assertThat(new LogLine(LogFormats.parse("%lc"), UTC).countsLines()).isTrue();
        assertThat(httplog.countsLines()).isFalse();
    }

    @Test
    void requestVariablesAsHaproxy() {
        LogEvent e = served();
        e.uri = "http://example.com/p/q?x=1";
        LogLine l = new LogLine(LogFormats.parse("%HM|%HU|%HP|%HPO|%HQ|%HV|%T|%Tl|%Ts|%ms"), java.time.ZoneId.of("Europe/Paris"));
        assertThat(l.render(e)).isEqualTo("GET|http://example.com/p/q?x=1|http://example.com/p/q|/p/q|?x=1|HTTP/1.1"
                + "|05/Dec/2026:09:16:24 +0000|05/Dec/2026:10:16:24 +0100|" + ACCEPT / 1000 + "|123");
    }
}

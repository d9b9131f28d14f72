package dev.sluice.proxy.fcgi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FcgiServerConnection} on an embedded channel, between a real HTTP/1 client connection and a scripted FastCGI
 * application ({@link EmbeddedProxy}): the records a request becomes (with the fcgi-app's rules applied), how STDOUT
 * becomes the response, STDERR a log line, END_REQUEST its end, and when the connection is kept for the next request.
 */
class FcgiServerConnectionTest {
    private final LogCatcher log = new LogCatcher();
    private EmbeddedProxy proxy;
    private EmbeddedProxy.Channel client;

    private void start(String appLines) {
        proxy = EmbeddedProxy.of("""
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 3s
                frontend fe
                    bind 127.0.0.1:8080
                    default_backend be
                backend be
                    use-fcgi-app php
                    http-request set-header X-Root %%[fcgi.docroot]/%%[fcgi.index]
                    server s1 127.0.0.1:9000 proto fcgi
                fcgi-app php
                    docroot /var/www
                    index index.php
                    path-info ^(/.+\\.php)(/.*)?$
                    %s
                %s
                """.formatted(log.logLine().replace("log ", "log-stderr "), appLines));
        client = proxy.h1Client();
    }

    @AfterEach
    void close() {
        if (proxy != null) {
            proxy.close();
        }
        log.close();
    }

    private List<FcgiWire.Record> request(EmbeddedProxy.Channel server) {
        return FcgiWire.records(server.readBytes());
    }

    private static void reply(EmbeddedProxy.Channel server, byte[]... records) {
        server.writeInbound(Unpooled.wrappedBuffer(FcgiWire.concat(records)));
    }

    @Test
    void aRequestBecomesBeginParamsAndStdinAndStdoutItsResponse() {
        start("set-param MY_PARAM %[req.hdr(x-in)]-x if { req.hdr(x-in) -m found }");
        client.receive("POST /app.php/extra?q=1 HTTP/1.1\r\nhost: h\r\nx-in: v\r\nauthorization: Basic Ym9iOnB3\r\ncontent-length: 3\r\n\r\nabc");
        EmbeddedProxy.Channel server = proxy.servers().get(0);
        List<FcgiWire.Record> r = request(server);
        assertThat(r).extracting(FcgiWire.Record::type).containsExactly(1, 4, 4, 5, 5);
        assertThat(r).extracting(FcgiWire.Record::id).containsOnly(1);
        assertThat(r.get(0).content()[2]).as("keep-conn").isEqualTo((byte) 1);
        Map<String, String> p = FcgiWire.pairs(r);
        assertThat(p).containsEntry("SCRIPT_NAME", "/app.php").containsEntry("PATH_INFO", "/extra").containsEntry("QUERY_STRING", "q=1")
                .containsEntry("SCRIPT_FILENAME", "/var/www/app.php").containsEntry("CONTENT_LENGTH", "3").containsEntry("MY_PARAM", "v-x")
                .containsEntry("HTTP_X_ROOT", "/var/www/index.php").containsEntry("REMOTE_USER", "bob").containsEntry("AUTH_TYPE", "Basic")
                .containsEntry("REMOTE_ADDR", "127.0.0.1").containsEntry("SERVER_PORT", "8080").doesNotContainKey("HTTP_AUTHORIZATION");
        assertThat(r.get(3).text()).isEqualTo("abc");
        assertThat(r.get(4).content()).isEmpty();
        reply(server, FcgiWire.record(6, 1, "Status: 201 Made\r\nContent-Type: text/plain\r\n\r\nhel"));
        // the end did not come with the head: the length is unknown, the body is chunked to the client
        String first = client.readText();
        assertThat(first).startsWith("HTTP/1.1 201 Made\r\ncontent-type: text/plain\r\ndate: ")
                .contains("transfer-encoding: chunked\r\n").contains("\r\n\r\n3\r\nhel");
        reply(server, FcgiWire.record(7, 1, "a warning\n"), FcgiWire.record(6, 1, "lo"), FcgiWire.record(6, 1, ""), FcgiWire.endRequest(1, 0));
        assertThat(first + client.readText()).endsWith("\r\n\r\n3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n");
        assertThat(log.next()).endsWith("a warning");
        assertThat(server.isOpen()).isTrue();
    }

    @Test
    void aWholeResponseInOneReadGetsItsLengthAndTheConnectionIsKept() {
        start("");
        client.receive("GET /a.php HTTP/1.1\r\nhost: h\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.servers().get(0);
        request(server);
        reply(server, FcgiWire.record(6, 1, "Content-Type: text/html\r\n\r\nhello"), FcgiWire.record(6, 1, ""), FcgiWire.endRequest(1, 0));
        assertThat(client.readText()).contains("content-length: 5\r\n").endsWith("\r\n\r\nhello");
        client.receive("GET /b.php HTTP/1.1\r\nhost: h\r\n\r\n");
        assertThat(proxy.servers()).hasSize(1);
        List<FcgiWire.Record> r = request(server);
        assertThat(r.get(0).id()).as("the next request id, odd as HAProxy's").isEqualTo(3);
        assertThat(FcgiWire.pairs(r)).containsEntry("SCRIPT_NAME", "/b.php");
    }

    @Test
    void withoutKeepConnTheConnectionClosesAfterTheResponse() {
        start("no option keep-conn");
        client.receive("GET /a.php HTTP/1.1\r\nhost: h\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.servers().get(0);
        assertThat(request(server).get(0).content()[2]).isZero();
        reply(server, FcgiWire.record(6, 1, "Location: /next\r\n\r\n"), FcgiWire.endRequest(1, 0));
        proxy.run();
        assertThat(client.readText()).startsWith("HTTP/1.1 302 Moved Temporarily\r\nlocation: /next\r\n");
        assertThat(server.isOpen()).isFalse();
    }

    @Test
    void aBodyOfUnknownLengthIsHeldForItsLength() {
        start("");
        client.receive("POST /a.php HTTP/1.1\r\nhost: h\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n");
        EmbeddedProxy.Channel server = proxy.servers().get(0);
        assertThat(server.readBytes().release()).isTrue();
        client.receive("2\r\nde\r\n0\r\n\r\n");
        List<FcgiWire.Record> r = request(server);
        assertThat(FcgiWire.pairs(r)).containsEntry("CONTENT_LENGTH", "5").doesNotContainKey("HTTP_TRANSFER_ENCODING");
        assertThat(r).filteredOn(x -> x.type() == 5).extracting(FcgiWire.Record::text).containsExactly("abcde", "");
        reply(server, FcgiWire.record(6, 1, "\r\n"), FcgiWire.endRequest(1, 0));
        assertThat(client.readText()).startsWith("HTTP/1.1 200 OK\r\n").contains("content-length: 0\r\n");
    }

    @Test
    void anEndWithoutAHeadOrARefusalIsA502AndABadPathA500() {
        start("");
        client.receive("GET /a.php HTTP/1.1\r\nhost: h\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.servers().get(0);
        request(server);
        reply(server, FcgiWire.endRequest(1, 2));
        proxy.run();
        assertThat(client.readText()).startsWith("HTTP/1.1 502 ");
        assertThat(server.isOpen()).isFalse();
        EmbeddedProxy.Channel c2 = proxy.h1Client();
        c2.receive("GET /a%0a.php HTTP/1.1\r\nhost: h\r\n\r\n");
        proxy.run();
        assertThat(c2.readText()).startsWith("HTTP/1.1 500 ");
    }

    @Test
    void aHeadRequestGetsNoBody() {
        start("");
        client.receive("HEAD /a.php HTTP/1.1\r\nhost: h\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.servers().get(0);
        assertThat(FcgiWire.pairs(request(server))).containsEntry("REQUEST_METHOD", "HEAD");
        reply(server, FcgiWire.record(6, 1, "Content-Type: text/html\r\n\r\nignored"), FcgiWire.endRequest(1, 0));
        String out = client.readText();
        assertThat(out).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n").doesNotContain("ignored");
    }

    @Test
    void expectContinueIsAnsweredByTheProxyAndNotPassedOn() {
        start("");
        client.receive("POST /a.php HTTP/1.1\r\nhost: h\r\nexpect: 100-continue\r\ncontent-length: 2\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.servers().get(0);
        assertThat(client.readText()).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        client.receive("hi");
        List<FcgiWire.Record> r = request(server);
        assertThat(FcgiWire.pairs(r)).doesNotContainKey("HTTP_EXPECT").containsEntry("CONTENT_LENGTH", "2");
        assertThat(r).filteredOn(x -> x.type() == 5).extracting(FcgiWire.Record::text).containsExactly("hi", "");
        reply(server, FcgiWire.record(6, 1, "\r\n"), FcgiWire.endRequest(1, 0));
        assertThat(client.readText()).startsWith("HTTP/1.1 200 OK\r\n");
    }
}

package dev.sluice.proxy.fcgi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FcgiMuxConnection} on embedded channels, between real HTTP/1 client connections and a scripted FastCGI
 * application that multiplexes ({@link EmbeddedProxy}): several requests on one connection under their own ids (1, 3,
 * 5...), records interleaved and requests ended out of order, the {@code max-reqs} limit and the one GET_VALUES answers
 * give, aborts, and what a connection error does to every request on it.
 */
class FcgiMuxConnectionTest {
    private EmbeddedProxy proxy;

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
                    http-reuse always
                    use-fcgi-app php
                    server s1 127.0.0.1:9000 proto fcgi
                fcgi-app php
                    docroot /var/www
                %s
                """.formatted(appLines));
    }

    @AfterEach
    void close() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private List<EmbeddedProxy.Channel> clients(int n, String... paths) {
        List<EmbeddedProxy.Channel> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            EmbeddedProxy.Channel c = proxy.h1Client();
            c.receive("GET " + paths[i] + " HTTP/1.1\r\nhost: h\r\n\r\n");
            out.add(c);
        }
        proxy.run();
        return out;
    }

    private static List<FcgiWire.Record> records(EmbeddedProxy.Channel server) {
        return FcgiWire.records(server.readBytes());
    }

    private static void reply(EmbeddedProxy.Channel server, byte[]... records) {
        server.writeInbound(Unpooled.wrappedBuffer(FcgiWire.concat(records)));
    }

    private static byte[] values(String maxReqs, String mpxs) {
        ByteBuf pairs = Unpooled.buffer();
        FcgiRecords.pair(pairs, "FCGI_MAX_REQS".getBytes(StandardCharsets.ISO_8859_1), maxReqs.getBytes(StandardCharsets.ISO_8859_1));
        FcgiRecords.pair(pairs, "FCGI_MPXS_CONNS".getBytes(StandardCharsets.ISO_8859_1), mpxs.getBytes(StandardCharsets.ISO_8859_1));
        byte[] content = new byte[pairs.readableBytes()];
        pairs.readBytes(content);
        pairs.release();
        return FcgiWire.record(10, 0, content, 0);
    }

    /** The requests' (BEGIN_REQUEST) ids, in order. */
    private static List<Integer> begun(List<FcgiWire.Record> r) {
        return r.stream().filter(x -> x.type() == 1).map(FcgiWire.Record::id).toList();
    }

    @Test
    void requestsShareAConnectionUnderTheirOwnIdsAndAreAnsweredOutOfOrder() {
        start("    option mpxs-conns\n    option max-reqs 4");
        List<EmbeddedProxy.Channel> c = clients(3, "/a", "/b", "/c");
        assertThat(proxy.servers()).hasSize(1);
        EmbeddedProxy.Channel server = proxy.server(0);
        List<FcgiWire.Record> r = records(server);
        assertThat(begun(r)).containsExactly(1, 3, 5);
        assertThat(r).filteredOn(x -> x.type() == 1).allMatch(x -> x.content()[2] == 1, "FCGI_KEEP_CONN");
        assertThat(r).filteredOn(x -> x.type() == 5 && x.content().length == 0).extracting(FcgiWire.Record::id).containsExactly(1, 3, 5);
        // interleaved: c's head, a whole, then c's body and end, b last
        reply(server, FcgiWire.record(6, 5, "Content-Type: text/plain\r\n\r\n"), FcgiWire.record(6, 1, "\r\nfor a"), FcgiWire.record(6, 1, ""),
                FcgiWire.endRequest(1, 0));
        assertThat(c.get(0).readText()).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nfor a");
        assertThat(c.get(1).readText()).isEmpty();
        reply(server, FcgiWire.record(6, 5, "for c"), FcgiWire.record(6, 3, "\r\nfor b"), FcgiWire.endRequest(5, 0));
        assertThat(c.get(2).readText()).startsWith("HTTP/1.1 200 OK\r\n").contains("transfer-encoding: chunked").contains("for c")
                .endsWith("0\r\n\r\n");
        reply(server, FcgiWire.endRequest(3, 0));
        assertThat(c.get(1).readText()).contains("transfer-encoding: chunked").contains("\r\n\r\n5\r\nfor b\r\n").endsWith("0\r\n\r\n");
        assertThat(server.isOpen()).isTrue();
        // the next request on the idle connection takes the next id, never one used before
        clients(1, "/d");
        assertThat(proxy.servers()).hasSize(1);
        assertThat(begun(records(server))).containsExactly(7);
    }

    @Test
    void maxReqsCapsTheRequestsOnAConnectionAndTheNextGoesToAnother() {
        start("    option mpxs-conns\n    option max-reqs 2");
        clients(3, "/a", "/b", "/c");
        assertThat(proxy.servers()).hasSize(2);
        assertThat(begun(records(proxy.server(0)))).containsExactly(1, 3);
        assertThat(begun(records(proxy.server(1)))).containsExactly(1);
    }

    @Test
    void withoutMaxReqsMpxsConnsAloneCarriesOneRequestAtATime() {
        start("    option mpxs-conns");
        clients(2, "/a", "/b");
        assertThat(proxy.servers()).hasSize(2);
        assertThat(proxy.server(0).pipeline().get(FcgiServerConnection.class)).as("the one-request connection").isNotNull();
    }

    @Test
    void getValuesGoesFirstAndItsAnswerSetsTheLimit() {
        start("    option get-values\n    option mpxs-conns\n    option max-reqs 4");
        List<EmbeddedProxy.Channel> c = clients(1, "/a");
        EmbeddedProxy.Channel server = proxy.server(0);
        List<FcgiWire.Record> r = records(server);
        // the request waits for the answer
        assertThat(r).extracting(FcgiWire.Record::type).containsExactly(9);
        assertThat(r.get(0).id()).isZero();
        assertThat(FcgiWire.pairs(List.of(new FcgiWire.Record(4, 0, r.get(0).content())))).containsOnlyKeys("FCGI_MAX_REQS", "FCGI_MPXS_CONNS");
        // the application does not multiplex: one request at a time
        reply(server, values("50", "0"));
        assertThat(begun(records(server))).containsExactly(1);
        FcgiMuxConnection conn = server.pipeline().get(FcgiMuxConnection.class);
        assertThat(conn.limit()).isEqualTo(1);
        clients(1, "/b");
        assertThat(proxy.servers()).hasSize(2);
        reply(server, FcgiWire.record(6, 1, "\r\nok"), FcgiWire.endRequest(1, 0));
        assertThat(c.get(0).readText()).endsWith("\r\n\r\nok");
    }

    @Test
    void theAnswerToGetValuesMayRaiseTheLimitAboveMaxReqs() {
        start("    option get-values\n    option max-reqs 2");
        clients(1, "/a");
        EmbeddedProxy.Channel server = proxy.server(0);
        records(server);
        reply(server, values("3", "1"));
        assertThat(server.pipeline().get(FcgiMuxConnection.class).limit()).isEqualTo(3);
        clients(3, "/b", "/c", "/d");
        assertThat(begun(records(server))).containsExactly(1, 3, 5);
        assertThat(proxy.servers()).hasSize(2);
    }

    @Test
    void aRecordOtherThanTheAnswerFirstIsAConnectionError() {
        start("    option get-values\n    option max-reqs 4");
        List<EmbeddedProxy.Channel> c = clients(1, "/a");
        EmbeddedProxy.Channel server = proxy.server(0);
        records(server);
        reply(server, FcgiWire.record(6, 1, "\r\nnot asked"));
        proxy.run();
        assertThat(c.get(0).readText()).startsWith("HTTP/1.1 502 ");
        assertThat(server.isOpen()).isFalse();
    }

    @Test
    void anAbandonedRequestIsAbortedOnlyWhenNotSentWholeAndTheConnectionGoesOn() {
        start("    option mpxs-conns\n    option max-reqs 4");
        EmbeddedProxy.Channel post = proxy.h1Client();
        post.receive("POST /p HTTP/1.1\r\nhost: h\r\ncontent-length: 10\r\n\r\n12345");
        List<EmbeddedProxy.Channel> c = clients(2, "/a", "/b");
        EmbeddedProxy.Channel server = proxy.server(0);
        assertThat(begun(records(server))).containsExactly(1, 3, 5);
        post.close();
        c.get(0).close();
        proxy.run();
        // the POST's body was not all sent: ABORT_REQUEST; /a was sent whole: nothing, its records are ignored
        List<FcgiWire.Record> r = records(server);
        assertThat(r).extracting(FcgiWire.Record::type).containsExactly(2);
        assertThat(r.get(0).id()).isEqualTo(1);
        assertThat(server.isOpen()).isTrue();
        reply(server, FcgiWire.endRequest(1, 0), FcgiWire.record(6, 3, "\r\nlate"), FcgiWire.endRequest(3, 0), FcgiWire.record(6, 5, "\r\nfor b"),
                FcgiWire.endRequest(5, 0));
        assertThat(c.get(1).readText()).endsWith("\r\n\r\nfor b");
        assertThat(server.isOpen()).isTrue();
        clients(1, "/d");
        assertThat(begun(records(server))).containsExactly(7);
    }

    @Test
    void aConnectionErrorFailsEveryRequestOnItAfterAborts() {
        start("    option mpxs-conns\n    option max-reqs 4");
        List<EmbeddedProxy.Channel> c = clients(2, "/a", "/b");
        EmbeddedProxy.Channel server = proxy.server(0);
        records(server);
        // a record of version 2
        byte[] bad = FcgiWire.record(6, 1, "x");
        bad[0] = 2;
        reply(server, bad);
        proxy.run();
        assertThat(c.get(0).readText()).startsWith("HTTP/1.1 502 ");
        assertThat(c.get(1).readText()).startsWith("HTTP/1.1 502 ");
        assertThat(records(server)).extracting(FcgiWire.Record::type, FcgiWire.Record::id)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2, 1), org.assertj.core.groups.Tuple.tuple(2, 3));
        assertThat(server.isOpen()).isFalse();
    }

    @Test
    void theApplicationClosingTheConnectionFailsEveryRequestOnIt() {
        start("    option mpxs-conns\n    option max-reqs 4");
        List<EmbeddedProxy.Channel> c = clients(2, "/a", "/b");
        EmbeddedProxy.Channel server = proxy.server(0);
        records(server);
        reply(server, FcgiWire.record(6, 3, "Content-Type: text/plain\r\n\r\npart"));
        server.close();
        proxy.run();
        assertThat(c.get(0).readText()).startsWith("HTTP/1.1 502 ");
        assertThat(c.get(1).readText()).startsWith("HTTP/1.1 200 ").doesNotEndWith("0\r\n\r\n");
        assertThat(proxy.servers()).hasSize(1);
    }

    @Test
    void cantMpxConnFailsThatRequestAndLeavesOneAtATime() {
        start("    option mpxs-conns\n    option max-reqs 4");
        List<EmbeddedProxy.Channel> c = clients(2, "/a", "/b");
        EmbeddedProxy.Channel server = proxy.server(0);
        records(server);
        reply(server, FcgiWire.endRequest(3, 1));
        proxy.run();
        assertThat(c.get(1).readText()).startsWith("HTTP/1.1 502 ");
        FcgiMuxConnection conn = server.pipeline().get(FcgiMuxConnection.class);
        assertThat(conn.limit()).isEqualTo(1);
        // /a still runs on it: the next request goes to another connection
        clients(1, "/c");
        assertThat(proxy.servers()).hasSize(2);
        reply(server, FcgiWire.record(6, 1, "\r\nfor a"), FcgiWire.endRequest(1, 0));
        assertThat(c.get(0).readText()).endsWith("\r\n\r\nfor a");
    }

    @Test
    void aRequestTimingOutLeavesTheConnectionToTheOthers() {
        start("    option mpxs-conns\n    option max-reqs 4");
        List<EmbeddedProxy.Channel> c = clients(1, "/a");
        EmbeddedProxy.Channel server = proxy.server(0);
        proxy.advance(2000);
        c.addAll(clients(1, "/b"));
        records(server);
        proxy.advance(1500);
        assertThat(c.get(0).readText()).startsWith("HTTP/1.1 504 ");
        assertThat(server.isOpen()).isTrue();
        assertThat(records(server)).as("no abort: /a was sent whole").isEmpty();
        reply(server, FcgiWire.record(6, 3, "\r\nfor b"), FcgiWire.endRequest(3, 0));
        assertThat(c.get(1).readText()).endsWith("\r\n\r\nfor b");
    }
}

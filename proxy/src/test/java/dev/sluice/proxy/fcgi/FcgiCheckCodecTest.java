package dev.sluice.proxy.fcgi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP check of a {@code proto fcgi} server: its HTTP/1 request as FastCGI records, the answer as an HTTP/1 response. */
class FcgiCheckCodecTest {
    private final EmbeddedProxy proxy = EmbeddedProxy.of("""
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
                server s1 127.0.0.1:9000 proto fcgi
                server s2 127.0.0.1:9001
            fcgi-app php
                docroot /var/www
                index index.php
            """);

    @AfterEach
    void close() {
        proxy.close();
    }

    @Test
    void onlyFcgiServersOfABackendWithAnApplicationSpeakIt() {
        assertThat(FcgiCheckCodec.speaksFcgi(proxy.backend("be").server("s1"))).isTrue();
        assertThat(FcgiCheckCodec.speaksFcgi(proxy.backend("be").server("s2"))).isFalse();
    }

    @Test
    void theCheckRequestAndItsAnswer() {
        Server s = proxy.backend("be").server("s1");
        EmbeddedChannel ch = new EmbeddedChannel(new FcgiCheckCodec(s, s.backend().config().fcgiApp(), "Sluice"));
        ch.writeOutbound(Unpooled.copiedBuffer("OPTIONS / HTTP/1.0\r\nx-check: 1\r\nconnection: close\r\n\r\n", StandardCharsets.ISO_8859_1));
        ByteBuf out = Unpooled.buffer();
        for (Object o; (o = ch.readOutbound()) != null;) {
            out.writeBytes((ByteBuf) o);
            ((ByteBuf) o).release();
        }
        List<FcgiWire.Record> r = FcgiWire.records(out);
        assertThat(r).extracting(FcgiWire.Record::type).containsExactly(1, 4, 4, 5);
        assertThat(FcgiWire.pairs(r)).containsEntry("REQUEST_METHOD", "OPTIONS").containsEntry("SCRIPT_NAME", "/index.php")
                .containsEntry("SERVER_PROTOCOL", "HTTP/1.0").containsEntry("HTTP_X_CHECK", "1").doesNotContainKey("HTTP_CONNECTION");
        ch.writeInbound(Unpooled.wrappedBuffer(FcgiWire.concat(FcgiWire.record(7, 1, "warn"), FcgiWire.record(6, 1, "Status: 503 Busy\r\n\r\nbusy"),
                FcgiWire.record(6, 1, ""), FcgiWire.endRequest(1, 0))));
        ByteBuf http = ch.readInbound();
        String text = http.toString(StandardCharsets.ISO_8859_1);
        http.release();
        assertThat(text).startsWith("HTTP/1.1 503 Busy\r\n").contains("content-length: 4\r\n").endsWith("\r\n\r\nbusy");
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aRefusedRequestClosesTheConnection() {
        Server s = proxy.backend("be").server("s1");
        EmbeddedChannel ch = new EmbeddedChannel(new FcgiCheckCodec(s, s.backend().config().fcgiApp(), "Sluice"));
        ch.writeOutbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n", StandardCharsets.ISO_8859_1));
        ch.releaseOutbound();
        ch.writeInbound(Unpooled.wrappedBuffer(FcgiWire.endRequest(1, 2)));
        assertThat((Object) ch.readInbound()).isNull();
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }
}

package dev.sluice.proxy.h3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link H3Messages}: an HTTP/1 server's response and trailers reach an HTTP/3 client without connection-specific fields. */
class H3MessagesTest {

    @Test
    void connectionSpecificFieldsAreLeftOut() {
        HttpFields f = new HttpFields();
        for (String[] nv : new String[][] {{"connection", "X-Resp"}, {"x-resp", "1"}, {"keep-alive", "timeout=5"},
                {"proxy-connection", "keep-alive"}, {"upgrade", "h2,h2c"}, {"transfer-encoding", "chunked"}, {"te", "gzip, trailers"},
                {"content-length", "2"}}) {
            f.add(nv[0], nv[1]);
        }
        List<String> head = new ArrayList<>();
        H3Messages.encodeResponse(new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), f))
            .forEach(e -> head.add(e.getKey() + ": " + e.getValue()));
        assertThat(head).containsExactly(":status: 200", "x-resp: 1", "te: trailers", "content-length: 2");
        List<String> trailers = new ArrayList<>();
        H3Messages.encodeTrailers(f).forEach(e -> trailers.add(e.getKey() + ": " + e.getValue()));
        assertThat(trailers).containsExactly("x-resp: 1");
    }
}

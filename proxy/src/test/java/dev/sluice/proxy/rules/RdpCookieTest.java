package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link RdpCookie}: HAProxy 2.6's reading of an X.224 connection request's cookie, byte by byte. */
class RdpCookieTest {
    private ByteBuf buf;

    @AfterEach
    void release() {
        if (buf != null) {
            buf.release();
        }
    }

    private ByteBuf tpkt(String line) {
        byte[] l = line.getBytes(StandardCharsets.ISO_8859_1);
        buf = Unpooled.buffer();
        // a reader index past 0 checks that positions are relative to it
        buf.writeBytes(new byte[] {9, 9}).readerIndex(2);
        buf.writeBytes(new byte[] {3, 0, 0, (byte) (11 + l.length), (byte) (6 + l.length), (byte) 0xE0, 0, 0, 0, 0, 0});
        buf.writeBytes(l);
        return buf;
    }

    private static String value(ByteBuf b, long v) {
        return b.toString(b.readerIndex() + TlsHello.offset(v), TlsHello.length(v), StandardCharsets.ISO_8859_1);
    }

    private static byte[] name(String n) {
        return n.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void theNamedCookiesValueUpToTheCrLf() {
        ByteBuf b = tpkt("cOOKIE:   MSTSHASH=alice\r\n");
        assertThat(value(b, RdpCookie.find(b, name("mstshash")))).isEqualTo("alice");
        assertThat(value(b, RdpCookie.find(b, name("")))).isEqualTo("alice");
        assertThat(RdpCookie.find(b, name("msts"))).isEqualTo(RdpCookie.NONE);
    }

    @Test
    void tooShortUntilTheLineEnds() {
        String whole = "Cookie: mstshash=alice\r\n";
        for (int n = 0; n < whole.length(); n++) {
            ByteBuf b = tpkt(whole.substring(0, n));
            assertThat(RdpCookie.find(b, name("mstshash"))).as("%d bytes", n).isEqualTo(RdpCookie.TOO_SHORT);
            b.release();
            buf = null;
        }
    }

    @Test
    void notACookie() {
        assertThat(RdpCookie.find(tpkt("Kookie: a=b\r\n"), name(""))).isEqualTo(RdpCookie.NONE);
        release();
        assertThat(RdpCookie.find(tpkt("Cookie: ab\r\n"), name(""))).isEqualTo(RdpCookie.NONE);
        release();
        assertThat(RdpCookie.find(tpkt("Cookie: a=b\rx"), name(""))).isEqualTo(RdpCookie.NONE);
    }

    @Test
    void mstsNamesAnAddressAndPortInWindowsByteOrders() {
        // 127.0.0.1:3389 as the broker writes it: the address's bytes little-endian, the port's two bytes swapped
        ByteBuf b = tpkt("Cookie: msts=16777343.15629.0000\r\n");
        long v = RdpCookie.find(b, name("msts"));
        long s = RdpCookie.server(b, TlsHello.offset(v), TlsHello.length(v));
        assertThat((int) (s >>> 16)).isEqualTo(0x7F000001);
        assertThat(s & 0xFFFF).isEqualTo(3389);
        assertThat(RdpCookie.server(b, TlsHello.offset(v), 8)).isEqualTo(-1);
        release();
        ByteBuf bad = tpkt("Cookie: msts=12x.34.0000\r\n");
        long w = RdpCookie.find(bad, name("msts"));
        assertThat(RdpCookie.server(bad, TlsHello.offset(w), TlsHello.length(w))).isEqualTo(-1);
    }
}

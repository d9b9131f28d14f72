package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.AclExpr;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

/**
 * {@link TlsHello} and the {@code req.ssl_*} fetches on ClientHellos made by the JDK's {@link SSLEngine} (TLS 1.2 and
 * 1.3, with and without SNI and ALPN), cut at every length, rebuilt with GREASE values or over two records, and on bytes
 * that are not TLS.
 */
class TlsHelloTest {
    static byte[] hello(String protocol, String sni, String... alpn) throws Exception {
        return ClientHellos.hello(protocol, sni, alpn);
    }

    /** The hello's parts, read by a plain walk that trusts the lengths (the JDK's hellos are well formed). */
    record Parts(byte[] head, byte[] sessionId, byte[] ciphers, byte[] compression, List<int[]> extensionTypes, List<byte[]> extensionData) {
        static Parts of(byte[] b) {
            ByteBuffer in = ByteBuffer.wrap(b, 9, b.length - 9);
            byte[] head = new byte[34];
            in.get(head);
            byte[] sid = new byte[in.get() & 0xff];
            in.get(sid);
            byte[] ciphers = new byte[in.getShort() & 0xffff];
            in.get(ciphers);
            byte[] comp = new byte[in.get() & 0xff];
            in.get(comp);
            int end = in.position() + 2 + (in.getShort() & 0xffff);
            List<int[]> types = new ArrayList<>();
            List<byte[]> data = new ArrayList<>();
            while (in.position() < end) {
                types.add(new int[] {in.getShort() & 0xffff});
                byte[] d = new byte[in.getShort() & 0xffff];
                in.get(d);
                data.add(d);
            }
            return new Parts(head, sid, ciphers, comp, types, data);
        }

        boolean has(int type) {
            return extensionTypes.stream().anyMatch(t -> t[0] == type);
        }

        /** The handshake message (type, length, body). */
        byte[] handshake() {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes(head);
            body.write(sessionId.length);
            body.writeBytes(sessionId);
            u16(body, ciphers.length);
            body.writeBytes(ciphers);
            body.write(compression.length);
            body.writeBytes(compression);
            ByteArrayOutputStream ext = new ByteArrayOutputStream();
            for (int i = 0; i < extensionTypes.size(); i++) {
                u16(ext, extensionTypes.get(i)[0]);
                u16(ext, extensionData.get(i).length);
                ext.writeBytes(extensionData.get(i));
            }
            u16(body, ext.size());
            body.writeBytes(ext.toByteArray());
            ByteArrayOutputStream hs = new ByteArrayOutputStream();
            hs.write(1);
            hs.write(body.size() >> 16);
            u16(hs, body.size());
            hs.writeBytes(body.toByteArray());
            return hs.toByteArray();
        }

        /** The handshake in records holding at most {@code max} bytes each. */
        byte[] records(int max) {
            byte[] hs = handshake();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int at = 0; at < hs.length; at += max) {
                int n = Math.min(max, hs.length - at);
                out.writeBytes(new byte[] {0x16, 3, 1});
                u16(out, n);
                out.write(hs, at, n);
            }
            return out.toByteArray();
        }

        static void u16(ByteArrayOutputStream o, int v) {
            o.write(v >> 8);
            o.write(v);
        }
    }

    private static ByteBuf buf(byte[] b) {
        return Unpooled.wrappedBuffer(b);
    }

    private static String string(ByteBuf b, long packed) {
        return ByteBufChars.of(b, TlsHello.offset(packed), TlsHello.length(packed)).toString();
    }

    private static List<String> alpn(ByteBuf b) {
        List<String> names = new ArrayList<>();
        long r = TlsHello.alpn(b);
        if (r < 0) {
            return null;
        }
        int end = TlsHello.length(r);
        for (int at = TlsHello.offset(r); at < end;) {
            long name = TlsHello.alpnName(b, at, end);
            if (name < 0) {
                return null;
            }
            names.add(string(b, name));
            at = TlsHello.offset(name) + TlsHello.length(name);
        }
        return names;
    }

    /** Every reader's answer on {@code b}, as text. */
    private static String answers(ByteBuf b) {
        long sni = TlsHello.sni(b);
        List<String> alpn = alpn(b);
        int ver = TlsHello.version(b, 15360);
        return "type=" + TlsHello.helloType(b) + " ver=" + (ver < 0 ? String.valueOf(ver) : Integer.toHexString(ver)) + " sni="
                + (sni < 0 ? sni : string(b, sni)) + " alpn=" + (alpn == null ? TlsHello.alpn(b) : alpn) + " ec=" + TlsHello.ecExtension(b)
                + " st=" + TlsHello.sessionTicketExtension(b);
    }

    @Test
    void readsWhatTheJdkSends() throws Exception {
        for (String protocol : new String[] {"TLSv1.2", "TLSv1.3"}) {
            byte[] h = hello(protocol, "www.example.com", "h2", "http/1.1");
            int st = Parts.of(h).has(35) ? 1 : 0;
            // TLS 1.3 asks for 3.4 in supported_versions; the hello's own version, which HAProxy reads, stays 3.3
            assertThat(answers(buf(h))).as(protocol).isEqualTo("type=1 ver=30003 sni=www.example.com alpn=[h2, http/1.1] ec=1 st=" + st);
            byte[] bare = hello(protocol, null);
            assertThat(answers(buf(bare))).as(protocol + " without SNI or ALPN")
                    .isEqualTo("type=1 ver=30003 sni=-2 alpn=-2 ec=1 st=" + (Parts.of(bare).has(35) ? 1 : 0));
        }
        assertThat(Parts.of(hello("TLSv1.2", "a")).has(35)).as("the JDK offers session tickets in TLS 1.2").isTrue();
    }

    @Test
    void readsFromTheReaderIndexOfAnyBuffer() throws Exception {
        byte[] h = hello("TLSv1.3", "api.example.org", "acme-tls/1");
        ByteBuf direct = Unpooled.directBuffer();
        direct.writeBytes(new byte[] {1, 2, 3});
        direct.writeBytes(h);
        direct.skipBytes(3);
        assertThat(answers(direct)).isEqualTo(answers(buf(h))).contains("sni=api.example.org alpn=[acme-tls/1]");
        direct.release();
    }

    @Test
    void aHelloCutAnywhereIsTooShortUntilHaproxyWouldRead() throws Exception {
        for (String protocol : new String[] {"TLSv1.2", "TLSv1.3"}) {
            byte[] h = hello(protocol, "www.example.com", "h2", "http/1.1");
            String whole = answers(buf(h));
            int handshake = h.length - 9;
            for (int n = 0; n < h.length; n++) {
                ByteBuf cut = buf(Arrays.copyOf(h, n));
                assertThat(TlsHello.helloType(cut)).as("type at " + n).isEqualTo(TlsHello.TOO_SHORT);
                assertThat(TlsHello.version(cut, 15360)).as("version at " + n).isEqualTo(TlsHello.TOO_SHORT);
                long sni = TlsHello.sni(cut);
                if (n < 5 + handshake) {
                    assertThat(sni).as("sni at " + n).isEqualTo(TlsHello.TOO_SHORT);
                    assertThat(TlsHello.alpn(cut)).as("alpn at " + n).isEqualTo(TlsHello.TOO_SHORT);
                    assertThat(TlsHello.ecExtension(cut)).isEqualTo(TlsHello.TOO_SHORT);
                    assertThat(TlsHello.sessionTicketExtension(cut)).isEqualTo(TlsHello.TOO_SHORT);
                } else {
                    // HAProxy wants the hello's length after the record header, 4 bytes short of all of it: what lies
                    // before the cut is read, what lies after is too short
                    assertThat(sni == TlsHello.TOO_SHORT || string(cut, sni).equals("www.example.com")).as("sni at " + n).isTrue();
                }
            }
            assertThat(whole).contains("sni=www.example.com");
            // the server_name extension comes first: it is read from the record header plus the hello's length on
            ByteBuf almost = buf(Arrays.copyOf(h, 5 + handshake));
            assertThat(string(almost, TlsHello.sni(almost))).isEqualTo("www.example.com");
        }
    }

    @Test
    void bytesThatAreNotATlsHelloFailAtOnce() {
        for (String text : new String[] {"GET / HTTP/1.1\r\nhost: a\r\n\r\n", "SSH-2.0-OpenSSH_9.2\r\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"}) {
            ByteBuf b = buf(text.getBytes(StandardCharsets.US_ASCII));
            assertThat(answers(b)).as(text).isEqualTo("type=-2 ver=-2 sni=-2 alpn=-2 ec=-2 st=-2");
            // already from the first byte
            ByteBuf one = buf(Arrays.copyOf(text.getBytes(StandardCharsets.US_ASCII), 1));
            assertThat(TlsHello.sni(one)).isEqualTo(TlsHello.NOT_HELLO);
            assertThat(TlsHello.helloType(one)).isEqualTo(TlsHello.NOT_HELLO);
        }
        // a handshake record of version 2, a record too short for a hello with extensions, an alert
        assertThat(TlsHello.sni(buf(new byte[] {0x16, 2, 0, 0, 60}))).isEqualTo(TlsHello.NOT_HELLO);
        assertThat(TlsHello.sni(buf(new byte[] {0x16, 3, 1, 0, 48}))).isEqualTo(TlsHello.NOT_HELLO);
        assertThat(TlsHello.sni(buf(new byte[] {0x15, 3, 3, 0, 2, 2, 40}))).isEqualTo(TlsHello.NOT_HELLO);
        assertThat(answers(buf(new byte[0]))).isEqualTo("type=-1 ver=-1 sni=-1 alpn=-1 ec=-1 st=-1");
    }

    @Test
    void greaseValuesAreSkippedLikeAnyUnknownValue() throws Exception {
        Parts p = Parts.of(hello("TLSv1.3", "www.example.com", "h2", "http/1.1"));
        List<int[]> types = new ArrayList<>(p.extensionTypes());
        List<byte[]> data = new ArrayList<>(p.extensionData());
        types.addFirst(new int[] {0x1a1a});
        data.addFirst(new byte[0]);
        types.add(new int[] {0x4a4a});
        data.add(new byte[] {0});
        byte[] ciphers = new byte[p.ciphers().length + 2];
        ciphers[0] = 0x0a;
        ciphers[1] = 0x0a;
        System.arraycopy(p.ciphers(), 0, ciphers, 2, p.ciphers().length);
        byte[] grease = new Parts(p.head(), p.sessionId(), ciphers, p.compression(), types, data).records(1 << 14);
        assertThat(answers(buf(grease))).isEqualTo("type=1 ver=30003 sni=www.example.com alpn=[h2, http/1.1] ec=1 st=0");
    }

    @Test
    void aHelloOverTwoRecordsIsNotReassembled() throws Exception {
        Parts p = Parts.of(hello("TLSv1.2", "www.example.com", "h2"));
        // a first record too short to hold a hello with an extension: not a hello
        assertThat(answers(buf(p.records(44)))).startsWith("type=1 ver=30003 sni=-2 alpn=-2 ec=-2");
        // cut after the server_name extension: found, the extensions after it are read through the second header
        byte[] two = p.records(140);
        assertThat(string(buf(two), TlsHello.sni(buf(two)))).isEqualTo("www.example.com");
    }

    @Test
    void readsAnSslV2HelloVersion() {
        // 2-byte header, type 1, version 3.1, 7 ciphers of 3 bytes, no session id, a 16-byte challenge
        ByteArrayOutputStream v2 = new ByteArrayOutputStream();
        v2.writeBytes(new byte[] {(byte) 0x80, 46, 1, 3, 1, 0, 21, 0, 0, 0, 16});
        v2.writeBytes(new byte[21 + 16]);
        byte[] b = v2.toByteArray();
        assertThat(TlsHello.version(buf(b), 15360)).isEqualTo(0x30001);
        assertThat(TlsHello.version(buf(Arrays.copyOf(b, b.length - 1)), 15360)).isEqualTo(TlsHello.TOO_SHORT);
        assertThat(TlsHello.helloType(buf(b))).isEqualTo(TlsHello.NOT_HELLO);
        b[10] = 17;
        assertThat(TlsHello.version(buf(b), 15360)).as("the record length disagrees").isEqualTo(TlsHello.NOT_HELLO);
    }

    @Test
    void theFetchesReadTheHeldBytes() throws Exception {
        byte[] h = hello("TLSv1.2", "Shop.Example.com", "acme-tls/1", "h2", "http/1.1");
        HeldTxn t = new HeldTxn(h);
        assertThat(sample("req.ssl_sni", t)).isEqualTo("Shop.Example.com");
        assertThat(sample("req_ssl_sni,lower", t)).isEqualTo("shop.example.com");
        assertThat(sample("req.ssl_hello_type", t)).isEqualTo("1");
        assertThat(sample("req_ssl_ver", t)).isEqualTo("196611");
        assertThat(sample("req.ssl_alpn", t)).isEqualTo("acme-tls/1");
        assertThat(sample("req.ssl_ec_ext", t)).isEqualTo("1");
        assertThat(sample("req.ssl_st_ext", t)).isEqualTo("1");
        assertThat(acl(t, "req.ssl_sni", "-i", "shop.example.com")).isEqualTo(Cond.PASS);
        assertThat(acl(t, "req_ssl_sni", "-m", "end", ".Example.com")).isEqualTo(Cond.PASS);
        assertThat(acl(t, "req.ssl_alpn", "http/1.1")).as("the last name").isEqualTo(Cond.PASS);
        assertThat(acl(t, "req.ssl_alpn", "h3")).isEqualTo(Cond.FAIL);
        assertThat(acl(t, "req_ssl_ver", "3.3")).isEqualTo(Cond.PASS);
        assertThat(acl(t, "req.ssl_ver", "3.1:3.2")).isEqualTo(Cond.FAIL);
        assertThat(acl(t, "req.ssl_ver", "3.1-")).isEqualTo(Cond.PASS);
        assertThat(acl(t, "req.ssl_ver", "-m", "int", "196611")).isEqualTo(Cond.PASS);
        assertThat(acl(t, "req_ssl_hello_type", "1")).isEqualTo(Cond.PASS);
        assertThat(acl(t, "req.ssl_ec_ext")).isEqualTo(Cond.PASS);
        assertThat(acl(t, "req.ssl_st_ext", "0")).isEqualTo(Cond.FAIL);

        // cut short: every ACL misses, and fails once the content is final
        HeldTxn cut = new HeldTxn(Arrays.copyOf(h, 100));
        for (String[] a : new String[][] {{"req.ssl_sni", "-m", "found"}, {"req.ssl_alpn", "h2"}, {"req_ssl_ver", "3.3"},
            {"req.ssl_hello_type", "1"}, {"req.ssl_ec_ext"}, {"req.ssl_st_ext", "ge", "0"}}) {
            assertThat(acl(cut, a)).as(a[0]).isEqualTo(Cond.MISS);
            cut.contentFinal = true;
            assertThat(acl(cut, a)).as(a[0]).isEqualTo(Cond.FAIL);
            cut.contentFinal = false;
        }
        // plain text: fails at once
        HeldTxn text = new HeldTxn("GET / HTTP/1.0\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(acl(text, "req.ssl_sni", "-m", "found")).isEqualTo(Cond.FAIL);
        assertThat(acl(text, "req.ssl_hello_type", "1")).isEqualTo(Cond.FAIL);
        // a hello without SNI has none, at once
        assertThat(acl(new HeldTxn(hello("TLSv1.3", null)), "req.ssl_sni", "-m", "found")).isEqualTo(Cond.FAIL);
        // the server's hello
        HeldTxn server = new HeldTxn();
        server.response = buf(new byte[] {0x16, 3, 3, 0, 4, 2, 0, 0, 0});
        assertThat(sample("res.ssl_hello_type", server)).isEqualTo("2");
        assertThat(sample("rep_ssl_hello_type", server)).isEqualTo("2");
    }

    private static String sample(String expr, Txn t) {
        Object v = RuleCompiler.sample(expr).get(t);
        return v == null ? null : Samples.str(v).toString();
    }

    private static int acl(Txn t, String... words) {
        List<String> all = List.of(words);
        int split = 1;
        while (split < all.size() && all.get(split).startsWith("-") && all.get(split).length() > 1 && !all.get(split).matches("-[0-9.]+")) {
            split += all.get(split).equals("-i") ? 1 : 2;
        }
        return RuleCompiler.acl(new AclExpr(words[0], all.subList(1, split), all.subList(split, all.size()))).eval(t);
    }
}

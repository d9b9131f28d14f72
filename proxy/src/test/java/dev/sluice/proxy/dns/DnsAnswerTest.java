package dev.sluice.proxy.dns;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DefaultDnsResponse;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** What a DNS answer says, with HAProxy 2.6's verdicts (each one the counter of {@code show resolvers} it increments). */
class DnsAnswerTest {
    private static final DnsQuestion A = new DefaultDnsQuestion("app.test.", DnsRecordType.A);
    private static final DnsQuestion SRV = new DefaultDnsQuestion("_http._tcp.svc.test.", DnsRecordType.SRV);

    private static DnsAnswer answer(DnsQuestion q, Consumer<DnsResponse> fill) {
        DnsResponse r = new DefaultDnsResponse(1);
        try {
            r.addRecord(DnsSection.QUESTION, q);
            fill.accept(r);
            return DnsAnswer.of(r, q);
        } finally {
            r.release();
        }
    }

    private static DefaultDnsRawRecord a(String name, int last) {
        return new DefaultDnsRawRecord(name, DnsRecordType.A, 60, Unpooled.wrappedBuffer(new byte[] {10, 0, 0, (byte) last}));
    }

    private static ByteBuf name(String n) {
        ByteBuf b = Unpooled.buffer();
        for (String l : n.split("\\.")) {
            b.writeByte(l.length()).writeBytes(l.getBytes(StandardCharsets.US_ASCII));
        }
        return b.writeByte(0);
    }

    private static DefaultDnsRawRecord srv(String target, int port, int weight) {
        ByteBuf b = Unpooled.buffer().writeShort(0).writeShort(weight).writeShort(port);
        ByteBuf n = name(target);
        b.writeBytes(n);
        n.release();
        return new DefaultDnsRawRecord("_http._tcp.svc.test.", DnsRecordType.SRV, 60, b);
    }

    @Test
    void addressesOfTheTypeAsked() throws Exception {
        DnsAnswer r = answer(A, m -> {
            m.addRecord(DnsSection.ANSWER, a("app.test.", 1));
            m.addRecord(DnsSection.ANSWER, a("other.test.", 2));
            m.addRecord(DnsSection.ANSWER, a("APP.test.", 3));
        });
        assertThat(r.verdict()).isEqualTo(DnsAnswer.Verdict.VALID);
        assertThat(r.items()).extracting(DnsAnswer.Item::ip).containsExactly(InetAddress.getByName("10.0.0.1"), InetAddress.getByName("10.0.0.3"));
    }

    @Test
    void aCnameChainIsFollowedAndOneWithoutAnAddressIsACnameError() throws Exception {
        DnsAnswer r = answer(A, m -> {
            m.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord("app.test.", DnsRecordType.CNAME, 60, name("real.test")));
            m.addRecord(DnsSection.ANSWER, a("real.test.", 7));
        });
        assertThat(r.items()).extracting(DnsAnswer.Item::ip).containsExactly(InetAddress.getByName("10.0.0.7"));
        DnsAnswer loop = answer(A, m -> {
            m.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord("app.test.", DnsRecordType.CNAME, 60, name("b.test")));
            m.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord("b.test.", DnsRecordType.CNAME, 60, name("app.test")));
        });
        assertThat(loop.verdict()).isEqualTo(DnsAnswer.Verdict.CNAME_ERROR);
    }

    @Test
    void errorsAreHaproxys() {
        assertThat(answer(A, m -> ((DefaultDnsResponse) m).setCode(DnsResponseCode.NXDOMAIN)).verdict()).isEqualTo(DnsAnswer.Verdict.NX_DOMAIN);
        assertThat(answer(A, m -> ((DefaultDnsResponse) m).setCode(DnsResponseCode.REFUSED)).verdict()).isEqualTo(DnsAnswer.Verdict.REFUSED);
        assertThat(answer(A, m -> ((DefaultDnsResponse) m).setCode(DnsResponseCode.SERVFAIL)).verdict()).isEqualTo(DnsAnswer.Verdict.ERROR);
        assertThat(answer(A, m -> ((DefaultDnsResponse) m).setTruncated(true)).verdict()).isEqualTo(DnsAnswer.Verdict.TRUNCATED);
        assertThat(answer(A, m -> {
        }).verdict()).isEqualTo(DnsAnswer.Verdict.ANCOUNT_ZERO);
        assertThat(answer(A, m -> m.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord("app.test.", DnsRecordType.TXT, 60,
                Unpooled.wrappedBuffer(new byte[] {1, 'x'})))).verdict()).isEqualTo(DnsAnswer.Verdict.NO_EXPECTED_RECORD);
        assertThat(answer(A, m -> m.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord("app.test.", DnsRecordType.A, 60,
                Unpooled.wrappedBuffer(new byte[] {1, 2, 3})))).verdict()).as("a malformed address").isEqualTo(DnsAnswer.Verdict.INVALID);
        DnsResponse other = new DefaultDnsResponse(1);
        try {
            other.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion("other.test.", DnsRecordType.A));
            other.addRecord(DnsSection.ANSWER, a("other.test.", 1));
            assertThat(DnsAnswer.of(other, A).verdict()).as("an answer to another question").isEqualTo(DnsAnswer.Verdict.INVALID);
        } finally {
            other.release();
        }
    }

    @Test
    void srvRecordsWithTheirAdditionalAddresses() throws Exception {
        DnsAnswer r = answer(SRV, m -> {
            m.addRecord(DnsSection.ANSWER, srv("one.svc.test", 8080, 512));
            m.addRecord(DnsSection.ANSWER, srv("two.svc.test", 8081, 0));
            m.addRecord(DnsSection.ADDITIONAL, a("one.svc.test.", 21));
        });
        assertThat(r.verdict()).isEqualTo(DnsAnswer.Verdict.VALID);
        assertThat(r.items()).containsExactly(new DnsAnswer.Item(DnsAnswer.SRV, InetAddress.getByName("10.0.0.21"), "one.svc.test", 8080, 512),
                new DnsAnswer.Item(DnsAnswer.SRV, null, "two.svc.test", 8081, 0));
    }
}

package dev.sluice.proxy.fcgi;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The record layer: what {@link FcgiRecords} writes, read back by hand, and {@link FcgiRecordReader} on hand-made records. */
class FcgiRecordsTest {
    private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

    @Test
    void beginRequestAsksForTheResponderRoleAndKeepConn() {
        List<FcgiWire.Record> r = FcgiWire.records(FcgiRecords.beginRequest(ALLOC, 7, true));
        assertThat(r).hasSize(1);
        assertThat(r.get(0).type()).isEqualTo(1);
        assertThat(r.get(0).id()).isEqualTo(7);
        assertThat(r.get(0).content()).containsExactly(0, 1, 1, 0, 0, 0, 0, 0);
        assertThat(FcgiWire.records(FcgiRecords.beginRequest(ALLOC, 1, false)).get(0).content()[2]).isZero();
    }

    @Test
    void paramsUseFourByteLengthsFrom128AndEndWithAnEmptyRecord() {
        String longValue = "v".repeat(200);
        ByteBuf b = FcgiRecords.params(ALLOC, 3, List.of(new String[] {"SHORT", "x"}, new String[] {"LONG", longValue}));
        ByteBuf copy = b.copy();
        List<FcgiWire.Record> r = FcgiWire.records(b);
        assertThat(r).extracting(FcgiWire.Record::type).containsExactly(4, 4);
        assertThat(r.get(1).content()).isEmpty();
        // SHORT: 1-byte lengths; LONG: 1-byte name length, 4-byte value length with the high bit
        assertThat(copy.getByte(8)).isEqualTo((byte) 5);
        int second = 8 + 2 + 5 + 1;
        assertThat(copy.getByte(second)).isEqualTo((byte) 4);
        assertThat(copy.getInt(second + 1)).isEqualTo(0x80000000 | 200);
        copy.release();
        assertThat(FcgiWire.pairs(r)).containsExactly(Map.entry("SHORT", "x"), Map.entry("LONG", longValue));
    }

    @Test
    void aLongContentIsSplitAtTheRecordLimit() {
        ByteBuf body = Unpooled.buffer().writeBytes(new byte[70000]);
        List<FcgiWire.Record> r = FcgiWire.records(FcgiRecords.stdin(ALLOC, 1, body));
        assertThat(body.refCnt()).isZero();
        assertThat(r).extracting(x -> x.content().length).containsExactly(65535, 70000 - 65535);
        assertThat(FcgiWire.records(FcgiRecords.stdinEnd(ALLOC, 1))).singleElement().satisfies(x -> {
            assertThat(x.type()).isEqualTo(5);
            assertThat(x.content()).isEmpty();
        });
    }

    @Test
    void getValuesAsksForMaxReqsAndMpxsConnsOnRequestZero() {
        List<FcgiWire.Record> r = FcgiWire.records(FcgiRecords.getValues(ALLOC));
        assertThat(r).singleElement().satisfies(x -> {
            assertThat(x.type()).isEqualTo(9);
            assertThat(x.id()).isZero();
        });
        ByteBuf c = Unpooled.wrappedBuffer(r.get(0).content());
        assertThat(FcgiRecords.readPairs(c)).containsExactly(Map.entry("FCGI_MAX_REQS", ""), Map.entry("FCGI_MPXS_CONNS", ""));
    }

    /** A sink that writes down what it is told, as text. */
    private static final class Events implements FcgiRecordReader.Sink {
        final List<String> seen = new ArrayList<>();

        @Override
        public void onStdout(int id, ByteBuf data) {
            seen.add("out " + id + " " + data.toString(StandardCharsets.ISO_8859_1));
            data.release();
        }

        @Override
        public void onStderr(int id, ByteBuf data) {
            seen.add("err " + id + " " + data.toString(StandardCharsets.ISO_8859_1));
            data.release();
        }

        @Override
        public void onEndRequest(int id, long appStatus, int protocolStatus) {
            seen.add("end " + id + " " + appStatus + " " + protocolStatus);
        }

        @Override
        public void onValues(ByteBuf content) {
            seen.add("values " + FcgiRecords.readPairs(content));
        }

        @Override
        public void onError(String why) {
            seen.add("error " + why);
        }
    }

    @Test
    void recordsArriveWhateverTheCutsAndPaddingIsSkipped() {
        byte[] all = FcgiWire.concat(FcgiWire.record(6, 1, "Status: 200\r\n".getBytes(StandardCharsets.ISO_8859_1), 3),
                FcgiWire.record(7, 1, "oops"), FcgiWire.record(6, 1, "\r\nbody"), FcgiWire.record(6, 1, ""), FcgiWire.endRequest(1, 0));
        for (int cut = 1; cut < all.length; cut++) {
            Events e = new Events();
            FcgiRecordReader reader = new FcgiRecordReader(e);
            ByteBuf in = Unpooled.buffer();
            in.writeBytes(all, 0, cut);
            reader.read(in);
            in.discardReadBytes();
            in.writeBytes(all, cut, all.length - cut);
            reader.read(in);
            assertThat(in.isReadable()).isFalse();
            in.release();
            // STDOUT and STDERR may come in pieces: what counts is what each stream carried, in order
            assertThat(e.seen).last().isEqualTo("end 1 0 0");
            assertThat(e.seen.stream().filter(s -> s.startsWith("err")).map(s -> s.substring(6)).reduce("", String::concat)).isEqualTo("oops");
            assertThat(e.seen.stream().filter(s -> s.startsWith("out")).map(s -> s.substring(6)).reduce("", String::concat))
                    .isEqualTo("Status: 200\r\n\r\nbody");
        }
    }

    @Test
    void getValuesResultIsRead() {
        Events e = new Events();
        ByteBuf pairs = Unpooled.buffer();
        FcgiRecords.pair(pairs, "FCGI_MAX_REQS".getBytes(StandardCharsets.ISO_8859_1), "5".getBytes(StandardCharsets.ISO_8859_1));
        byte[] content = new byte[pairs.readableBytes()];
        pairs.readBytes(content);
        pairs.release();
        ByteBuf in = Unpooled.wrappedBuffer(FcgiWire.record(10, 0, content, 0));
        new FcgiRecordReader(e).read(in);
        in.release();
        assertThat(e.seen).containsExactly("values {FCGI_MAX_REQS=5}");
    }

    @Test
    void aBadVersionOrAnUnexpectedTypeStopsTheReader() {
        Events e = new Events();
        byte[] bad = FcgiWire.record(6, 1, "x");
        bad[0] = 2;
        ByteBuf in = Unpooled.wrappedBuffer(FcgiWire.concat(bad, FcgiWire.record(6, 1, "y")));
        FcgiRecordReader r = new FcgiRecordReader(e);
        r.read(in);
        in.release();
        assertThat(r.failed()).isTrue();
        assertThat(e.seen).containsExactly("error unsupported FastCGI version 2");
        Events e2 = new Events();
        ByteBuf in2 = Unpooled.wrappedBuffer(FcgiWire.record(5, 1, "stdin from the application"));
        new FcgiRecordReader(e2).read(in2);
        in2.release();
        assertThat(e2.seen).containsExactly("error unexpected FastCGI record of type 5");
    }
}

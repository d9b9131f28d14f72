package dev.sluice.peers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sticktable.DataType;
import dev.sluice.sticktable.RateState;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickKey;
import dev.sluice.sticktable.StickTable;
import dev.sluice.sticktable.StickTableSpec;
import dev.sluice.sticktable.TableOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stick-table messages on bytes. The expected bytes are those HAProxy 2.6.12 sent to a fake peer for the same
 * tables ({@code peers p} with {@code table t type ip size 10 expire 60s store http_req_cnt,http_req_rate(10s)}, and a
 * backend {@code b2} with {@code stick-table type string len 20 size 10 expire 1m store
 * gpc(2),gpc_rate(2,5s),server_id,server_key,conn_cur,gpt0,bytes_in_cnt peers p}) after one request tracked from
 * 127.0.0.1 and {@code set table b2 key abc data.server_id 3 data.gpt0 7 data.bytes_in_cnt 300}.
 */
class TableCodecTest {
    static final String HAPROXY_DEF_T = "0a820f01022f740404f051f0971c0af0e203";
    static final String HAPROXY_UPD_T = "0a800c000000027f00000101000100";
    static final String HAPROXY_DEF_B2 = "0a8214020262320615f3f58261f0971c17021802f8a901";
    static final String HAPROXY_UPD_B2 = "0a801e0000000103616263030700fc03000000fca0e7e1250000fca0e7e1250000";

    private final long[] now = {1_000_000};
    private final ByteBuf out = Unpooled.buffer();

    @AfterEach
    void release() {
        out.release();
    }

    static StickTable table(String name, String def, long[] now) {
        StickTableSpec spec = StickTableSpec.parse(List.of(def.split(" ")), w -> { });
        return new StickTable(name, spec, TableOptions.DEFAULT.withClock(() -> now[0]).withUpdates(TableOptions.UpdateRecording.OWN_LOCK));
    }

    private SharedTable t() {
        return new SharedTable(1, table("p/t", "type ip size 10 expire 60s store http_req_cnt,http_req_rate(10s)", now), 4, "/t");
    }

    private SharedTable b2() {
        return new SharedTable(2, table("b2", "type string len 20 size 10 expire 1m store gpc(2),gpc_rate(2,5s),server_id,server_key,conn_cur,gpt0,bytes_in_cnt",
                now), TableCodec.keySize(dev.sluice.sticktable.KeyType.STRING, 20, true), "b2");
    }

    private static ByteBuf hex(String s) {
        return Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(s));
    }

    @Test
    void definitionsAsHaproxyWritesThem() {
        TableCodec.writeDefinition(out, t());
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo(HAPROXY_DEF_T);
        out.clear();
        TableCodec.writeDefinition(out, b2());
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo(HAPROXY_DEF_B2);
    }

    @Test
    void anUpdateAsHaproxyWritesIt() {
        SharedTable t = t();
        StickEntry e = t.table().track(StickKey.ipv4(0x7f000001));
        e.add(DataType.HTTP_REQ_CNT, 0, 1);
        e.add(DataType.HTTP_REQ_RATE, 0, 1);
        TableCodec.writeUpdate(out, t, e, 2, false, false, new DictCache.Tx());
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo(HAPROXY_UPD_T);
        out.clear();
        now[0] += 1234;
        TableCodec.writeUpdate(out, t, e, 3, true, true, new DictCache.Tx());
        // incremental and timed: no id, the remaining expire (60000 - 1234), the key, the counter, the rate 1234 ms old
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("0a860d0000e58e7f00000101f23e0100");
        t.table().untrack(e);
    }

    @Test
    void readingHaproxysMessages() {
        SharedTable t = t();
        SharedTable b2 = b2();
        TableCodec.Result[] r = new TableCodec.Result[1];
        for (String hex : new String[] {HAPROXY_DEF_T, HAPROXY_DEF_B2}) {
            ByteBuf m = hex(hex);
            m.skipBytes(3);
            TableCodec.readDefinition(m, List.of(t, b2), r);
            assertThat(r[0]).isEqualTo(TableCodec.Result.OK);
            m.release();
        }
        assertThat(t.remoteId()).isEqualTo(1);
        assertThat(b2.remoteId()).isEqualTo(2);
        assertThat(b2.remoteNbElem[DataType.GPC.id()]).isEqualTo(2);

        ByteBuf u = hex(HAPROXY_UPD_T);
        u.skipBytes(3);
        assertThat(TableCodec.readUpdate(u, Wire.STKT_UPDATE, t, new DictCache.Rx())).isEqualTo(TableCodec.Result.OK);
        u.release();
        assertThat(t.lastGet()).isEqualTo(2);
        StickEntry e = t.table().lookup(StickKey.ipv4(0x7f000001));
        assertThat(e.get(DataType.HTTP_REQ_CNT)).isEqualTo(1);
        assertThat(e.rateState(DataType.HTTP_REQ_RATE, 0)).isEqualTo(new RateState(true, now[0], 1, 0));
        assertThat(e.expireAt()).isEqualTo(now[0] + 60_000);
        assertThat(t.table().updateLog().learnedSize()).isEqualTo(1);
        assertThat(t.table().updateLog().localSize()).as("learned entries are never pushed back").isZero();

        u = hex(HAPROXY_UPD_B2);
        u.skipBytes(3);
        assertThat(TableCodec.readUpdate(u, Wire.STKT_UPDATE, b2, new DictCache.Rx())).isEqualTo(TableCodec.Result.OK);
        u.release();
        StickEntry abc = b2.table().lookup(b2.table().keyOfString("abc"));
        assertThat(abc.serverId()).isEqualTo(3);
        assertThat(abc.gpt0()).isEqualTo(7);
        assertThat(abc.get(DataType.BYTES_IN_CNT)).isEqualTo(300);
        assertThat(abc.rateState(DataType.GPC_RATE, 1)).isEqualTo(RateState.EMPTY);
    }

    @Test
    void serverKeysGoThroughTheDictionary() {
        SharedTable b2 = b2();
        StickEntry e = b2.table().track(b2.table().keyOfString("abc"));
        e.setServerKey("srv1");
        DictCache.Tx tx = new DictCache.Tx();
        TableCodec.writeUpdate(out, b2, e, 1, false, false, tx);
        TableCodec.writeUpdate(out, b2, e, 2, true, false, tx);
        b2.table().untrack(e);
        // first: length 6, id 1, value length 4, "srv1"; then only the id
        String first = ByteBufUtil.hexDump(out, 0, out.writerIndex());
        assertThat(first).contains("0601047372763100").contains("010100");
        SharedTable other = b2();
        other.remoteData = b2.table().spec().store().byId().stream().mapToLong(i -> 1L << i.type().id()).reduce(0, (a, b) -> a | b);
        other.remoteNbElem[DataType.GPC.id()] = 2;
        other.remoteNbElem[DataType.GPC_RATE.id()] = 2;
        DictCache.Rx rx = new DictCache.Rx();
        for (int i = 0; i < 2; i++) {
            int type = out.getUnsignedByte(out.readerIndex() + 1);
            int len = out.getUnsignedByte(out.readerIndex() + 2);
            ByteBuf m = out.slice(out.readerIndex() + 3, len);
            out.skipBytes(3 + len);
            assertThat(TableCodec.readUpdate(m, type, other, rx)).isEqualTo(TableCodec.Result.OK);
        }
        assertThat(other.table().lookup(other.table().keyOfString("abc")).serverKey()).isEqualTo("srv1");
        assertThat(other.lastGet()).isEqualTo(2);
    }

    @Test
    void definitionsThatDoNotMatchAreIgnoredAndTruncatedOnesAreMalformed() {
        SharedTable t = t();
        TableCodec.Result[] r = new TableCodec.Result[1];
        // another key type (integer) for /t
        ByteBuf m = hex("01022f740204f051f0971c0af0e203");
        assertThat(TableCodec.readDefinition(m, List.of(t), r)).isNull();
        assertThat(r[0]).isEqualTo(TableCodec.Result.IGNORED);
        m.release();
        // an unknown table
        m = hex("01022f780404f051");
        TableCodec.readDefinition(m, List.of(t), r);
        assertThat(r[0]).isEqualTo(TableCodec.Result.IGNORED);
        m.release();
        // cut in the name
        m = hex("01052f74");
        TableCodec.readDefinition(m, List.of(t), r);
        assertThat(r[0]).isEqualTo(TableCodec.Result.MALFORMED);
        m.release();
        // an update cut in the key, and one too short for its id
        for (String bad : new String[] {"000000027f0000", "0000"}) {
            m = hex(bad);
            assertThat(TableCodec.readUpdate(m, Wire.STKT_UPDATE, t, new DictCache.Rx())).isEqualTo(TableCodec.Result.MALFORMED);
            m.release();
        }
        // an update with no table defined is skipped
        m = hex(HAPROXY_UPD_T);
        assertThat(TableCodec.readUpdate(m, Wire.STKT_UPDATE, null, new DictCache.Rx())).isEqualTo(TableCodec.Result.IGNORED);
        m.release();
    }

    @Test
    void acksAndSwitches() {
        TableCodec.writeAck(out, 2, 0x1234);
        TableCodec.writeSwitch(out, 300);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("0a84050200001234" + "0a8302fc03");
    }
}

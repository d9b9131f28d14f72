package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Every data type through the entry API: counters, rates, tags, server id/key, arrays. */
class DataTypesTest {
    static final String ALL_SCALARS = "server_id,gpt0,gpc0,gpc0_rate(10s),conn_cnt,conn_rate(10s),conn_cur,sess_cnt,sess_rate(10s),"
            + "http_req_cnt,http_req_rate(10s),http_err_cnt,http_err_rate(10s),bytes_in_cnt,bytes_in_rate(10s),bytes_out_cnt,"
            + "bytes_out_rate(10s),gpc1,gpc1_rate(10s),server_key,http_fail_cnt,http_fail_rate(10s),glitch_cnt,glitch_rate(10s)";

    private final ManualClock clock = new ManualClock(1000);

    private StickTable table(String store) {
        StickTableSpec spec = StickTableSpec.of(KeyType.IP, 100, 60_000).withStore(StoreSpec.parse(store, null));
        return new StickTable("t", spec, ManualClock.options(clock));
    }

    private StickEntry entry(StickTable t) {
        return t.track(StickKey.ipv4(0x7F000001));
    }

    @Test
    void layoutGivesOneSlotPerValueAndTwoPerRate() {
        StickTable t = table(ALL_SCALARS);
        // 13 plain values (server_key has no slot) and 10 rates.
        assertThat(t.layout().slots()).isEqualTo(13 + 10 * 2);
        assertThat(entry(t).data).hasSize(33);
        for (DataType type : DataType.values()) {
            assertThat(t.layout().stores(type)).as(type.haproxyName()).isEqualTo(!type.isArray());
        }
        assertThat(table("gpt(2),gpc(3),gpc_rate(3,1s)").layout().slots()).isEqualTo(2 + 3 + 6);
        assertThat(table("conn_cur").layout().periodMs(DataType.CONN_RATE)).isZero();
    }

    @Test
    void trackingCountsConnections() {
        StickTable t = table(ALL_SCALARS);
        StickEntry e = entry(t);
        e.onTrackStart();
        e.onTrackStart();
        assertThat(e.get(DataType.CONN_CUR)).isEqualTo(2);
        assertThat(e.get(DataType.CONN_CNT)).isEqualTo(2);
        assertThat(e.get(DataType.CONN_RATE)).isEqualTo(2);
        e.onTrackEnd();
        e.onTrackEnd();
        e.onTrackEnd(); // never below zero
        assertThat(e.get(DataType.CONN_CUR)).isZero();
        assertThat(e.get(DataType.CONN_CNT)).isEqualTo(2);
    }

    @Test
    void eachEventUpdatesItsCountAndRate() {
        StickTable t = table(ALL_SCALARS);
        StickEntry e = entry(t);
        e.onSession();
        e.onHttpRequest();
        e.onHttpRequest();
        e.onHttpError();
        e.onHttpFailure();
        e.onHttpFailure();
        e.onHttpFailure();
        e.onBytesIn(5_000_000_000L);
        e.onBytesOut(1500);
        e.onGlitches(4);
        assertThat(e.get(DataType.SESS_CNT)).isEqualTo(1);
        assertThat(e.get(DataType.SESS_RATE)).isEqualTo(1);
        assertThat(e.get(DataType.HTTP_REQ_CNT)).isEqualTo(2);
        assertThat(e.get(DataType.HTTP_REQ_RATE)).isEqualTo(2);
        assertThat(e.get(DataType.HTTP_ERR_CNT)).isEqualTo(1);
        assertThat(e.get(DataType.HTTP_ERR_RATE)).isEqualTo(1);
        assertThat(e.get(DataType.HTTP_FAIL_CNT)).isEqualTo(3);
        assertThat(e.get(DataType.HTTP_FAIL_RATE)).isEqualTo(3);
        // Byte counters are 64-bit; byte rates count per period in 32 bits like HAProxy.
        assertThat(e.get(DataType.BYTES_IN_CNT)).isEqualTo(5_000_000_000L);
        assertThat(e.get(DataType.BYTES_IN_RATE)).isEqualTo(5_000_000_000L & 0xFFFF_FFFFL);
        assertThat(e.get(DataType.BYTES_OUT_CNT)).isEqualTo(1500);
        assertThat(e.get(DataType.BYTES_OUT_RATE)).isEqualTo(1500);
        assertThat(e.get(DataType.GLITCH_CNT)).isEqualTo(4);
        assertThat(e.get(DataType.GLITCH_RATE)).isEqualTo(4);
        // Rates follow the table clock.
        clock.advance(10_001);
        assertThat(e.get(DataType.HTTP_FAIL_RATE)).isEqualTo(2); // 3 * 9999 / 10000
        clock.advance(10_000);
        assertThat(e.get(DataType.HTTP_FAIL_RATE)).isZero();
        assertThat(e.get(DataType.HTTP_FAIL_CNT)).isEqualTo(3);
    }

    @Test
    void generalPurposeCountersAndTags() {
        StickTable t = table(ALL_SCALARS);
        StickEntry e = entry(t);
        assertThat(e.incGpc0()).isEqualTo(1);
        assertThat(e.incGpc0()).isEqualTo(2);
        assertThat(e.gpc0()).isEqualTo(2);
        assertThat(e.gpc0Rate()).isEqualTo(2);
        assertThat(e.clearGpc0()).isEqualTo(2);
        assertThat(e.gpc0()).isZero();
        assertThat(e.incGpc1()).isEqualTo(1);
        assertThat(e.gpc1Rate()).isEqualTo(1);
        assertThat(e.clearGpc1()).isEqualTo(1);
        e.setGpt0(7);
        assertThat(e.gpt0()).isEqualTo(7);
        assertThat(e.get(DataType.GPT0)).isEqualTo(7);
        // 32-bit counters wrap.
        e.set(DataType.GPC0, 0, 0xFFFF_FFFFL);
        assertThat(e.incGpc0()).isZero();
        e.set(DataType.GPT0, 0, -1);
        assertThat(e.gpt0()).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void serverIdIsSignedAndServerKeyIsAString() {
        StickTable t = table(ALL_SCALARS);
        StickEntry e = entry(t);
        assertThat(e.serverKey()).isNull();
        e.setServerId(3);
        e.setServerKey("web1");
        assertThat(e.serverId()).isEqualTo(3);
        assertThat(e.serverKey()).isEqualTo("web1");
        e.setServerId(-5);
        assertThat(e.get(DataType.SERVER_ID)).isEqualTo(-5);
        assertThatThrownBy(() -> e.get(DataType.SERVER_KEY)).hasMessage("server_key is not a number");
    }

    @Test
    void genericAccessCoversEveryStoredType() {
        StickTable t = table(ALL_SCALARS);
        StickEntry e = entry(t);
        for (DataType type : DataType.values()) {
            if (type.isArray() || type == DataType.SERVER_KEY) {
                continue;
            }
            e.set(type, 0, 5);
            assertThat(e.get(type)).as(type.haproxyName()).isEqualTo(5);
            e.add(type, 0, 2);
            assertThat(e.get(type)).as(type.haproxyName()).isEqualTo(7);
        }
    }

    @Test
    void typesNotStoredAreNoOpsForEventsAndErrorsForGenericAccess() {
        StickTable t = table("conn_cur");
        StickEntry e = entry(t);
        e.onHttpRequest();
        e.onBytesIn(10);
        assertThat(e.incGpc0()).isZero();
        assertThat(e.gpc0()).isZero();
        e.setServerKey("x");
        assertThat(e.serverKey()).isNull();
        assertThatThrownBy(() -> e.get(DataType.HTTP_REQ_CNT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("data type http_req_cnt not stored in table t");
    }

    @Test
    void arraysAndTheirLegacyAliases() {
        StickTable t = table("gpt(2),gpc(3),gpc_rate(3,10s)");
        StickEntry e = entry(t);
        assertThat(e.incGpc(2)).isEqualTo(1);
        assertThat(e.addGpc(2, 5)).isEqualTo(6);
        assertThat(e.gpc(2)).isEqualTo(6);
        assertThat(e.gpcRate(2)).isEqualTo(6);
        assertThat(e.gpc(0)).isZero();
        // gpc0/gpc1/gpt0 fall back to elements 0/1/0 of the arrays, as in HAProxy.
        assertThat(e.incGpc0()).isEqualTo(1);
        assertThat(e.gpc(0)).isEqualTo(1);
        assertThat(e.gpcRate(0)).isEqualTo(1);
        assertThat(e.gpc0Rate()).isEqualTo(1);
        assertThat(e.incGpc1()).isEqualTo(1);
        assertThat(e.gpc(1)).isEqualTo(1);
        assertThat(e.gpc1Rate()).isEqualTo(1);
        e.setGpt0(9);
        e.setGpt(1, 4);
        assertThat(e.gpt(0)).isEqualTo(9);
        assertThat(e.get(DataType.GPT, 1)).isEqualTo(4);
        assertThat(e.clearGpc(2)).isEqualTo(6);
        // Out of range: events do nothing, generic access refuses.
        assertThat(e.incGpc(3)).isZero();
        assertThat(e.gpc(3)).isZero();
        assertThatThrownBy(() -> e.get(DataType.GPC, 3)).hasMessage("index 3 out of range for gpc(3)");
    }

    @Test
    void rateStatesRoundTripForPeers() {
        StickTable t = table(ALL_SCALARS);
        StickEntry e = entry(t);
        e.onHttpRequest();
        RateState s = e.rateState(DataType.HTTP_REQ_RATE, 0);
        assertThat(s).isEqualTo(new RateState(true, 1000, 1, 0));
        e.loadRate(DataType.CONN_RATE, 0, new RateState(true, 500, 4, 2));
        assertThat(e.get(DataType.CONN_RATE)).isEqualTo(4 + 2 * 9500 / 10_000);
        assertThatThrownBy(() -> e.rateState(DataType.CONN_CNT, 0)).hasMessage("conn_cnt is not a rate");
    }
}

package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code show table} lines, field by field, against the samples of HAProxy's output. */
class TableDumpTest {
    private final ManualClock clock = new ManualClock(1000);

    private StickTable table(String name, KeyType type, int size, long expire, String store) {
        StickTableSpec spec = StickTableSpec.of(type, size, expire).withStore(StoreSpec.parse(store, null));
        return new StickTable(name, spec, ManualClock.options(clock));
    }

    private static String ptr(StickEntry e) {
        return "0x" + Long.toHexString(e.ptr()) + ":";
    }

    @Test
    void headerLine() {
        StickTable t = table("fe_main", KeyType.IP, 1024 * 1024, 30_000, "gpc0");
        assertThat(TableDump.header(t)).isEqualTo("# table: fe_main, type: ip, size:1048576, used:0");
        t.update(StickKey.ipv4(0x7F000001), e -> { });
        assertThat(TableDump.header(t)).isEqualTo("# table: fe_main, type: ip, size:1048576, used:1");
        assertThat(TableDump.header(table("be_web", KeyType.STRING, 102_400, 0, "server_id")))
                .isEqualTo("# table: be_web, type: string, size:102400, used:0");
        assertThat(TableDump.header(table("x", KeyType.IPV6, 1, 0, ""))).contains("type: ipv6,");
        assertThat(TableDump.header(table("x", KeyType.INTEGER, 1, 0, ""))).contains("type: integer,");
        assertThat(TableDump.header(table("x", KeyType.BINARY, 1, 0, ""))).contains("type: binary,");
    }

    @Test
    void rateLimiterEntryMatchesHaproxysSample() {
        // 0x55d333fb2488: key=127.0.0.1 use=0 exp=17012 gpc0=0 conn_cnt=6 conn_cur=0 http_req_cnt=6
        //   http_req_rate(10000)=4 http_err_rate(10000)=1 bytes_out_rate(10000)=993   (3.x adds shard=0 after exp)
        StickTable t = table("fe_main", KeyType.IP, 1024 * 1024, 30_000,
                "http_req_rate(10s),http_err_rate(10s),bytes_out_rate(10s),gpc0,conn_cnt,conn_cur,http_req_cnt");
        StickEntry e = t.track(StickKey.ipv4(0x7F000001));
        for (int i = 0; i < 6; i++) {
            e.onTrackStart();
            e.onHttpRequest();
            e.onTrackEnd();
        }
        t.touch(e);
        t.untrack(e);
        clock.advance(12_988);
        e.set(DataType.HTTP_REQ_RATE, 0, 4);
        e.set(DataType.HTTP_ERR_RATE, 0, 1);
        e.set(DataType.BYTES_OUT_RATE, 0, 993);
        assertThat(TableDump.entry(e)).isEqualTo(ptr(e) + " key=127.0.0.1 use=0 exp=17012 gpc0=0 conn_cnt=6 conn_cur=0 "
                + "http_req_cnt=6 http_req_rate(10000)=4 http_err_rate(10000)=1 bytes_out_rate(10000)=993");
    }

    @Test
    void persistenceEntryMatchesHaproxysSample() {
        // 0x55d333fb2558: key=/index.html use=0 exp=47002 server_id=1 http_req_rate(10000)=0 server_key=web1
        StickTable t = table("be_web", KeyType.STRING, 102_400, 60_000, "server_key,http_req_rate(10s),server_id");
        StickEntry e = t.track(t.keyOfString("/index.html"));
        e.setServerId(1);
        e.setServerKey("web1");
        t.touch(e);
        t.untrack(e);
        clock.advance(12_998);
        assertThat(TableDump.entry(e))
                .isEqualTo(ptr(e) + " key=/index.html use=0 exp=47002 server_id=1 http_req_rate(10000)=0 server_key=web1");
    }

    @Test
    void peersRegtestEntry() {
        // key=/c1_client use=0 exp=0 server_id=0 gpc0=1 conn_rate(50000)=1 conn_cur=0
        StickTable t = table("tbl", KeyType.STRING, 1000, 0, "server_id,gpc0,conn_rate(50s),conn_cur");
        StickEntry e = t.track(t.keyOfString("/c1_client"));
        e.onTrackStart();
        e.incGpc0();
        e.onTrackEnd();
        t.touch(e);
        t.untrack(e);
        assertThat(TableDump.entry(e)).isEqualTo(ptr(e) + " key=/c1_client use=0 exp=0 server_id=0 gpc0=1 conn_rate(50000)=1 conn_cur=0");
    }

    @Test
    void useCountsTrackersAndExpStopsAtZero() {
        StickTable t = table("t", KeyType.IP, 10, 10_000, "");
        StickEntry e = t.track(StickKey.ipv4(0x0A000001));
        t.track(StickKey.ipv4(0x0A000001));
        assertThat(TableDump.entry(e)).isEqualTo(ptr(e) + " key=10.0.0.1 use=2 exp=10000");
        clock.advance(25_000);
        assertThat(TableDump.entry(e)).isEqualTo(ptr(e) + " key=10.0.0.1 use=2 exp=0");
    }

    @Test
    void everyScalarTypeInIdOrder() {
        StickTable t = table("t", KeyType.INTEGER, 10, 0, DataTypesTest.ALL_SCALARS);
        StickEntry e = t.track(StickKey.integer(42));
        e.setServerId(-3);
        e.onBytesIn(6_000_000_000L);
        e.onHttpRequest();
        t.untrack(e);
        assertThat(TableDump.entry(e)).isEqualTo(ptr(e) + " key=42 use=0 exp=0 server_id=-3 gpt0=0 gpc0=0 gpc0_rate(10000)=0"
                + " conn_cnt=0 conn_rate(10000)=0 conn_cur=0 sess_cnt=0 sess_rate(10000)=0 http_req_cnt=1 http_req_rate(10000)=1"
                + " http_err_cnt=0 http_err_rate(10000)=0 bytes_in_cnt=6000000000 bytes_in_rate(10000)=1705032704"
                + " bytes_out_cnt=0 bytes_out_rate(10000)=0 gpc1=0 gpc1_rate(10000)=0 server_key=- http_fail_cnt=0"
                + " http_fail_rate(10000)=0 glitch_cnt=0 glitch_rate(10000)=0");
    }

    @Test
    void arraysPrintOneFieldPerElementWithTheIndexBeforeTheUnderscore() {
        StickTable t = table("t", KeyType.IPV6, 10, 0, "gpc_rate(2,1m),gpt(2),gpc(3)");
        StickEntry e = t.track(t.parseKey("2001:db8::1"));
        e.incGpc(1);
        e.setGpt(0, 5);
        t.untrack(e);
        assertThat(TableDump.entry(e)).isEqualTo(ptr(e) + " key=2001:db8::1 use=0 exp=0 gpt0=5 gpt1=0 gpc0=0 gpc1=1 gpc2=0"
                + " gpc0_rate(60000)=0 gpc1_rate(60000)=1");
    }

    @Test
    void binaryKeysPrintInHex() {
        StickTable t = table("t", KeyType.BINARY, 10, 0, "");
        StickEntry e = t.track(t.keyOfBytes(new byte[] {1, (byte) 0xfe}));
        assertThat(TableDump.entry(e)).startsWith(ptr(e) + " key=01FE000000000000000000000000000000000000000000000000000000000000 use=1");
    }

    @Test
    void pointersAreStableAndDistinct() {
        StickTable t = table("t", KeyType.INTEGER, 10, 0, "");
        StickEntry a = t.track(StickKey.integer(1));
        StickEntry b = t.track(StickKey.integer(2));
        assertThat(a.ptr()).isNotEqualTo(b.ptr());
        assertThat(TableDump.entry(a)).startsWith(ptr(a) + " ").startsWith("0x");
        assertThat(t.findByPtr(a.ptr())).isSameAs(a);
        assertThat(TableCommandArgs.parsePtr("0x" + Long.toHexString(b.ptr()))).isEqualTo(b.ptr());
    }
}

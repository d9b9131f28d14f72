package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.sticktable.DataType;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickTable;
import dev.sluice.sticktable.StickTableSpec;
import dev.sluice.sticktable.TableOptions;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The stick-counter fetches and converters: names as HAProxy 2.6 registers them, values as it computes them. */
class StickFetchesTest {

    /** Every sc*_, src_ and table_ sample keyword of HAProxy 2.6.12 (its binary's keyword strings). */
    static final String HAPROXY_26 = """
            sc0_bytes_in_rate sc0_bytes_out_rate sc0_clr_gpc0 sc0_clr_gpc1 sc0_conn_cnt sc0_conn_cur sc0_conn_rate
            sc0_get_gpc0 sc0_get_gpc1 sc0_get_gpt0 sc0_gpc0_rate sc0_gpc1_rate sc0_http_err_cnt sc0_http_err_rate
            sc0_http_fail_cnt sc0_http_fail_rate sc0_http_req_cnt sc0_http_req_rate sc0_inc_gpc0 sc0_inc_gpc1
            sc0_kbytes_in sc0_kbytes_out sc0_sess_cnt sc0_sess_rate sc0_tracked sc0_trackers sc1_bytes_in_rate
            sc1_bytes_out_rate sc1_clr_gpc sc1_clr_gpc0 sc1_clr_gpc1 sc1_conn_cnt sc1_conn_cur sc1_conn_rate sc1_get_gpc0
            sc1_get_gpc1 sc1_get_gpt0 sc1_gpc0_rate sc1_gpc1_rate sc1_http_err_cnt sc1_http_err_rate sc1_http_fail_cnt
            sc1_http_fail_rate sc1_http_req_cnt sc1_http_req_rate sc1_inc_gpc0 sc1_inc_gpc1 sc1_kbytes_in sc1_kbytes_out
            sc1_sess_cnt sc1_sess_rate sc1_tracked sc1_trackers sc2_bytes_in_rate sc2_bytes_out_rate sc2_clr_gpc0
            sc2_clr_gpc1 sc2_conn_cnt sc2_conn_cur sc2_conn_rate sc2_get_gpc0 sc2_get_gpc1 sc2_get_gpt0 sc2_gpc0_rate
            sc2_gpc1_rate sc2_http_err_cnt sc2_http_err_rate sc2_http_fail_cnt sc2_http_fail_rate sc2_http_req_cnt
            sc2_http_req_rate sc2_inc_gpc0 sc2_inc_gpc1 sc2_kbytes_in sc2_kbytes_out sc2_sess_cnt sc2_sess_rate
            sc2_tracked sc2_trackers sc_bytes_in_rate sc_bytes_out_rate sc_clr_gpc sc_clr_gpc0 sc_clr_gpc1 sc_conn_cnt
            sc_conn_cur sc_conn_rate sc_get_gpc sc_get_gpc0 sc_get_gpc1 sc_get_gpt sc_get_gpt0 sc_gpc0_rate sc_gpc1_rate
            sc_gpc_rate sc_http_err_cnt sc_http_err_rate sc_http_fail_cnt sc_http_fail_rate sc_http_req_cnt
            sc_http_req_rate sc_inc_gpc sc_inc_gpc0 sc_inc_gpc1 sc_kbytes_in sc_kbytes_out sc_sess_cnt sc_sess_rate
            sc_tracked sc_trackers src_bytes_in_rate src_bytes_out_rate src_clr_gpc src_clr_gpc0 src_clr_gpc1
            src_conn_cnt src_conn_cur src_conn_rate src_get_gpc src_get_gpc0 src_get_gpc1 src_get_gpt src_get_gpt0
            src_gpc0_rate src_gpc1_rate src_gpc_rate src_http_err_cnt src_http_err_rate src_http_fail_cnt
            src_http_fail_rate src_http_req_cnt src_http_req_rate src_inc_gpc src_inc_gpc0 src_inc_gpc1 src_kbytes_in
            src_kbytes_out src_sess_cnt src_sess_rate src_updt_conn_cnt table_avl table_bytes_in_rate
            table_bytes_out_rate table_cnt table_conn_cnt table_conn_cur table_conn_rate table_expire table_gpc
            table_gpc0 table_gpc0_rate table_gpc1 table_gpc1_rate table_gpc_rate table_gpt table_gpt0 table_http_err_cnt
            table_http_err_rate table_http_fail_cnt table_http_fail_rate table_http_req_cnt table_http_req_rate
            table_idle table_kbytes_in table_kbytes_out table_server_id table_sess_cnt table_sess_rate table_trackers
            """;

    private final long[] now = {1_000_000};
    private StickTables tables;
    private StickTable fe;
    private StickTable leg;
    private FakeTxn txn;

    private StickTable table(String name, String def) {
        StickTableSpec spec = StickTableSpec.parse(List.of(def.split(" ")), w -> { });
        return new StickTable(name, spec, TableOptions.DEFAULT.withClock(() -> now[0]));
    }

    @BeforeEach
    void setUp() {
        fe = table("fe", "type ip size 10 expire 30s store gpc(3),gpc_rate(2,10s),gpt(2),conn_cnt,http_req_cnt,server_id");
        leg = table("leg", "type ip size 10 expire 30s store gpc0,gpc1,gpt0,gpc0_rate(10s)");
        tables = new StickTables().add(fe).add(leg).add(table("rate", "type ip size 10 expire 30s store gpc_rate(1,10s)"))
                .add(table("none", "type ip size 10 expire 30s store conn_cur"))
                .add(table("small", "type ip size 1 expire 30s nopurge store gpc0"));
        txn = new FakeTxn("GET", "/");
        txn.trackers = new Trackers(null);
    }

    private Object eval(String expr) {
        return StickTables.compiling(tables, "fe", () -> RuleCompiler.sample(expr)).get(txn);
    }

    private StickEntry track(int slot, StickTable t) {
        txn.trackers.track(slot, t, t.keyOfAddress(txn.client.getAddress()));
        return txn.trackers.get(slot);
    }

    private StickEntry entry(StickTable t, String ip) throws Exception {
        return t.lookup(t.keyOfAddress(InetAddress.getByName(ip)));
    }

    @Test
    void theNamesAreHaproxy26s() {
        Set<String> haproxy = new TreeSet<>(Arrays.asList(HAPROXY_26.trim().split("\\s+")));
        for (String n : haproxy) {
            assertThat(Fetches.get(n) != null || Converters.get(n) != null).as("%s is registered", n).isTrue();
        }
        Set<String> ours = new TreeSet<>();
        ours.addAll(Fetches.names().stream().filter(n -> n.matches("(sc[0-2]?|src|table)_.*") && !n.equals("src_port")
                && !n.equals("src_is_local")).toList());
        ours.addAll(Converters.names().stream().filter(n -> n.startsWith("table_")).toList());
        ours.removeAll(haproxy);
        // beyond 2.6: only HAProxy 3.x's glitch counters, which go with the glitch_* data types
        assertThat(ours).allMatch(n -> n.contains("glitch_"), "only glitch_* names beyond HAProxy 2.6");
        // the misnamed ones are gone, as HAProxy has them under other names or not at all
        assertThat(Converters.get("table_get_gpc0")).isNull();
        assertThat(Converters.get("table_get_gpt0")).isNull();
        assertThat(Fetches.get("src_trackers")).isNull();
        assertThat(Fetches.get("sc0_get_gpc")).isNull();
    }

    @Test
    void missingFetchesAreReallyMissing() {
        assertThat(Fetches.MISSING.keySet()).doesNotContainAnyElementsOf(Fetches.names());
        assertThatThrownBy(() -> RuleCompiler.sample("internal.strm.is_htx")).hasMessageContaining("is not supported by Sluice yet");
        assertThat(eval("src_conn_cur")).isEqualTo(0L);
    }

    @Test
    void arrayFetchesOnATrackedEntry() {
        StickEntry e = track(0, fe);
        assertThat(eval("sc_inc_gpc(1,0)")).isEqualTo(1L);
        assertThat(eval("sc_inc_gpc(1,0)")).isEqualTo(2L);
        assertThat(eval("sc_get_gpc(1,0)")).isEqualTo(2L);
        assertThat(eval("sc_gpc_rate(1,0)")).isEqualTo(2L);
        assertThat(eval("sc_get_gpc(0,0,fe)")).isEqualTo(0L);
        // gpc[2] has no rate (gpc_rate(2,..)): the counter alone; past both arrays: 0, nothing changed
        assertThat(eval("sc_inc_gpc(2,0)")).isEqualTo(1L);
        assertThat(eval("sc_inc_gpc(5,0)")).isEqualTo(0L);
        // an index the table does not keep reads as "not stored": no sample
        assertThat(eval("sc_get_gpc(3,0)")).isNull();
        assertThat(eval("sc_get_gpc(-1,0)")).isNull();
        assertThat(eval("sc_get_gpc(100,0)")).isNull();
        assertThat(eval("sc_gpc_rate(2,0)")).isNull();
        assertThat(eval("sc_clr_gpc(9,0)")).isNull();
        assertThat(eval("sc_clr_gpc(1,0)")).isEqualTo(2L);
        assertThat(e.gpc(1)).isZero();
        e.setGpt(1, 7);
        assertThat(eval("sc_get_gpt(1,0)")).isEqualTo(7L);
        assertThat(eval("sc_get_gpt(2,0)")).isNull();
        // a counter that tracks nothing: no sample
        assertThat(eval("sc_get_gpc(0,1)")).isNull();
        assertThat(eval("sc_inc_gpc(0,2)")).isNull();
        // the legacy names fall back on the arrays
        assertThat(eval("sc0_inc_gpc0")).isEqualTo(1L);
        assertThat(e.gpc(0)).isEqualTo(1L);
        assertThat(eval("sc_get_gpc0(0)")).isEqualTo(1L);
        assertThat(eval("sc0_gpc0_rate")).isEqualTo(1L);
        assertThat(eval("sc0_get_gpt0")).isEqualTo(0L);
        assertThat(eval("sc0_get_gpc1")).isEqualTo(0L);
        assertThat(eval("sc0_gpc1_rate")).isEqualTo(2L);
        // the same key in another table: absent there reads 0, changes nothing
        assertThat(eval("sc_get_gpc0(0,leg)")).isEqualTo(0L);
        assertThat(eval("sc_inc_gpc0(0,leg)")).isEqualTo(0L);
        assertThat(leg.used()).isZero();
    }

    @Test
    void sc1ClrGpcIsHaproxysOneCounterForm() {
        StickEntry e = track(1, fe);
        e.incGpc(2);
        e.incGpc(2);
        assertThat(eval("sc1_clr_gpc(2)")).isEqualTo(2L);
        assertThat(eval("sc1_clr_gpc(2,fe)")).isEqualTo(0L);
        assertThat(eval("sc1_clr_gpc(7)")).isNull();
    }

    @Test
    void incrementsGiveTheRateWhenOnlyTheRateIsKept() {
        StickTable rate = tables.get("rate");
        track(0, rate);
        assertThat(eval("sc_inc_gpc(0,0)")).isEqualTo(1L);
        assertThat(eval("sc_inc_gpc(0,0)")).isEqualTo(2L);
        // gpc0 falls back on gpc_rate[0]
        assertThat(eval("sc_inc_gpc0(0)")).isEqualTo(3L);
        assertThat(eval("sc_get_gpc(0,0)")).isNull();
        assertThat(eval("sc_gpc_rate(0,0)")).isEqualTo(3L);
        track(1, tables.get("none"));
        assertThat(eval("sc_inc_gpc0(1)")).isEqualTo(0L);
        assertThat(eval("sc_clr_gpc0(1)")).isNull();
        assertThat(eval("sc_get_gpc0(1)")).isNull();
        assertThat(eval("sc_inc_gpc(0,1)")).isEqualTo(0L);
    }

    @Test
    void sourceFormsLookUpAndTheChangingOnesCreate() throws Exception {
        assertThat(eval("src_get_gpc(1,)")).isEqualTo(0L);
        // a key that is not in the table reads 0, whatever the table keeps
        assertThat(eval("src_get_gpc(5,fe)")).isEqualTo(0L);
        assertThat(eval("src_http_req_cnt(none)")).isEqualTo(0L);
        assertThat(fe.used()).isZero();
        assertThat(eval("src_inc_gpc(1,fe)")).isEqualTo(1L);
        assertThat(fe.used()).isEqualTo(1);
        StickEntry e = entry(fe, "10.1.2.3");
        assertThat(e.trackers()).isZero();
        assertThat(e.expireAt()).isEqualTo(now[0] + 30_000);
        assertThat(eval("src_get_gpc(1,fe)")).isEqualTo(1L);
        assertThat(eval("src_gpc_rate(1,fe)")).isEqualTo(1L);
        assertThat(eval("src_get_gpc(5,fe)")).isNull();
        assertThat(eval("src_get_gpt(0,fe)")).isEqualTo(0L);
        assertThat(eval("src_clr_gpc(1,fe)")).isEqualTo(1L);
        assertThat(eval("src_get_gpc(1,)")).isEqualTo(0L);
        // legacy forms on a legacy table
        assertThat(eval("src_inc_gpc0(leg)")).isEqualTo(1L);
        assertThat(eval("src_inc_gpc1(leg)")).isEqualTo(1L);
        assertThat(eval("src_inc_gpc1(leg)")).isEqualTo(2L);
        assertThat(eval("src_get_gpc1(leg)")).isEqualTo(2L);
        assertThat(eval("src_clr_gpc1(leg)")).isEqualTo(2L);
        assertThat(eval("src_gpc0_rate(leg)")).isEqualTo(1L);
        assertThat(eval("src_clr_gpc0(leg)")).isEqualTo(1L);
        // a clear on a table that keeps no counter creates the entry and gives no sample
        assertThat(eval("src_clr_gpc0(none)")).isNull();
        assertThat(tables.get("none").used()).isEqualTo(1);
        // a full nopurge table creates nothing: 0
        StickTable small = tables.get("small");
        small.update(small.keyOfAddress(InetAddress.getByName("10.9.9.9")), x -> x.incGpc0());
        assertThat(eval("src_inc_gpc0(small)")).isEqualTo(0L);
        assertThat(small.used()).isEqualTo(1);
    }

    @Test
    void updtConnCntCountsAConnectionAndCreates() throws Exception {
        assertThat(eval("src_updt_conn_cnt")).isEqualTo(1L);
        assertThat(eval("src_updt_conn_cnt(fe)")).isEqualTo(2L);
        assertThat(entry(fe, "10.1.2.3").get(DataType.CONN_CNT)).isEqualTo(2L);
        assertThat(eval("src_updt_conn_cnt(leg)")).isNull();
        assertThat(leg.used()).isEqualTo(1);
    }

    @Test
    void converters() throws Exception {
        StickEntry e = track(0, fe);
        e.incGpc(1);
        e.setGpt(1, 9);
        e.setServerId(3);
        assertThat(eval("src,table_gpc(1,fe)")).isEqualTo(1L);
        assertThat(eval("src,table_gpc_rate(1,fe)")).isEqualTo(1L);
        assertThat(eval("src,table_gpt(1,fe)")).isEqualTo(9L);
        assertThat(eval("src,table_gpc(7,fe)")).isNull();
        assertThat(eval("str(10.9.9.9),table_gpc(7,fe)")).isEqualTo(0L);
        assertThat(eval("src,table_server_id(fe)")).isEqualTo(3L);
        // as in HAProxy, whose lookup holds a reference of its own while it reads the count
        assertThat(eval("src,table_trackers(fe)")).isEqualTo(2L);
        assertThat(eval("sc0_trackers")).isEqualTo(1L);
        assertThat(eval("str(10.9.9.9),table_trackers(fe)")).isEqualTo(0L);
        assertThat(eval("src,table_gpc0(fe)")).isEqualTo(0L);
        assertThat(eval("src,table_gpc1(fe)")).isEqualTo(1L);
        assertThat(eval("src,table_gpt0(fe)")).isEqualTo(0L);
        assertThat(eval("src,table_gpc0_rate(fe)")).isEqualTo(0L);
        assertThat(eval("src,table_http_req_cnt(fe)")).isEqualTo(0L);
        assertThat(eval("src,table_sess_cnt(fe)")).isNull();
        leg.update(leg.keyOfAddress(txn.client.getAddress()), x -> {
            x.incGpc0();
            x.setGpt0(4);
        });
        assertThat(eval("src,table_gpc0(leg)")).isEqualTo(1L);
        assertThat(eval("src,table_gpt0(leg)")).isEqualTo(4L);
        assertThat(eval("src,table_gpc0_rate(leg)")).isEqualTo(1L);
        assertThat(eval("src,table_gpc1(leg)")).isEqualTo(0L);
        assertThat(eval("src,table_gpc(0,leg)")).isNull();
    }

    @Test
    void expireAndIdle() {
        StickEntry e = track(0, fe);
        fe.touch(e);
        now[0] += 4_000;
        assertThat(eval("src,table_expire(fe)")).isEqualTo(26_000L);
        assertThat(eval("src,table_idle(fe)")).isEqualTo(4_000L);
        assertThat(eval("str(10.9.9.9),table_expire(fe)")).isNull();
        assertThat(eval("str(10.9.9.9),table_expire(fe,77)")).isEqualTo(77L);
        assertThat(eval("str(10.9.9.9),table_idle(fe,-1)")).isEqualTo(-1L);
        now[0] += 40_000;
        assertThat(eval("src,table_expire(fe)")).isEqualTo(0L);
        assertThat(eval("src,table_idle(fe)")).isEqualTo(30_000L);
    }

    @Test
    void tableCountAndAvailable() throws Exception {
        assertThat(eval("table_cnt")).isEqualTo(0L);
        assertThat(eval("table_avl(fe)")).isEqualTo(10L);
        track(0, fe);
        assertThat(eval("table_cnt(fe)")).isEqualTo(1L);
        assertThat(eval("table_avl")).isEqualTo(9L);
        assertThat(RuleCompiler.needs("table_cnt")).isNull();
    }

    @Test
    void indexesAndTablesAreCheckedAsHaproxyChecksThem() {
        assertThatThrownBy(() -> eval("sc_get_gpc(x,0)"))
                .hasMessage("fetch method 'sc_get_gpc' : failed to parse 'x' as type 'integer' at position 1");
        assertThatThrownBy(() -> eval("sc_get_gpc(,0)"))
                .hasMessage("fetch method 'sc_get_gpc' : expected type 'integer' at position 1, but got nothing");
        assertThatThrownBy(() -> eval("src_inc_gpc(1x,fe)"))
                .hasMessage("fetch method 'src_inc_gpc' : failed to parse '1x' as type 'integer' at position 1");
        assertThatThrownBy(() -> eval("src,table_gpc(x,fe)"))
                .hasMessage("invalid arg 1 in converter 'table_gpc' : failed to parse 'x' as type 'integer' at position 1");
        assertThatThrownBy(() -> eval("src,table_expire(fe,x)"))
                .hasMessage("invalid arg 2 in converter 'table_expire' : failed to parse 'x' as type 'integer' at position 2");
        assertThatThrownBy(() -> eval("src_get_gpc(0)")).hasMessageContaining("expects at least 2 argument(s), got 1");
        assertThatThrownBy(() -> eval("src,table_gpc(0)")).hasMessageContaining("expects at least 2 argument(s), got 1");
        assertThatThrownBy(() -> eval("sc_get_gpc(0,0,nope)")).hasMessage("unable to find table 'nope'");
        assertThatThrownBy(() -> eval("table_cnt(nope)")).hasMessage("unable to find table 'nope'");
        assertThatThrownBy(() -> eval("sc_get_gpc(0,x)")).hasMessageContaining("invalid stick counter number 'x'");
    }

    @Test
    void sessionsCountOnTheConnectionsTrackersOnly() throws Exception {
        fe = table("fe", "type ip size 10 expire 30s store sess_cnt,sess_rate(10s),conn_cnt,http_req_cnt");
        StickTable th = table("th", "type ip size 10 expire 30s store sess_cnt,sess_rate(10s),conn_cnt,http_req_cnt");
        Trackers session = Trackers.forSession();
        session.track(0, fe, fe.keyOfAddress(txn.client.getAddress()));
        Trackers.sessionStarted(session);
        Trackers.sessionStarted(null);
        Trackers stream = new Trackers(session);
        stream.startRequest();
        stream.track(1, th, th.keyOfAddress(txn.client.getAddress()));
        StickEntry s = session.get(0);
        StickEntry h = stream.get(1);
        assertThat(List.of(s.get(DataType.SESS_CNT), s.get(DataType.SESS_RATE), s.get(DataType.CONN_CNT), s.get(DataType.HTTP_REQ_CNT)))
                .containsExactly(1L, 1L, 1L, 1L);
        assertThat(List.of(h.get(DataType.SESS_CNT), h.get(DataType.SESS_RATE), h.get(DataType.CONN_CNT), h.get(DataType.HTTP_REQ_CNT)))
                .containsExactly(0L, 0L, 1L, 1L);
        session.endSession();
        Trackers.sessionStarted(session);
        assertThat(s.get(DataType.SESS_CNT)).isEqualTo(1L);
    }
}

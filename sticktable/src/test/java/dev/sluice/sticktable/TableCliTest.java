package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The admin commands end to end on tables: answers, levels, order of lines, what set and clear change. */
class TableCliTest {
    private final ManualClock clock = new ManualClock(1000);
    private final StickTable fe = new StickTable("fe",
            StickTableSpec.of(KeyType.IP, 3, 30_000).withStore(StoreSpec.parse("conn_cnt,http_req_rate(10s),gpc(2)", null)),
            ManualClock.options(clock));
    private final StickTable ints = new StickTable("ints", StickTableSpec.of(KeyType.INTEGER, 10, 0).withStore(StoreSpec.parse("gpc0", null)),
            ManualClock.options(clock));
    private final List<StickTable> tables = List.of(fe, ints);

    private static List<String> w(String s) {
        return s.isEmpty() ? List.of() : Arrays.asList(s.split(" "));
    }

    private String show(String args) {
        return TableCli.show(tables, w(args), true);
    }

    private String set(String args) {
        return TableCli.set(tables, w(args), true);
    }

    private String clear(String args) {
        return TableCli.clear(tables, w(args), true);
    }

    /** The answer without the entries' pointers. */
    private static String strip(String answer) {
        return answer.replaceAll("(?m)^0x[0-9a-f]+: ", "");
    }

    @Test
    void headersComeLastDeclaredFirstAndEntriesInKeyOrder() {
        assertThat(show("")).isEqualTo("# table: ints, type: integer, size:10, used:0\n# table: fe, type: ip, size:3, used:0\n");
        for (String k : new String[] {"4294967295", "12", "0", "5"}) {
            assertThat(set("ints key " + k)).isEmpty();
        }
        assertThat(strip(show("ints"))).isEqualTo("""
                # table: ints, type: integer, size:10, used:4
                key=0 use=0 exp=0 gpc0=0
                key=5 use=0 exp=0 gpc0=0
                key=12 use=0 exp=0 gpc0=0
                key=4294967295 use=0 exp=0 gpc0=0
                """);
        assertThat(set("fe key 10.0.0.2 data.conn_cnt 1")).isEmpty();
        assertThat(set("fe key 9.0.0.1 data.conn_cnt 2")).isEmpty();
        assertThat(strip(show("fe data.conn_cnt gt 0"))).isEqualTo("""
                # table: fe, type: ip, size:3, used:2
                key=9.0.0.1 use=0 exp=30000 conn_cnt=2 http_req_rate(10000)=0 gpc0=0 gpc1=0
                key=10.0.0.2 use=0 exp=30000 conn_cnt=1 http_req_rate(10000)=0 gpc0=0 gpc1=0
                """);
        assertThat(show("fe key 9.9.9.9")).isEmpty();
        assertThat(strip(show("fe key 9.0.0.1"))).startsWith("# table: fe, type: ip, size:3, used:2\nkey=9.0.0.1 ");
        assertThat(show("nope")).isEqualTo("No such table\n");
        assertThat(show("fe data.x eq 1")).isEqualTo("Filter entry #1: Unknown data type\n");
    }

    @Test
    void setAppliesTheValuesBeforeABadOneAndStillTouches() {
        assertThat(set("fe key 3.3.3.3 data.conn_cnt 4 data.foo 1 data.http_req_rate 5")).isEqualTo("Unknown data type\n");
        clock.advance(1000);
        assertThat(set("fe key 3.3.3.3 data.gpc 7 data.gpc[1] 8 data.conn_cnt x")).isEqualTo("Require a valid integer value to store\n");
        assertThat(strip(show("fe key 3.3.3.3"))).endsWith("key=3.3.3.3 use=0 exp=30000 conn_cnt=4 http_req_rate(10000)=0 gpc0=7 gpc1=8\n");
        assertThat(set("fe key 5.5.5.5 data.conn_cnt -1 data.http_req_rate 7")).isEmpty();
        assertThat(strip(show("fe key 5.5.5.5"))).contains(" conn_cnt=4294967295 http_req_rate(10000)=7 ");
        assertThat(set("")).isEqualTo("Required arguments: <table> key <key> [data.<store_data_type> <value>]*\n");
        assertThat(set("fe")).isEqualTo("Required arguments: <table> key <key> [data.<store_data_type> <value>]*\n");
        assertThat(fe.used()).isEqualTo(2);
    }

    @Test
    void aFullTableWithTrackedEntriesCannotTakeMore() {
        StickEntry[] held = new StickEntry[3];
        for (int i = 0; i < 3; i++) {
            held[i] = fe.track(StickKey.ipv4(0x01010101 + i));
        }
        assertThat(set("fe key 2.2.2.2")).isEqualTo("Unable to allocate a new entry\n");
        assertThat(clear("fe key 1.1.1.1")).isEqualTo("Entry currently in use, cannot remove\n");
        assertThat(clear("fe")).isEmpty();
        assertThat(fe.used()).isEqualTo(3);
        assertThat(strip(show("fe key 1.1.1.2"))).contains("key=1.1.1.2 use=1 ");
        for (StickEntry e : held) {
            fe.untrack(e);
        }
        assertThat(clear("fe key 1.1.1.1")).isEmpty();
        assertThat(clear("fe key 1.1.1.1")).isEmpty();
        assertThat(clear("fe data.gpc eq 0")).isEmpty();
        assertThat(fe.used()).isZero();
        assertThat(clear("")).isEqualTo("Required arguments: <table> \"data.<store_data_type>\" <operator> <value> or <table> key <key>\n");
        assertThat(clear("nope key 1")).isEqualTo("No such table\n");
    }

    @Test
    void belowOperatorLevel() {
        set("fe key 1.1.1.1");
        assertThat(TableCli.show(tables, w(""), false)).contains("# table: fe, type: ip, size:3, used:1\n");
        assertThat(TableCli.show(tables, w("fe"), false))
                .isEqualTo("# table: fe, type: ip, size:3, used:1\n# contents not dumped due to insufficient privileges\n");
        assertThat(TableCli.show(tables, w("fe data.conn_cnt eq 0"), false)).endsWith("# contents not dumped due to insufficient privileges\n");
        assertThat(TableCli.show(tables, w("fe key 1.1.1.1"), false)).isEqualTo("Permission denied\n");
        assertThat(TableCli.show(tables, w("fe key"), false)).isEqualTo("Key value expected\n");
        assertThat(TableCli.set(tables, w("fe key 2.2.2.2"), false)).isEqualTo("Permission denied\n");
        assertThat(TableCli.set(tables, w("ints key x"), false)).isEqualTo("Invalid key\n");
        assertThat(TableCli.clear(tables, w("fe key 1.1.1.1"), false)).isEqualTo("Permission denied\n");
        assertThat(TableCli.clear(tables, w("fe"), false)).isEmpty();
        assertThat(TableCli.clear(tables, w("fe data.conn_cnt"), false)).startsWith("Filter entry #1: Require and operator");
        assertThat(fe.used()).isEqualTo(1);
    }

    @Test
    void pointersAddressEntriesToo() {
        set("fe key 1.1.1.1");
        String ptr = show("fe key 1.1.1.1").lines().skip(1).findFirst().orElseThrow().split(":")[0];
        assertThat(set("fe ptr " + ptr + " data.conn_cnt 9")).isEmpty();
        assertThat(show("fe ptr " + ptr)).contains(" conn_cnt=9 ");
        assertThat(set("fe ptr 0x1 data.conn_cnt 9")).isEqualTo("No entry can be found matching passed pointer.\n");
        assertThat(clear("fe ptr " + ptr)).isEmpty();
        assertThat(fe.used()).isZero();
    }
}

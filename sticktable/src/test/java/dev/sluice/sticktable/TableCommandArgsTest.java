package dev.sluice.sticktable;

import static dev.sluice.sticktable.TableCommand.Action.CLEAR;
import static dev.sluice.sticktable.TableCommand.Action.SET;
import static dev.sluice.sticktable.TableCommand.Action.SHOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsing of show/clear/set table arguments with HAProxy's messages, and running the commands. */
class TableCommandArgsTest {
    private final ManualClock clock = new ManualClock(1000);
    private final StickTable ipTable = new StickTable("fe_main",
            StickTableSpec.of(KeyType.IP, 100, 30_000).withStore(StoreSpec.parse("gpc0,conn_cnt,http_req_rate(10s),server_key", null)),
            ManualClock.options(clock));

    private static List<String> words(String s) {
        return s.isEmpty() ? List.of() : Arrays.asList(s.split(" "));
    }

    private TableCommand parse(TableCommand.Action a, String args) {
        return TableCommandArgs.parse(a, ipTable, words(args));
    }

    private void fails(TableCommand.Action a, StickTable t, String args, String message) {
        assertThatThrownBy(() -> TableCommandArgs.parse(a, t, words(args))).as(args)
                .isInstanceOf(TableCommandException.class).hasMessage(message);
    }

    private void fails(TableCommand.Action a, String args, String message) {
        fails(a, ipTable, args, message);
    }

    @Test
    void queries() {
        assertThat(parse(SHOW, "").query()).isEqualTo(new TableQuery.All());
        assertThat(parse(CLEAR, "").query()).isEqualTo(new TableQuery.All());
        assertThat(parse(SHOW, "key 10.0.0.1").query()).isEqualTo(new TableQuery.ByKey(StickKey.ipv4(0x0A000001)));
        assertThat(parse(CLEAR, "ptr 0x1f").query()).isEqualTo(new TableQuery.ByPtr(0x1f));
        assertThat(parse(SHOW, "data.gpc0 gt 3").query())
                .isEqualTo(new TableQuery.Filtered(List.of(new EntryFilter(DataType.GPC0, 0, EntryFilter.Op.GT, 3))));
        TableCommand set = parse(SET, "key 10.0.0.1 data.gpc0 5 data.http_req_rate 3 data.server_key 7");
        // 2.6 reads a number for server_key and has nothing to store it with
        assertThat(set.values()).containsExactly(DataAssignment.of(DataType.GPC0, 5), DataAssignment.of(DataType.HTTP_REQ_RATE, 3));
        assertThat(set.error()).isNull();
        // show and clear ignore what follows the key
        assertThat(parse(CLEAR, "key 10.0.0.1 extra").query()).isEqualTo(new TableQuery.ByKey(StickKey.ipv4(0x0A000001)));
    }

    @Test
    void cliKeysAreReadAsHaproxy26ReadsThem() {
        // ip keys through inetaddr_host: never invalid (outputs captured from HAProxy 2.6.12)
        String[][] ip = {{"1.2.3", "1.2.3.0"}, {"abc", "0.0.0.0"}, {"10", "10.0.0.0"}, {"1.2.3.4.5", "1.2.3.4"},
            {"1234.1.1.1", "234.1.1.1"}, {"1.1.1.300", "1.1.2.44"}, {".1", "0.1.0.0"}, {"1..1", "1.0.1.0"}, {"1.1.1.1x", "1.1.1.1"}};
        for (String[] c : ip) {
            assertThat(ipTable.formatKey(((TableQuery.ByKey) parse(SHOW, "key " + c[0]).query()).key())).as(c[0]).isEqualTo(c[1]);
        }
        StickTable ints = new StickTable("i", StickTableSpec.of(KeyType.INTEGER, 10, 0));
        String[][] in = {{"12abc", "12"}, {"+5", "5"}, {"0x10", "0"}, {"4294967295", "4294967295"}, {"-0", "0"}, {"\t7", "7"}};
        for (String[] c : in) {
            String text = c[0].replace("\\t", "\t");
            TableCommand cmd = TableCommandArgs.parse(SET, ints, List.of("key", text));
            assertThat(ints.formatKey(((TableQuery.ByKey) cmd.query()).key())).as(c[0]).isEqualTo(c[1]);
        }
        for (String bad : new String[] {"abc", "-1", "4294967296", "'", "99999999999999999999999"}) {
            fails(SET, ints, "key " + bad, "Invalid key");
        }
        StickTable v6 = new StickTable("v", StickTableSpec.of(KeyType.IPV6, 10, 0));
        for (String bad : new String[] {"1.2.3.4", "[::1]", "::1%lo", "x"}) {
            fails(SET, v6, "key " + bad, "Invalid key");
        }
        StickTable str = new StickTable("s", new StickTableSpec(KeyType.STRING, 4, 10, 0, false, null, null, null));
        assertThat(str.formatKey(((TableQuery.ByKey) TableCommandArgs.parse(SHOW, str, words("key abcdefg")).query()).key())).isEqualTo("abcd");
    }

    @Test
    void keyErrors() {
        fails(SHOW, "key", "Key value expected");
        StickTable ints = new StickTable("i", StickTableSpec.of(KeyType.INTEGER, 10, 0));
        fails(SHOW, ints, "key 4294967296", "Invalid key");
        StickTable bin = new StickTable("b", StickTableSpec.of(KeyType.BINARY, 10, 0));
        fails(SHOW, bin, "key 00", "Showing keys from tables of type other than ip, ipv6, string and integer is not supported");
        fails(CLEAR, bin, "key 00", "Removing keys from tables of type other than ip, ipv6, string and integer is not supported");
        fails(SET, bin, "key 00", "Inserting keys into tables of type other than ip, ipv6, string and integer is not supported");
        fails(SHOW, "ptr", "Pointer expected (0xffff notation)");
        fails(SHOW, "ptr 0xzz", "Pointer expected (0xffff notation)");
    }

    @Test
    void filterErrorsNameTheFilter() {
        fails(SHOW, "data.bogus eq 1", "Filter entry #1: Unknown data type");
        fails(SHOW, "data.http_err_cnt eq 1", "Filter entry #1: Data type not stored in this table");
        fails(SHOW, "data.gpc0 xx 1", "Filter entry #1: Require and operator among \"eq\", \"ne\", \"le\", \"ge\", \"lt\", \"gt\"");
        fails(SHOW, "data.gpc0", "Filter entry #1: Require and operator among \"eq\", \"ne\", \"le\", \"ge\", \"lt\", \"gt\"");
        fails(SHOW, "data.gpc0 eq x", "Filter entry #1: Require a valid integer value to compare against");
        fails(CLEAR, "data.gpc0 eq", "Filter entry #1: Require a valid integer value to compare against");
        fails(SHOW, "data.gpc0 eq 1 data.nope eq 1", "Filter entry #2: Unknown data type");
        fails(SHOW, "data.gpc0 eq 1 gpc0 eq 1", "Filter entry #2: Unknown data type");
        fails(SHOW, "data.gpc0 eq +1", "Filter entry #1: Require a valid integer value to compare against");
        fails(SHOW, "data.gpc0 eq 99999999999999999999", "Filter entry #1: Require a valid integer value to compare against");
        fails(SHOW, "data.gpc0 eq 1 data.gpc0", "Filter entry #2: Require and operator among \"eq\", \"ne\", \"le\", \"ge\", \"lt\", \"gt\"");
        fails(SHOW, "data.gpc0 eq 1 data.gpc0 eq", "Filter entry #2: Require a valid integer value to compare against");
        // server_key reads as 0 in 2.6
        assertThat(((TableQuery.Filtered) parse(SHOW, "data.server_key eq 0").query()).filters())
                .containsExactly(new EntryFilter(DataType.SERVER_KEY, 0, EntryFilter.Op.EQ, 0));
        fails(SHOW, "data.gpc0 eq 1 data.gpc0 eq 2 data.gpc0 eq 3 data.gpc0 eq 4 data.gpc0 eq 5",
                "Detected extra data in filter, 16th word of input, after '4'");
        assertThat(((TableQuery.Filtered) parse(SHOW, "data.gpc0 eq 1 data.gpc0 ne 2 data.conn_cnt le 3 data.http_req_rate lt 4").query())
                .filters()).hasSize(4);
        fails(SET, "data.gpc0 eq 1", "content-based lookup is only supported with the \"show\" and \"clear\" actions");
    }

    @Test
    void arrayElementsUseBrackets() {
        StickTable t = new StickTable("a", StickTableSpec.of(KeyType.IP, 10, 0).withStore(StoreSpec.parse("gpc(2),gpc_rate(2,10s)", null)));
        TableCommand c = TableCommandArgs.parse(SHOW, t, words("data.gpc[1] gt 0 data.gpc_rate[0] ge 2"));
        assertThat(((TableQuery.Filtered) c.query()).filters()).containsExactly(
                new EntryFilter(DataType.GPC, 1, EntryFilter.Op.GT, 0), new EntryFilter(DataType.GPC_RATE, 0, EntryFilter.Op.GE, 2));
        // The printed name is not a data type (HAProxy answers the same).
        fails(SHOW, t, "data.gpc0_rate gt 1", "Filter entry #1: Data type not stored in this table");
        fails(SHOW, t, "data.gpc[2] gt 1", "Filter entry #1: Data type not stored in this table");
        fails(SHOW, t, "data.gpc[x] gt 1", "Filter entry #1: Unknown data type");
        assertThat(TableCommandArgs.parse(SET, t, words("key 1.2.3.4 data.gpc[1] 7")).values())
                .containsExactly(new DataAssignment(DataType.GPC, 1, 7, null));
    }

    @Test
    void setErrors() {
        // 2.6 clears the whole table here (its dump loop runs the clear branch): Sluice answers the usage
        fails(SET, "", "Required arguments: <table> key <key> [data.<store_data_type> <value>]*");
        fails(SET, "foo", "Required arguments: <table> key <key> [data.<store_data_type> <value>]*");
        fails(SHOW, "bogus", "Optional argument only supports \"data.<store_data_type>\" <operator> <value> and key <key>");
        fails(CLEAR, "bogus", "Required arguments: <table> \"data.<store_data_type>\" <operator> <value> or <table> key <key>");
        // a bad assignment stops the list: those before it are kept and applied, the error comes after
        String[][] cases = {
            {"key 10.0.0.1 gpc0 1", "\"data.<type>\" followed by a value expected"},
            {"key 10.0.0.1 data.nope 1", "Unknown data type"},
            {"key 10.0.0.1 data.sess_cnt 1", "Data type not stored in this table"},
            {"key 10.0.0.1 data.gpc0 abc", "Require a valid integer value to store"},
            {"key 10.0.0.1 data.gpc0", "Require a valid integer value to store"},
            {"key 10.0.0.1 data.gpc0 +3", "Require a valid integer value to store"},
            {"key 10.0.0.1 data.gpc0 12abc", "Require a valid integer value to store"},
            {"key 10.0.0.1 data.gpc0 99999999999999999999", "Require a valid integer value to store"},
        };
        for (String[] c : cases) {
            TableCommand cmd = parse(SET, c[0]);
            assertThat(cmd.error()).as(c[0]).isEqualTo(c[1]);
            assertThat(cmd.values()).isEmpty();
        }
        TableCommand partial = parse(SET, "key 10.0.0.1 data.conn_cnt 4 data.foo 1 data.gpc0 5");
        assertThat(partial.values()).containsExactly(DataAssignment.of(DataType.CONN_CNT, 4));
        assertThat(partial.error()).isEqualTo("Unknown data type");
        assertThat(parse(SET, "key 10.0.0.1 data.gpc0 -").values()).containsExactly(DataAssignment.of(DataType.GPC0, 0));
        assertThat(parse(SET, "key 10.0.0.1 data.gpc0 -9223372036854775808").values())
                .containsExactly(DataAssignment.of(DataType.GPC0, Long.MIN_VALUE));
    }

    private List<String> show(String args) {
        List<String> lines = new ArrayList<>();
        ipTable.forEach(parse(SHOW, args).query(), e -> lines.add(ipTable.formatKey(e.key())));
        lines.sort(null);
        return lines;
    }

    @Test
    void setCreatesAndUpdatesEntriesAndRatesBecomeTheCurrentCount() {
        TableCommand c = parse(SET, "key 10.0.0.1 data.gpc0 5 data.http_req_rate 3 data.server_key 1");
        StickEntry e = ipTable.set(c.query(), c.values());
        assertThat(e).isNotNull();
        assertThat(TableDump.entry(e)).endsWith(" key=10.0.0.1 use=0 exp=30000 gpc0=5 conn_cnt=0 http_req_rate(10000)=3 server_key=-");
        clock.advance(10_001);
        assertThat(e.get(DataType.HTTP_REQ_RATE)).isEqualTo(2); // 3 * 9999 / 10000: the value faded from the next period on
        TableCommand byPtr = parse(SET, "ptr 0x" + Long.toHexString(e.ptr()) + " data.conn_cnt 8");
        assertThat(ipTable.set(byPtr.query(), byPtr.values())).isSameAs(e);
        assertThat(e.get(DataType.CONN_CNT)).isEqualTo(8);
        assertThat(e.expireAt()).isEqualTo(clock.nowMillis() + 30_000);
        assertThat(ipTable.set(new TableQuery.ByPtr(1), List.of())).isNull();
    }

    @Test
    void showAndClearWithFiltersSkipTrackedEntries() {
        for (int i = 1; i <= 5; i++) {
            TableCommand c = parse(SET, "key 10.0.0." + i + " data.gpc0 " + (i % 2));
            ipTable.set(c.query(), c.values());
        }
        assertThat(show("")).containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5");
        assertThat(show("data.gpc0 eq 0")).containsExactly("10.0.0.2", "10.0.0.4");
        assertThat(show("data.gpc0 ne 0 data.conn_cnt eq 0")).containsExactly("10.0.0.1", "10.0.0.3", "10.0.0.5");
        assertThat(show("key 10.0.0.3")).containsExactly("10.0.0.3");
        assertThat(show("key 10.9.9.9")).isEmpty();
        StickEntry held = ipTable.track(StickKey.ipv4(0x0A000002));
        assertThat(ipTable.clear(parse(CLEAR, "data.gpc0 eq 0").query())).isEqualTo(new ClearResult(1, 1));
        assertThat(show("")).containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.5");
        assertThat(ipTable.clear(parse(CLEAR, "key 10.0.0.2").query())).isEqualTo(new ClearResult(0, 1));
        assertThat(ipTable.clear(parse(CLEAR, "key 10.0.0.9").query())).isEqualTo(new ClearResult(0, 0));
        assertThat(ipTable.clear(parse(CLEAR, "ptr 0x" + Long.toHexString(ipTable.lookup(StickKey.ipv4(0x0A000001)).ptr())).query()))
                .isEqualTo(new ClearResult(1, 0));
        assertThat(ipTable.clear(parse(CLEAR, "").query())).isEqualTo(new ClearResult(2, 1));
        assertThat(show("")).containsExactly("10.0.0.2");
        ipTable.untrack(held);
        assertThat(ipTable.used()).isEqualTo(1);
    }
}

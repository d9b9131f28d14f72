package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoreSpecTest {

    private static StoreSpec parse(String s) {
        return StoreSpec.parse(s, null);
    }

    private static void fails(String list, String message) {
        assertThatThrownBy(() -> parse(list)).as(list).isInstanceOf(StickTableConfigException.class).hasMessage(message);
    }

    @Test
    void parsesTheCanonicalList() {
        StoreSpec s = parse("http_req_rate(10s),conn_cur,gpc(3),gpc_rate(2,10s),gpt0");
        assertThat(s.items()).containsExactly(
                StoreItem.rate(DataType.HTTP_REQ_RATE, 10_000),
                StoreItem.of(DataType.CONN_CUR),
                new StoreItem(DataType.GPC, 3, 0),
                new StoreItem(DataType.GPC_RATE, 2, 10_000),
                StoreItem.of(DataType.GPT0));
        assertThat(s.byId()).extracting(StoreItem::type)
                .containsExactly(DataType.GPT0, DataType.CONN_CUR, DataType.HTTP_REQ_RATE, DataType.GPC, DataType.GPC_RATE);
        assertThat(s.toConfigString()).isEqualTo("http_req_rate(10000),conn_cur,gpc(3),gpc_rate(2,10000),gpt0");
    }

    @Test
    void theIssueExampleMixesGpcAndGpc0WhichHaproxyRefuses() {
        // HAProxy (stick_table.c, parse_stick_table) rejects gpc(n) beside gpc0/gpc1, since its fetches read
        // gpc0 from gpc[0] when there is no gpc0; Sluice answers the same for a config HAProxy would refuse.
        fails("http_req_rate(10s),conn_cur,gpc0,gpc(3),gpc_rate(2,10s)",
                "simultaneous usage of 'gpc' and 'gpc[0/1]' in a same table is not permitted as 'gpc' overrides 'gpc[0/1]'");
        assertThat(parse("http_req_rate(10s),conn_cur,gpc0").items()).hasSize(3);
    }

    @Test
    void everyDataTypeParses() {
        for (DataType t : DataType.values()) {
            String item = t.isArray() ? (t.isRate() ? t.haproxyName() + "(2,1s)" : t.haproxyName() + "(2)")
                    : t.isRate() ? t.haproxyName() + "(1s)" : t.haproxyName();
            StoreSpec s = parse(item);
            assertThat(s.has(t)).as(item).isTrue();
            assertThat(s.item(t).count()).isEqualTo(t.isArray() ? 2 : 1);
            assertThat(s.item(t).periodMs()).isEqualTo(t.isRate() ? 1000 : 0);
        }
        assertThat(parse("server_name").has(DataType.SERVER_KEY)).isTrue();
    }

    @Test
    void periodsUseHaproxyTimeUnits() {
        assertThat(parse("conn_rate(1500)").item(DataType.CONN_RATE).periodMs()).isEqualTo(1500);
        assertThat(parse("conn_rate(250ms)").item(DataType.CONN_RATE).periodMs()).isEqualTo(250);
        assertThat(parse("conn_rate(1500us)").item(DataType.CONN_RATE).periodMs()).isEqualTo(2);
        assertThat(parse("conn_rate(30s)").item(DataType.CONN_RATE).periodMs()).isEqualTo(30_000);
        assertThat(parse("conn_rate(2m)").item(DataType.CONN_RATE).periodMs()).isEqualTo(120_000);
        assertThat(parse("conn_rate(1h)").item(DataType.CONN_RATE).periodMs()).isEqualTo(3_600_000);
        assertThat(parse("conn_rate(1d)").item(DataType.CONN_RATE).periodMs()).isEqualTo(86_400_000);
    }

    @Test
    void unknownTypesAreErrorsWithASuggestion() {
        fails("http_req_rat(10s)", "unknown store option 'http_req_rat'; did you mean 'http_req_rate' maybe ?");
        fails("conn_cur,bogus", "unknown store option 'bogus'");
        fails("gpc0,,gpc1", "empty data type in store list (two commas in a row, or a trailing comma?)");
        fails("gpc0,", "empty data type in store list (two commas in a row, or a trailing comma?)");
    }

    @Test
    void badPeriodsAreErrors() {
        fails("http_req_rate", "missing argument to store option 'http_req_rate' (expected a period, e.g. http_req_rate(10s))");
        fails("http_req_rate()", "missing argument to store option 'http_req_rate' (expected a period, e.g. http_req_rate(10s))");
        fails("http_req_rate(10x)", "unexpected character 'x' in argument of 'http_req_rate' (units are us, ms, s, m, h, d)");
        fails("http_req_rate(10sec)", "unexpected character 's' in argument of 'http_req_rate' (units are us, ms, s, m, h, d)");
        fails("http_req_rate(s)", "unexpected character 's' in argument of 'http_req_rate' (units are us, ms, s, m, h, d)");
        fails("http_req_rate(0)", "the period of store option 'http_req_rate' must be greater than zero");
        fails("http_req_rate(30d)", "timer overflow in argument <30d> to <http_req_rate>, maximum value is 2147483647 ms (~24.8 days)");
        fails("http_req_rate(10s", "missing closing parenthesis after store option 'http_req_rate'");
        fails("http_req_rate(10s,1)", "too many arguments to store option 'http_req_rate' (expected http_req_rate(10s))");
        fails("gpc_rate(2)", "missing argument to store option 'gpc_rate' (expected a period, e.g. gpc_rate(3,10s))");
        fails("gpc_rate(2,10q)", "unexpected character 'q' in argument of 'gpc_rate' (units are us, ms, s, m, h, d)");
    }

    @Test
    void argumentsWhereNoneBelongAreErrors() {
        fails("conn_cur(10s)", "unexpected argument to store option 'conn_cur' (it takes none)");
        fails("gpc(3,10s)", "too many arguments to store option 'gpc' (expected gpc(3))");
    }

    @Test
    void arraySizesAreChecked() {
        fails("gpc", "missing argument to store option 'gpc' (expected an element count, e.g. gpc(3))");
        fails("gpc(0)", "array size is out of allowed range (1-100) for store option 'gpc'");
        fails("gpt(101)", "array size is out of allowed range (1-100) for store option 'gpt'");
        fails("gpc_rate(x,1s)", "array size is out of allowed range (1-100) for store option 'gpc_rate'");
        assertThat(parse("gpt(100)").item(DataType.GPT).count()).isEqualTo(100);
    }

    @Test
    void arraysExcludeTheLegacyScalarsTheyReplace() {
        fails("gpt(2),gpt0", "simultaneous usage of 'gpt' and 'gpt0' in a same table is not permitted as 'gpt' overrides 'gpt0'");
        fails("gpc1,gpc(2)", "simultaneous usage of 'gpc' and 'gpc[0/1]' in a same table is not permitted as 'gpc' overrides 'gpc[0/1]'");
        fails("gpc_rate(2,1s),gpc0_rate(1s)",
                "simultaneous usage of 'gpc_rate' and 'gpc[0/1]_rate' in a same table is not permitted as 'gpc_rate' overrides 'gpc[0/1]_rate'");
    }

    @Test
    void duplicatesAreWarnedAndIgnored() {
        List<String> warnings = new ArrayList<>();
        StoreSpec s = StoreSpec.parse("gpc0,conn_rate(10s),gpc0,conn_rate(20s)", warnings::add);
        assertThat(s.items()).containsExactly(StoreItem.of(DataType.GPC0), StoreItem.rate(DataType.CONN_RATE, 10_000));
        assertThat(warnings).containsExactly("store option 'gpc0' already enabled, ignored", "store option 'conn_rate' already enabled, ignored");
        // Several store keywords accumulate.
        StoreSpec more = s.plus("conn_cur", warnings::add);
        assertThat(more.items()).hasSize(3);
    }
}

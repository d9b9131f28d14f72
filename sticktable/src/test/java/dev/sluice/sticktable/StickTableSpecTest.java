package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class StickTableSpecTest {

    private static StickTableSpec parse(String line) {
        return StickTableSpec.parse(Arrays.asList(line.split(" ")), null);
    }

    private static void fails(String line, String message, int argIndex) {
        assertThatThrownBy(() -> parse(line)).as(line).isInstanceOfSatisfying(StickTableConfigException.class, e -> {
            assertThat(e).hasMessage(message);
            assertThat(e.argIndex()).isEqualTo(argIndex);
        });
    }

    @Test
    void parsesTheCanonicalRateLimiter() {
        StickTableSpec s = parse("type ip size 1m expire 30s store http_req_rate(10s),conn_cur,gpc0");
        assertThat(s.keyType()).isEqualTo(KeyType.IP);
        assertThat(s.keyLength()).isEqualTo(4);
        assertThat(s.size()).isEqualTo(1024 * 1024);
        assertThat(s.expireMs()).isEqualTo(30_000);
        assertThat(s.noPurge()).isFalse();
        assertThat(s.peers()).isNull();
        assertThat(s.store().items()).extracting(StoreItem::type).containsExactly(DataType.HTTP_REQ_RATE, DataType.CONN_CUR, DataType.GPC0);
    }

    @Test
    void parsesEveryOption() {
        StickTableSpec s = parse("type string len 64 size 100k expire 1h nopurge peers mypeers srvkey addr store gpc0 store conn_rate(5s)");
        assertThat(s.keyType()).isEqualTo(KeyType.STRING);
        assertThat(s.keyLength()).isEqualTo(64);
        assertThat(s.size()).isEqualTo(102_400);
        assertThat(s.expireMs()).isEqualTo(3_600_000);
        assertThat(s.noPurge()).isTrue();
        assertThat(s.peers()).isEqualTo("mypeers");
        assertThat(s.serverKeySource()).isEqualTo(StickTableSpec.ServerKeySource.ADDR);
        assertThat(s.store().toConfigString()).isEqualTo("gpc0,conn_rate(5000)");
    }

    @Test
    void keyTypesAndLengths() {
        assertThat(parse("type ipv4 size 1").keyType()).isEqualTo(KeyType.IP);
        assertThat(parse("type ipv6 size 1").keyLength()).isEqualTo(16);
        assertThat(parse("type integer size 1").keyLength()).isEqualTo(4);
        assertThat(parse("type string size 1").keyLength()).isEqualTo(32);
        assertThat(parse("type binary size 1").keyLength()).isEqualTo(32);
        assertThat(parse("type binary len 8 size 1").keyLength()).isEqualTo(8);
        assertThat(parse("size 1g type ip").size()).isEqualTo(1 << 30);
        assertThat(parse("type ip size 12K").size()).isEqualTo(12 * 1024);
    }

    @Test
    void errorsNameTheWordAtFault() {
        fails("type foo size 1", "unknown type 'foo'; expected ip, ipv6, integer, string or binary", 1);
        fails("type", "missing argument after 'type'", 0);
        fails("type string len 0 size 1", "invalid length '0' for type string: expected an integer between 1 and 65535", 3);
        fails("type string len x size 1", "invalid length 'x' for type string: expected an integer between 1 and 65535", 3);
        fails("type ip len 4 size 1", "'len' only applies right after 'type string' or 'type binary'", 2);
        fails("type ip size", "missing argument after 'size'", 2);
        fails("type ip size 0", "size must be greater than zero", 3);
        fails("type ip size 10x", "unexpected character 'x' in argument of 'size' (suffixes are k, m, g)", 3);
        fails("type ip size 10kb", "unexpected character 'b' in argument of 'size' (suffixes are k, m, g)", 3);
        fails("type ip size k", "unexpected character 'k' in argument of 'size' (suffixes are k, m, g)", 3);
        fails("type ip size 4g", "value '4g' of 'size' is too large (at most 2147483647 entries)", 3);
        fails("type ip size 1 expire 10q", "unexpected character 'q' in argument of 'expire' (units are us, ms, s, m, h, d)", 5);
        fails("type ip size 1 expire 25d", "timer overflow in argument <25d> to <expire>, maximum value is 2147483647 ms (~24.8 days)", 5);
        fails("type ip size 1 store conn_rate", "missing argument to store option 'conn_rate' (expected a period, e.g. conn_rate(10s))", 5);
        fails("type ip size 1 store gpc0 store nope", "unknown store option 'nope'", 7);
        fails("type ip size 1 srvkey id", "unknown server key type 'id' (expected 'name' or 'addr')", 5);
        fails("type ip size 1 bogus", "unknown argument 'bogus'; expected type, size, expire, nopurge, peers, srvkey or store", 4);
        fails("type ip size 1 recv-only", "'recv-only' is not supported by Sluice yet", 4);
        fails("size 1", "missing type", -1);
        fails("type ip", "missing size", -1);
    }

    @Test
    void duplicateStoreTypesAreWarnings() {
        List<String> warnings = new ArrayList<>();
        StickTableSpec s = StickTableSpec.parse(List.of("type", "ip", "size", "10", "store", "gpc0", "store", "gpc0"), warnings::add);
        assertThat(s.store().items()).hasSize(1);
        assertThat(warnings).containsExactly("store option 'gpc0' already enabled, ignored");
    }
}

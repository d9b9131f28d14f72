package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UnitsTest {

    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource({
            "0, 0",
            "100, 100",
            "100ms, 100",
            "0us, 0",
            "1us, 1",
            "999us, 1",
            "1000us, 1",
            "1001us, 2",
            "2500us, 3",
            "2s, 2000",
            "3m, 180000",
            "2h, 7200000",
            "1d, 86400000",
            "24d, 2073600000",
            "2147483647, 2147483647",
            "2147483647000us, 2147483647",
            "007s, 7000",
    })
    void times(String text, long millis) {
        assertThat(Units.parseTimeMillis(text)).isEqualTo(millis);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "\"\"                    | '' is not a time: expected a number with an optional unit (us, ms, s, m, h, d)",
            "s                       | 's' is not a time",
            "-1                      | '-1' is not a time",
            "1.5s                    | unexpected character '.' in time value '1.5s': units are us, ms, s, m, h, d",
            "10x                     | unexpected character 'x' in time value '10x'",
            "10S                     | unexpected character 'S'",
            "10sec                   | unexpected character 's' in time value '10sec'",
            "10 s                    | unexpected character ' '",
            "25d                     | time value '25d' is too large (maximum is 2147483647 ms, about 24.8 days)",
            "2147483648              | time value '2147483648' is too large (maximum",
            "2147483648000us         | time value '2147483648000us' is too large (maximum",
            "9223372036854775807us   | time value '9223372036854775807us' is too large (maximum",
            "9223372036854775807     | time value '9223372036854775807' is too large (maximum",
            "99999999999999999999    | time value '99999999999999999999' is too large",
            "1000000000000d          | value '1000000000000d' is too large",
    })
    void badTimes(String text, String message) {
        assertThatThrownBy(() -> Units.parseTimeMillis(text)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource({
            "0, 0",
            "512, 512",
            "1k, 1024",
            "2K, 2048",
            "3m, 3145728",
            "3M, 3145728",
            "1g, 1073741824",
            "8G, 8589934592",
    })
    void sizes(String text, long bytes) {
        assertThat(Units.parseSize(text)).isEqualTo(bytes);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "\"\"                  | '' is not a size: expected a number with an optional k, m or g suffix",
            "k                     | 'k' is not a size",
            "1t                    | unexpected suffix 't' in size value '1t': use k, m or g",
            "1kb                   | unexpected suffix 'kb'",
            "9999999999g           | value '9999999999g' is too large",
            "99999999999999999999  | size value '99999999999999999999' is too large",
    })
    void badSizes(String text, String message) {
        assertThatThrownBy(() -> Units.parseSize(text)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0} in [{1}, {2}]")
    @CsvSource({
            "5, 1, 10, 5",
            "1, 1, 10, 1",
            "10, 1, 10, 10",
            "0, 0, 0, 0",
            "-3, -5, 5, -3",
            "2147483647, 1, 2147483647, 2147483647",
    })
    void integers(String text, int min, int max, int expected) {
        assertThat(Units.parseInt(text, "n", min, max)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} in [{1}, {2}]")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "0                     | 1 | 10         | n must be between 1 and 10 (got 0)",
            "11                    | 1 | 10         | n must be between 1 and 10 (got 11)",
            "-1                    | 0 | 10         | n must be between 0 and 10 (got -1)",
            "2147483648            | 1 | 2147483647 | n must be between 1 and 2147483647 (got 2147483648)",
            "99999999999999999999  | 1 | 2147483647 | n must be between 1 and 2147483647 (got 99999999999999999999)",
            "abc                   | 1 | 10         | n expects an integer, not 'abc'",
            "1a                    | 1 | 10         | n expects an integer, not '1a'",
            "\"\"                  | 1 | 10         | n expects an integer, not ''",
            "-                     | 1 | 10         | n expects an integer, not '-'",
            "+5                    | 1 | 10         | n expects an integer, not '+5'",
            "-5x                   | -9 | 10        | n expects an integer, not '-5x'",
    })
    void badIntegers(String text, int min, int max, String message) {
        assertThatThrownBy(() -> Units.parseInt(text, "n", min, max)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }
}

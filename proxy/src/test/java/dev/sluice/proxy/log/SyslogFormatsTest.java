package dev.sluice.proxy.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.LogTarget;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Parsing received syslog messages and heading them again, with what HAProxy 2.6.12 forwarded for the same input (a
 * log-forward section, UDP in, a UDP target in rfc5424 and a ring in rfc3164; the dates without one are now's).
 */
class SyslogFormatsTest {
    /** 2026-12-07T02:39:56.312212Z. */
    private static final long NOW = ZonedDateTime.of(2026, 12, 7, 2, 39, 56, 312_212_000, ZoneOffset.UTC).toInstant().toEpochMilli() * 1000
            + 212;

    private static String forward(String in, LogTarget.Format format, int targetFacility) {
        SyslogMessage m = SyslogMessage.parse(in);
        int facility = m.facility() == -1 ? targetFacility : m.facility();
        int level = Math.max(m.level(), 0);
        SyslogMessage.Fields f = m.fields() == null ? SyslogMessage.Fields.NONE : m.fields();
        return SyslogHeader.build(format, level, facility, f, NOW, ZoneOffset.UTC) + m.message();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "<13>Dec  7 02:40:00 myhost app[42]: hello 3164 => <13>1 2026-12-07T02:40:00-00:00 myhost app 42 - - hello 3164"
                    + " => <13>Dec  7 02:40:00 myhost app[42]: hello 3164",
            "`<165>1 2026-12-07T02:40:01.123Z host2 app2 99 ID47 [ex@1 a=\"b\"] hello 5424` => `<165>1 2026-12-07T02:40:01.123Z host2 app2 99"
                    + " ID47 [ex@1 a=\"b\"] hello 5424` => <165>Dec  7 02:40:01 host2 app2[99]: hello 5424",
            "no header at all => <128>1 2026-12-07T02:39:56.312212+00:00 - - - - - no header at all"
                    + " => <128>Dec  7 02:39:56 localhost no header at all",
            "<14>just prio => <14>1 2026-12-07T02:39:56.312212+00:00 - - - - - just prio => <14>Dec  7 02:39:56 localhost just prio",
            "<14>Dec  7 02:40:00 myhost notag message => <14>1 2026-12-07T02:40:00-00:00 myhost - - - - notag message"
                    + " => <14>Dec  7 02:40:00 myhost notag message",
            "<13>Dec  7 02:40:00 h t: x< => <13>1 2026-12-07T02:40:00-00:00 h t - - - x< => <13>Dec  7 02:40:00 h t: x<",
    })
    void forwardedAsHaproxyForwardsThem(String in, String rfc5424, String rfc3164) {
        assertThat(forward(in, LogTarget.Format.RFC5424, 16)).isEqualTo(rfc5424);
        assertThat(forward(in, LogTarget.Format.RFC3164, 16)).isEqualTo(rfc3164);
    }

    @Test
    void parsedFields() {
        SyslogMessage m = SyslogMessage.parse("<165>1 2026-12-07T02:40:01.123Z host2 app2 99 ID47 [ex@1 a=\"b\"][y@2 c=\"d\\]\"] text");
        assertThat(m.level()).isEqualTo(5);
        assertThat(m.facility()).isEqualTo(20);
        assertThat(m.fields()).isEqualTo(new SyslogMessage.Fields("2026-12-07T02:40:01.123Z", "host2", "app2", "99", "ID47",
                "[ex@1 a=\"b\"][y@2 c=\"d\\]\"]"));
        assertThat(m.message()).isEqualTo("text");
        // a broken RFC 5424 header keeps the priority only
        SyslogMessage bad = SyslogMessage.parse("<14>1 2026-12-07T02:40:01.123Z host");
        assertThat(bad.fields()).isNull();
        assertThat(bad.level()).isEqualTo(6);
        assertThat(bad.message()).isEqualTo("1 2026-12-07T02:40:01.123Z host");
    }

    @Test
    void everyFormatOfALocalLine() {
        SyslogMessage.Fields f = SyslogMessage.Fields.local("haproxy", "21282");
        // local0.info
        assertThat(SyslogHeader.build(LogTarget.Format.RFC3164, 6, 16, f, NOW, ZoneOffset.UTC)).isEqualTo(
                "<134>Dec  7 02:39:56 localhost haproxy[21282]: ");
        assertThat(SyslogHeader.build(LogTarget.Format.RFC5424, 6, 16, f, NOW, ZoneOffset.UTC)).isEqualTo(
                "<134>1 2026-12-07T02:39:56.312212+00:00 - haproxy 21282 - - ");
        assertThat(SyslogHeader.build(LogTarget.Format.LOCAL, 6, 16, f, NOW, ZoneOffset.UTC)).isEqualTo(
                "<134>Dec  7 02:39:56 haproxy[21282]: ");
        assertThat(SyslogHeader.build(LogTarget.Format.ISO, 6, 16, f, NOW, ZoneOffset.UTC)).isEqualTo("2026-12-07T02:39:56.312212+00:00 ");
        assertThat(SyslogHeader.build(LogTarget.Format.TIMED, 6, 16, f, NOW, ZoneOffset.UTC)).isEqualTo(
                "<6>2026-12-07T02:39:56.312212+00:00 ");
        assertThat(SyslogHeader.build(LogTarget.Format.SHORT, 6, 16, f, NOW, ZoneOffset.UTC)).isEqualTo("<6>");
        assertThat(SyslogHeader.build(LogTarget.Format.PRIORITY, 6, 16, f, NOW, ZoneOffset.UTC)).isEqualTo("<134>");
        assertThat(SyslogHeader.build(LogTarget.Format.RAW, 6, 16, f, NOW, ZoneOffset.UTC)).isEmpty();
    }
}

package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code fix_is_valid} and {@code fix_tag_value} on hand-made FIX messages ('|' stands for SOH, 0x01), each expectation
 * read from HAProxy 2.6's fix.c (and checked on haproxy 2.6.12; FixConverterParityTest compares the two live).
 */
class FixConvertersTest {
    /** The FIX 4.2 logon of the specification's examples: 65 bytes of body (35=A to 108=30|), checksum 062. */
    private static final String LOGON = "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062|";

    private static String bin(String msg) {
        return "bin(" + HexFormat.of().formatHex(msg.replace('|', '\u0001').getBytes(StandardCharsets.ISO_8859_1)) + ")";
    }

    private static Object eval(String msg, String conv) {
        return RuleCompiler.sample(bin(msg) + "," + conv).get(new FakeTxn("GET", "/"));
    }

    private static String value(String msg, String tag) {
        Object v = eval(msg, "fix_tag_value(" + tag + ")");
        return v == null ? null : new String((byte[]) v, StandardCharsets.ISO_8859_1);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", nullValues = "none", value = {
            // the logon as it is
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062| => true",
            // checksum off by one
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=063| => false",
            // body length off by one (its checksum right)
            "8=FIX.4.2|9=64|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=061| => false",
            // a body length of 0 is refused, so is one not all digits
            "8=FIX.4.2|9=0|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=003| => false",
            "8=FIX.4.2|9=+65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=105| => false",
            // BodyLength before BeginString; MsgType not third
            "9=65|8=FIX.4.2|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062| => false",
            "8=FIX.4.2|9=32|49=SERVER|35=A|56=CLIENT|34=177|10=016| => false",
            // a version fix_version does not know
            "8=FIX.4.5|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=065| => false",
            // under FIX_MSG_MINSIZE (26 bytes): no sample, not false
            "8=FIX.4.2|9=5|35=0|10=1 => none",
            "hello => none",
            // no CheckSum yet, or its SOH not there yet: more data could make it valid
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30| => none",
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062 => none",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx => none",
            // an empty value passes (HAProxy's test for it counts the '='); an empty tag does not
            "8=FIX.4.2|9=14|35=A|58=|49=S|10=139| => true",
            "8=FIX.4.2|9=8|35=A|=x|10=107| => false",
            // what follows CheckSum is not read
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062|garbage=1| => true",
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062|= => true",
            // after BeginString, tags are checked against the version's range, user-defined ones (10000-19999) pass
            "8=FIX.4.0|9=11|35=A|140=x|10=040| => true",
            "8=FIX.4.0|9=11|35=A|141=x|10=041| => false",
            "8=FIX.4.0|9=13|35=A|10001=x|10=135| => true",
            "8=FIXT.1.1|9=12|35=A|1621=x|10=176| => true",
            "8=FIXT.1.1|9=12|35=A|1622=x|10=177| => false",
            // tag numbers wrap as C unsigned ints: 4294967331 is 35; leading zeros are read
            "8=FIX.4.2|9=18|4294967331=A|49=S|10=140| => true",
            "8=FIX.4.2|9=11|035=A|49=S|10=013| => true",
            // strl2ui reads the checksum's three characters without checking them: '0:0' is 0*100 + 10*10 + 0
            "8=FIX.4.2|9=30|35=A|58=xxxxxxxxxxxxxxxxxxxxy|10=100| => true",
            "8=FIX.4.2|9=30|35=A|58=xxxxxxxxxxxxxxxxxxxxy|10=0:0| => true",
            "8=FIX.4.2|9=30|35=A|58=xxxxxxxxxxxxxxxxxxxxy|10=99| => false",
            // every field read without reaching BodyLength: invalid, not incomplete
            "00000000000000008=FIX.4.2| => false",
    })
    void isValidAsHaproxy(String msg, Boolean expected) {
        assertThat(eval(msg, "fix_is_valid")).isEqualTo(expected);
    }

    @Test
    void tagValues() {
        assertThat(value(LOGON, "35")).isEqualTo("A");
        assertThat(value(LOGON, "MsgType")).isEqualTo("A");
        assertThat(value(LOGON, "msgtype")).isEqualTo("A");
        assertThat(value(LOGON, "BeginString")).isEqualTo("FIX.4.2");
        assertThat(value(LOGON, "bodylength")).isEqualTo("65");
        assertThat(value(LOGON, "SenderCompID")).isEqualTo("SERVER");
        assertThat(value(LOGON, "TARGETCOMPID")).isEqualTo("CLIENT");
        assertThat(value(LOGON, "CheckSum")).isEqualTo("062");
        assertThat(value(LOGON, "52")).isEqualTo("20090107-18:15:16");
        assertThat(value(LOGON, "052")).isEqualTo("20090107-18:15:16");
        // the argument wraps as the tags do
        assertThat(value(LOGON, "4294967331")).isEqualTo("A");
        // a tag not there; one after CheckSum is not looked for
        assertThat(value(LOGON, "999")).isNull();
        assertThat(value(LOGON + "77=after|", "77")).isNull();
        // no validation: a bad checksum, a lone field, a tag given as 4294967331 in the message
        assertThat(value("8=FIX.4.2|9=65|35=A|10=000|", "35")).isEqualTo("A");
        assertThat(value("35=D|", "35")).isEqualTo("D");
        assertThat(value("8=FIX.4.2|9=18|4294967331=A|49=S|10=140|", "MsgType")).isEqualTo("A");
        // the first '=' ends the tag; the first of two fields is taken
        assertThat(value("58=a=b|58=c|", "58")).isEqualTo("a=b");
        // an empty value, a value without its SOH: no sample
        assertThat(value("8=FIX.4.2|9=14|35=A|58=|49=S|10=139|", "58")).isNull();
        assertThat(value("35=A", "35")).isNull();
        // a field before it without '=', with an empty or non-numeric tag, stops the search
        assertThat(value("x|35=A|", "35")).isNull();
        assertThat(value("=1|35=A|", "35")).isNull();
        assertThat(value("a=1|35=A|", "35")).isNull();
        assertThat(value("0=1|35=A|", "35")).isNull();
        // a SOH before the '=' is part of the tag, which is then not a number
        assertThat(value("1|35=A|", "35")).isNull();
        // the value is binary: bytes as they are
        Object v = RuleCompiler.sample("bin(3335" + "3d" + "ff00" + "01),fix_tag_value(35)").get(new FakeTxn("GET", "/"));
        assertThat((byte[]) v).containsExactly(0xff, 0x00);
    }

    @Test
    void tagArgumentAsHaproxy() {
        for (String bad : new String[] {"0", "-1", "+35", "Foo", "4294967296", "MsgTyp", "Msg_Type"}) {
            assertThatThrownBy(() -> RuleCompiler.sample("str(x),fix_tag_value(" + bad + ")"))
                    .hasMessageContaining("Unknown FIX tag name '" + bad + "'");
        }
        assertThatThrownBy(() -> RuleCompiler.sample("str(x),fix_tag_value")).hasMessageContaining("expects at least 1");
        assertThatThrownBy(() -> RuleCompiler.sample("str(x),fix_is_valid(1)")).hasMessageContaining("expects at most 0");
        assertThat(FixConverters.tagArgument("SENDERCOMPID")).isEqualTo(49);
        assertThat(FixConverters.tagArgument("targetCompId")).isEqualTo(56);
        assertThat(FixConverters.tagArgument("4294967295")).isEqualTo(4294967295L);
        assertThat(FixConverters.tagArgument("4294967306")).isEqualTo(10);
    }
}

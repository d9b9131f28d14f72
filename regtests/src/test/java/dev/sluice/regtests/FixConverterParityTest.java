package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code fix_is_valid} and {@code fix_tag_value} against HAProxy 2.6 ({@link HaproxyParityTest#compareRecording}): hand-made
 * FIX messages ('|' stands for SOH) sent as request bodies, read with {@code req.body} after {@code wait-for-body}: a valid
 * logon, a wrong checksum, a wrong body length, BodyLength first, MsgType not third, a message under 26 bytes, one without
 * its CheckSum yet, an empty value, a tag past FIX.4.0's range, a tag number that wraps to 35, a checksum that is not
 * digits, data after the CheckSum, an unknown version; tags asked by number and by name.
 */
class FixConverterParityTest {
    private static final List<String> MESSAGES = List.of(
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062|",
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=063|",
            "8=FIX.4.2|9=64|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=061|",
            "9=65|8=FIX.4.2|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062|",
            "8=FIX.4.2|9=32|49=SERVER|35=A|56=CLIENT|34=177|10=016|",
            "8=FIX.4.2|9=5|35=0|10=1",
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|",
            "8=FIX.4.2|9=14|35=A|58=|49=S|10=139|",
            "8=FIX.4.0|9=11|35=A|141=x|10=041|",
            "8=FIXT.1.1|9=12|35=A|1621=x|10=176|",
            "8=FIX.4.2|9=18|4294967331=A|49=S|10=140|",
            "8=FIX.4.2|9=30|35=A|58=xxxxxxxxxxxxxxxxxxxxy|10=0:0|",
            "8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062|77=after|",
            "8=FIX.4.5|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=065|",
            "00000000000000008=FIX.4.2|",
            "8=FIX.4.2|9=17|35=A|58=a=b|49=S|10=142|");

    private static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:@FE@
                http-request wait-for-body time 2s
                http-request return status 200 content-type text/plain lf-string "v=%[req.body,fix_is_valid] t35=%[req.body,fix_tag_value(35)] mt=%[req.body,fix_tag_value(MsgType)] snd=%[req.body,fix_tag_value(sendercompid)] ver=%[req.body,fix_tag_value(BeginString)] len=%[req.body,fix_tag_value(9)] cks=%[req.body,fix_tag_value(CheckSum)] t58=%[req.body,fix_tag_value(58),hex] t77=%[req.body,fix_tag_value(77)] tw=%[req.body,fix_tag_value(4294967331)]"
            """;

    private static List<String> exchange(int port) {
        List<String> out = new ArrayList<>();
        for (String m : MESSAGES) {
            String body = m.replace('|', '\u0001');
            try (RawClient c = new RawClient(port)) {
                out.add(c.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: " + body.length()
                        + "\r\nConnection: close\r\n\r\n" + body).read().bodyText());
            }
        }
        return out;
    }

    @Test
    void fixConvertersAreHaproxys() throws Exception {
        List<String> theirs = HaproxyParityTest.compareRecording(CONFIG, MESSAGES, ports -> exchange(ports[0]));
        assertThat(theirs).hasSize(MESSAGES.size());
        // what HAProxy answered, for some (the compare holds Sluice to all)
        assertThat(theirs.get(0)).isEqualTo("v=1 t35=A mt=A snd=SERVER ver=FIX.4.2 len=65 cks=062 t58= t77= tw=A");
        assertThat(theirs.get(1)).startsWith("v=0 t35=A ");
        assertThat(theirs.get(2)).startsWith("v=0 ");
        assertThat(theirs.get(5)).isEqualTo("v= t35=0 mt=0 snd= ver=FIX.4.2 len=5 cks= t58= t77= tw=0");
        assertThat(theirs.get(6)).startsWith("v= t35=A ");
        assertThat(theirs.get(7)).startsWith("v=1 ").contains(" t58= ");
        assertThat(theirs.get(8)).startsWith("v=0 ");
        assertThat(theirs.get(10)).startsWith("v=1 t35=A ");
        assertThat(theirs.get(11)).startsWith("v=1 ").contains(" cks=0:0 ");
        assertThat(theirs.get(12)).startsWith("v=1 ").contains(" t77= ");
        assertThat(theirs.get(14)).isEqualTo("v=0 t35= mt= snd= ver=FIX.4.2 len= cks= t58= t77= tw=");
        assertThat(theirs.get(15)).contains(" t58=613D62 ");
    }
}

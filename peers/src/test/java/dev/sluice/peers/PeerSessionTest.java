package dev.sluice.peers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sticktable.DataType;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The session state machine on an {@link EmbeddedChannel}: the handshake's status codes, messages both ways, the
 * live push, teaching, heartbeats, dead peers, collisions and malformed input, as HAProxy 2.6's peers.c runs them.
 * This process is {@code me}; {@code other} and {@code third} are remote peers; the table is HAProxy's {@code /t}.
 */
class PeerSessionTest {
    private final long[] now = {1_000_000};
    private final SharedTable table = new SharedTable(1,
            TableCodecTest.table("p/t", "type ip size 10 expire 60s store http_req_cnt,http_req_rate(10s)", now), 4, "/t");
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final List<String> logs = new ArrayList<>();
    private PeersSync sync;

    private PeersSync sync(boolean oldProcess) {
        sync = new PeersSync("p", "me", 42, List.of(new PeersSync.PeerSpec("me", "127.0.0.1", 1000, true),
                new PeersSync.PeerSpec("other", "127.0.0.1", 1001, false), new PeersSync.PeerSpec("third", "127.0.0.1", 1002, false)),
                List.of(table), 200, () -> now[0], new Random(7));
        sync.startForTest((peer, session) -> channels.add(new EmbeddedChannel(new PeerFrameDecoder(), session)), oldProcess, logs::add);
        return sync;
    }

    @AfterEach
    void close() {
        drop();
    }

    /** Forgets (and releases) the channels made so far. */
    private void drop() {
        for (EmbeddedChannel c : channels) {
            c.finishAndReleaseAll();
        }
        channels.clear();
    }

    /** Runs the task past the resync timeouts: no peer teaches, this process is up to date; forgets the sessions it opened. */
    private void upToDate() {
        sync.tick();
        now[0] += 6000;
        sync.tick();
        assertThat(sync.resync()).isEqualTo(PeersSync.Resync.FINISHED);
    }

    private EmbeddedChannel accepted() {
        EmbeddedChannel c = new EmbeddedChannel(new PeerFrameDecoder(), sync.acceptedSession());
        channels.add(c);
        return c;
    }

    private static void send(EmbeddedChannel c, String text) {
        c.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
    }

    private static void sendHex(EmbeddedChannel c, String hex) {
        c.writeInbound(Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex)));
    }

    /** Everything written so far, as hex. */
    private static String out(EmbeddedChannel c) {
        StringBuilder sb = new StringBuilder();
        ByteBuf b;
        while ((b = c.readOutbound()) != null) {
            sb.append(ByteBufUtil.hexDump(b));
            b.release();
        }
        return sb.toString();
    }

    private static String hex(String text) {
        return ByteBufUtil.hexDump(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", value = {
            "HAProxyS 2.1|me|other 123 1 => 200",
            "HAProxyS 2.0|me|other 123 1 => 200",
            "HAProxyX 2.1 => 501",
            "HAProxyS2.1 => 501",
            "HAProxyS 3.1 => 502",
            "HAProxyS 2.2 => 502",
            "HAProxyS 2.x => 502",
            "HAProxyS 2.1|you => 503",
            "HAProxyS 2.1|me|nobody 1 1 => 504",
            "HAProxyS 2.1|me|other => 501",
            "HAProxyS 2.1~|me~|other 1 1~ => 200",
    })
    void theHandshakeAnswersAsHaproxy(String lines, int status) {
        sync(false);
        EmbeddedChannel c = accepted();
        send(c, lines.replace('|', '\n').replace("~", "\r") + "\n");
        assertThat(out(c)).startsWith(hex(status + "\n"));
        assertThat(c.isActive()).isEqualTo(status == 200);
        assertThat(sync.peer("other").connected()).isEqualTo(status == 200);
    }

    @Test
    void anAcceptedPeerIsAskedToTeachThenLearnedUpdatesAreAcknowledged() {
        sync(false);
        sync.tick(); // no old process: learn from a remote peer
        assertThat(sync.resync()).isEqualTo(PeersSync.Resync.FROM_REMOTE);
        drop(); // the sessions the tick opened are not these
        EmbeddedChannel c = accepted();
        send(c, "HAProxyS 2.1\nme\nother 1 1\n");
        assertThat(out(c)).isEqualTo(hex("200\n") + "0000");
        sendHex(c, TableCodecTest.HAPROXY_DEF_T + TableCodecTest.HAPROXY_UPD_T + "0001");
        // the ack of update 2, the confirmation of the lesson
        assertThat(out(c)).isEqualTo("0a84050100000002" + "0003");
        assertThat(sync.resync()).isEqualTo(PeersSync.Resync.FINISHED);
        StickEntry e = table.table().lookup(StickKey.ipv4(0x7f000001));
        assertThat(e.get(DataType.HTTP_REQ_CNT)).isEqualTo(1);
        assertThat(sync.learnedCount()).isEqualTo(1);
    }

    @Test
    void theSideThatConnectsSaysHelloAndLocalUpdatesArePushedNotLearnedOnes() {
        sync(false);
        upToDate();
        drop();
        now[0] += 5000;
        sync.tick(); // the connections to both remote peers, again (nobody answered the first ones)
        assertThat(channels).hasSize(2);
        EmbeddedChannel c = channels.get(0);
        assertThat(new String(ByteBufUtil.decodeHexDump(out(c)), StandardCharsets.ISO_8859_1)).isEqualTo("HAProxyS 2.1\nother\nme 42 1\n");
        send(c, "200\n");
        assertThat(sync.peer("other").statusCode()).isEqualTo(200);
        table.table().update(StickKey.ipv4(0x0a000001), en -> en.add(DataType.HTTP_REQ_CNT, 0, 5));
        sync.tick();
        String pushed = out(c);
        assertThat(pushed).startsWith(TableCodecTest.HAPROXY_DEF_T).contains("000000010a00000105");
        // the peer acknowledges update 1
        sendHex(c, "0a84050100000001");
        assertThat(sync.peer("other").tables().get(0).acked()).isEqualTo(1);
        // learned from the other side: not pushed back
        sendHex(c, TableCodecTest.HAPROXY_DEF_T + TableCodecTest.HAPROXY_UPD_T);
        out(c);
        sync.tick();
        assertThat(out(c)).isEmpty();
    }

    @Test
    void heartbeatsAfterThreeSecondsAndADeadPeerAfterFive() {
        sync(false);
        upToDate();
        drop();
        now[0] += 5000;
        sync.tick();
        EmbeddedChannel c = channels.get(0);
        out(c);
        send(c, "200\n");
        now[0] += 3000;
        sync.tick();
        assertThat(out(c)).isEqualTo("0004");
        sendHex(c, "0004");
        assertThat(sync.peer("other").rxHbt()).isEqualTo(1);
        now[0] += 5000;
        sync.tick(); // alive during the last period: one more
        assertThat(c.isActive()).isTrue();
        now[0] += 5000;
        sync.tick();
        assertThat(c.isActive()).isFalse();
        assertThat(sync.peer("other").noHbt()).isEqualTo(1);
        long wait = sync.peer("other").reconnectAt() - now[0];
        assertThat(wait).isBetween(50L, 2050L);
    }

    @Test
    void aSecondSessionFromTheSamePeerWinsAndTheFirstIsClosed() {
        sync(false);
        EmbeddedChannel first = accepted();
        send(first, "HAProxyS 2.1\nme\nother 1 1\n");
        EmbeddedChannel second = accepted();
        send(second, "HAProxyS 2.1\nme\nother 1 1\n");
        assertThat(first.isActive()).isFalse();
        assertThat(second.isActive()).isTrue();
        assertThat(sync.peer("other").coll()).isEqualTo(1);
        assertThat(sync.peer("other").session().established()).isTrue();
        // the local peer is not replaced: the newcomer is told to try again
        EmbeddedChannel l1 = accepted();
        send(l1, "HAProxyS 2.1\nme\nme 1 1\n");
        EmbeddedChannel l2 = accepted();
        send(l2, "HAProxyS 2.1\nme\nme 1 1\n");
        assertThat(out(l2)).isEqualTo(hex("300\n"));
        assertThat(l1.isActive()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", value = {
            "ff00 => 0100",
            "0a80f0ffffffff0f => 0100",
            "0a80f0ffff7f => 0101",
            "0a820501052f7404 => 0100",
            "0a800100 => 0100",
            "0a8400 => 0100",
    })
    void malformedMessagesGetAnErrorAndTheSessionCloses(String bytes, String answer) {
        sync(false);
        EmbeddedChannel c = accepted();
        send(c, "HAProxyS 2.1\nme\nother 1 1\n");
        out(c);
        if (bytes.startsWith("0a800")) {
            sendHex(c, TableCodecTest.HAPROXY_DEF_T); // an update needs a table
        }
        sendHex(c, bytes);
        assertThat(out(c)).endsWith(answer);
        assertThat(c.isActive()).isFalse();
        assertThat(sync.errorCount()).isEqualTo(1);
    }

    @Test
    void unknownClassesAndTablesAreSkipped() {
        sync(false);
        EmbeddedChannel c = accepted();
        send(c, "HAProxyS 2.1\nme\nother 1 1\n");
        // class 2 type 0, an error message, an unknown table definition, an update for it
        sendHex(c, "0200" + "0100" + "0a82080102" + "2f780404f051" + TableCodecTest.HAPROXY_UPD_T);
        assertThat(c.isActive()).isTrue();
        assertThat(table.table().used()).isZero();
    }

    @Test
    void aResyncRequestIsAnsweredWithEveryEntryTimedThenFinished() {
        sync(false);
        table.table().update(StickKey.ipv4(0x0a000001), en -> en.add(DataType.HTTP_REQ_CNT, 0, 5));
        table.table().update(StickKey.ipv4(0x0a000002), en -> en.add(DataType.HTTP_REQ_CNT, 0, 6));
        upToDate();
        drop();
        EmbeddedChannel c = accepted();
        send(c, "HAProxyS 2.1\nme\nthird 1 1\n");
        // the live push went first: the definition and both entries
        assertThat(out(c)).startsWith(hex("200\n") + TableCodecTest.HAPROXY_DEF_T);
        sendHex(c, "0000");
        String lesson = out(c);
        // two timed updates with the origin's id (2: what the peer acknowledged, none here) and the remaining expire,
        // then "finished"; the table was already the current one
        assertThat(lesson).startsWith("0a8510" + "00000000").endsWith("0001");
        assertThat(lesson).contains("0a00000105").contains("0a00000206");
        assertThat(sync.resyncCount()).isEqualTo(1);
        sendHex(c, "0003");
        assertThat(sync.peer("third").flags() & Peer.TEACH_PROCESS).isZero();
    }

    @Test
    void aNewProcessLearnsFromTheOldOneFirst() {
        sync(true); // an old process runs: wait for it
        sync.tick();
        assertThat(sync.resync()).isEqualTo(PeersSync.Resync.FROM_LOCAL);
        drop();
        EmbeddedChannel old = accepted();
        send(old, "HAProxyS 2.1\nme\nme 7 1\n");
        assertThat(out(old)).isEqualTo(hex("200\n")); // no request: the old process teaches unasked
        sendHex(old, TableCodecTest.HAPROXY_DEF_T + "0a85100000000a0000ea607f00000101000100" + "0001");
        assertThat(sync.resync()).isEqualTo(PeersSync.Resync.FINISHED);
        assertThat(table.table().lookup(StickKey.ipv4(0x7f000001)).expireAt() - now[0]).isEqualTo(60_000);
        assertThat(out(old)).endsWith("0003");
    }

    @Test
    void theOldProcessTeachesTheNewOneOnSoftStop() {
        sync(false);
        table.table().update(StickKey.ipv4(0x0a000001), en -> en.add(DataType.HTTP_REQ_CNT, 0, 5));
        upToDate();
        drop();
        boolean[] done = {false};
        sync.softStopForTest(() -> done[0] = true);
        now[0] += 2100;
        sync.tick(); // connects to the local peer, the new process
        EmbeddedChannel c = channels.getLast();
        assertThat(new String(ByteBufUtil.decodeHexDump(out(c)), StandardCharsets.ISO_8859_1)).isEqualTo("HAProxyS 2.1\nme\nme 42 1\n");
        send(c, "200\n");
        String lesson = out(c);
        assertThat(lesson).startsWith(TableCodecTest.HAPROXY_DEF_T).contains("0a00000105").endsWith("0001");
        sendHex(c, "0003");
        assertThat(done[0]).isTrue();
        assertThat(c.isActive()).isFalse();
    }
}

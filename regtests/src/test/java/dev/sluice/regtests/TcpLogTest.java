package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code option tcplog} lines of {@code mode tcp} streams, Sluice's against HAProxy 2.6's on one configuration and the
 * same connections: a clean echo, a server refusing the connection through two retries ({@code SC}), a frontend
 * without a backend ({@code <NOSRV> -1/-1/0 0 SC}), {@code timeout server} on a silent server ({@code sD}),
 * {@code option logasap} (the '+' and the connect point as the total), {@code option dontlognull} (a connection that
 * sent nothing has no line), and the {@code Connect from ... (fe/TCP)} line of a frontend without a format. Compared
 * field by field: names, flags, bytes, counts and retries exactly, timers exactly where HAProxy's arithmetic makes them
 * deterministic ({@code Tw} of 1 for an immediate slot, -1) and within a tolerance elsewhere.
 */
class TcpLogTest {
    /** %ci:%cp [%t] %ft %b/%s %Tw/%Tc/%Tt %B %ts %ac/%fc/%bc/%sc/%rc %sq/%bq */
    static final Pattern TCPLOG = Pattern.compile("^(\\d+\\.\\d+\\.\\d+\\.\\d+):(\\d+) \\[(\\d{2}/\\w{3}/\\d{4}:\\d{2}:\\d{2}:\\d{2}\\.\\d{3})\\] "
            + "(\\S+) (\\S+)/(\\S+) (-?\\d+)/(-?\\d+)/(\\+?-?\\d+) (\\+?\\d+) (\\S\\S) (\\d+)/(\\d+)/(\\d+)/(\\d+)/(\\+?\\d+) (\\d+)/(\\d+)$");

    record Line(String ft, String be, String srv, long tw, long tc, String tt, String bytes, String flags, String counts, String queues) {
        long total() {
            return Long.parseLong(tt.replace("+", ""));
        }
    }

    static Line parse(String line) {
        Matcher m = TCPLOG.matcher(line);
        assertThat(m.matches()).as("tcplog line: %s", line).isTrue();
        return new Line(m.group(4), m.group(5), m.group(6), Long.parseLong(m.group(7)), Long.parseLong(m.group(8)), m.group(9), m.group(10),
                m.group(11), m.group(12) + "/" + m.group(13) + "/" + m.group(14) + "/" + m.group(15) + "/" + m.group(16),
                m.group(17) + "/" + m.group(18));
    }

    static String config(int[] p, int echo, int dead, int silent) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode tcp
                    log global
                    option tcplog
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen ok
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                listen refused
                    bind 127.0.0.1:%d
                    retries 2
                    server s1 127.0.0.1:%d
                frontend nobe
                    bind 127.0.0.1:%d
                listen slow
                    bind 127.0.0.1:%d
                    timeout server 500ms
                    server s1 127.0.0.1:%d
                listen asap
                    bind 127.0.0.1:%d
                    option logasap
                    server s1 127.0.0.1:%d
                listen quiet
                    bind 127.0.0.1:%d
                    option dontlognull
                    server s1 127.0.0.1:%d
                defaults
                    mode tcp
                    log global
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen plain
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                """.formatted(p[0], echo, p[1], dead, p[2], p[3], silent, p[4], echo, p[5], echo, p[6], echo);
    }

    /** Sends {@code text} (nothing when null), half-closes when {@code fin}, reads until the proxy closes; returns the local port. */
    static int talk(int port, String text, boolean fin) throws IOException {
        // the previous stream is over in the proxy too (its %ac and %fc would count it otherwise)
        Daemon.sleep(100);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            if (text != null) {
                s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
            }
            if (fin) {
                s.shutdownOutput();
            }
            InputStream in = s.getInputStream();
            try {
                while (in.read() >= 0) {
                    // the echo, if any
                }
            } catch (SocketException e) {
                // reset: closed as well
            }
            return s.getLocalPort();
        }
    }

    /** What one daemon logged for each case, by case name (null: no line). */
    static Map<String, String> run(boolean haproxy, int echo, int dead, int silent) throws IOException {
        int[] p = new int[7];
        for (int i = 0; i < p.length; i++) {
            p[i] = Ports.free();
        }
        Map<String, Integer> clients = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, config(p, echo, dead, silent), p[0])) {
            // a first stream: a cold JVM loads what a connection needs then (Netty's first pooled chunk alone costs
            // ~200 ms), which would be in this line's Tc
            talk(p[0], "warm", true);
            clients.put("ok", talk(p[0], "ping", true));
            clients.put("refused", talk(p[1], "x", false));
            clients.put("nobe", talk(p[2], "x", false));
            clients.put("slow", talk(p[3], "q", false));
            clients.put("asap", talk(p[4], "ping", true));
            clients.put("quiet-null", talk(p[5], null, true));
            clients.put("quiet", talk(p[5], "hi", true));
            clients.put("plain", talk(p[6], "hi", true));
            // the last line expected: the rest are out by then
            d.awaitLines(l -> l.contains(":" + clients.get("plain") + " to "), 1);
            Map<String, String> out = new LinkedHashMap<>();
            List<String> lines = d.output().lines().toList();
            for (Map.Entry<String, Integer> e : clients.entrySet()) {
                String mark = "127.0.0.1:" + e.getValue() + " ";
                out.put(e.getKey(), lines.stream().filter(l -> l.contains(mark)).findFirst().orElse(null));
            }
            out.put("plain-expected", "Connect from 127.0.0.1:" + clients.get("plain") + " to 127.0.0.1:" + p[6] + " (plain/TCP)");
            return out;
        }
    }

    @Test
    void tcplogLinesAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        try (TcpOrigin echo = TcpOrigin.start(TcpOrigin.ECHO); TcpOrigin silent = TcpOrigin.start(TcpOrigin.SILENT)) {
            int dead = Ports.free();
            Map<String, String> theirs = run(true, echo.port(), dead, silent.port());
            Map<String, String> ours = run(false, echo.port(), dead, silent.port());
            for (String c : List.of("ok", "refused", "nobe", "slow", "asap", "quiet")) {
                assertThat(theirs.get(c)).as("haproxy's line of %s", c).isNotNull();
                assertThat(ours.get(c)).as("sluice's line of %s", c).isNotNull();
                Line h = parse(theirs.get(c));
                Line s = parse(ours.get(c));
                String what = c + "\nhaproxy: " + theirs.get(c) + "\nsluice:  " + ours.get(c);
                assertThat(s.ft()).as(what).isEqualTo(h.ft());
                assertThat(s.be()).as(what).isEqualTo(h.be());
                assertThat(s.srv()).as(what).isEqualTo(h.srv());
                assertThat(s.flags()).as(what).isEqualTo(h.flags());
                assertThat(s.bytes()).as(what).isEqualTo(h.bytes());
                assertThat(s.counts()).as(what).isEqualTo(h.counts());
                assertThat(s.queues()).as(what).isEqualTo(h.queues());
                // Tw: -1 without a slot, the wait plus one otherwise (1 for an immediate one in HAProxy, whose clock
                // is the poll loop's; Sluice's is the real one, where a loaded machine may put a millisecond or two
                // between the accept and the slot)
                if (h.tw() < 0) {
                    assertThat(s.tw()).as(what).isEqualTo(h.tw());
                } else {
                    assertThat(s.tw()).as(what).isBetween(Math.max(1, h.tw() - 50), h.tw() + 50);
                }
                if (h.tc() < 0) {
                    assertThat(s.tc()).as(what).isEqualTo(h.tc());
                } else {
                    assertThat(s.tc()).as(what).isBetween(0L, 100L);
                }
                assertThat(s.tt().startsWith("+")).as(what).isEqualTo(h.tt().startsWith("+"));
                assertThat(s.total()).as(what).isBetween(h.total() - 150, h.total() + 150);
            }
            // the cases themselves: what HAProxy says of them
            assertThat(parse(theirs.get("refused")).flags()).isEqualTo("SC");
            assertThat(theirs.get("nobe")).contains(" nobe nobe/<NOSRV> -1/-1/0 0 SC ");
            assertThat(parse(theirs.get("slow")).flags()).isEqualTo("sD");
            assertThat(parse(theirs.get("asap")).bytes()).isEqualTo("+0");
            // dontlognull: nothing from the client, no line
            assertThat(theirs.get("quiet-null")).isNull();
            assertThat(ours.get("quiet-null")).isNull();
            // no format: one line per connection, naming the mode
            assertThat(theirs.get("plain")).endsWith(theirs.get("plain-expected"));
            assertThat(ours.get("plain")).endsWith(ours.get("plain-expected"));
        }
    }
}

package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code tcp-request connection|session|content} rules of {@code mode tcp} frontends and backends, Sluice against HAProxy
 * 2.6 on one configuration and the same connections: a payload rejected ({@code PR}), a payload accepted, one that
 * arrives in pieces and is matched once whole, a silent client let through when {@code inspect-delay} ends ({@code Tw}
 * is the delay), a client that times out during inspection ({@code cR}), a backend's own content rules, a connection
 * and a session rejected (no line; {@code dcon}, {@code dses}), a rate limit by {@code sc0_conn_rate} over a stick
 * table, {@code silent-drop} (and {@code http-request silent-drop} of an HTTP frontend); and {@code tcp-response content} rules of a backend: an answer waited for, a banner
 * rejected ({@code PD}, dresp), a banner let through with the server's connection closed ({@code close}). Compared: what each client saw (bytes, FIN or reset), the log lines field by field,
 * and the frontends' and backends' denial and connection counters in {@code show stat}.
 * <p>
 * After {@code silent-drop} both leave the client without a FIN nor a reset when they run as root (TCP_REPAIR); without
 * the privilege Sluice resets the connection where HAProxy tries its TTL trick (no effect on loopback).
 */
class TcpRulesTest {
    static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    static String config(int[] p, int echo, int bad, int clo) {
        return """
                global
                    log stdout format raw local0
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode tcp
                    log global
                    option tcplog
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend fc
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 500ms
                    tcp-request content reject if { req.payload(0,3) -m str BAD }
                    tcp-request content silent-drop if { req.payload(0,3) -m str SIL }
                    tcp-request content accept if { req.len gt 3 }
                    default_backend be
                frontend fb
                    bind 127.0.0.1:%d
                    default_backend bb
                frontend fcr
                    bind 127.0.0.1:%d
                    tcp-request connection reject if { src 127.0.0.1 }
                    default_backend be
                frontend fsr
                    bind 127.0.0.1:%d
                    tcp-request session reject if { src 127.0.0.1 }
                    default_backend be
                frontend frl
                    bind 127.0.0.1:%d
                    stick-table type ip size 100 expire 30s store conn_rate(30s)
                    tcp-request connection track-sc0 src
                    tcp-request connection reject if { sc0_conn_rate gt 2 }
                    default_backend be
                frontend fto
                    bind 127.0.0.1:%d
                    timeout client 300ms
                    tcp-request inspect-delay 2s
                    tcp-request content accept if { req.len gt 3 }
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                backend bb
                    tcp-request inspect-delay 300ms
                    tcp-request content reject if { req.payload(0,3) -m str BAD }
                    tcp-request content accept if { req.len gt 3 }
                    server s1 127.0.0.1:%d
                listen lres
                    bind 127.0.0.1:%d
                    tcp-response inspect-delay 500ms
                    tcp-response content reject if { res.payload(0,3) -m str BAD }
                    tcp-response content close if { res.payload(0,3) -m str CLO }
                    tcp-response content accept if { res.len gt 3 }
                    server echo 127.0.0.1:%d
                listen lbad
                    bind 127.0.0.1:%d
                    tcp-response inspect-delay 500ms
                    tcp-response content reject if { res.payload(0,3) -m str BAD }
                    server bad 127.0.0.1:%d
                listen lclo
                    bind 127.0.0.1:%d
                    tcp-response inspect-delay 500ms
                    tcp-response content close if { res.payload(0,3) -m str CLO }
                    server clo 127.0.0.1:%d
                frontend fhs
                    mode http
                    bind 127.0.0.1:%d
                    http-request silent-drop if { path /sil }
                    default_backend bh
                backend bh
                    mode http
                    server s1 127.0.0.1:%d
                """.formatted(p[0], p[1], p[2], p[3], p[4], p[5], echo, echo, p[6], echo, p[7], bad, p[8], clo, p[9], echo);
    }

    /** What a client saw: the bytes, then how it ended ({@code <FIN>}, {@code <RST>}, {@code <TIMEOUT>}). */
    record Seen(int port, String text) {
    }

    /**
     * Connects, sends the pieces (a pause of {@code gapMs} between them, and before the FIN when {@code fin}), reads
     * until the proxy closes or {@code readMs} pass.
     */
    static Seen talk(int port, List<String> pieces, long gapMs, boolean fin, int readMs) throws IOException {
        // the previous stream is over in the proxy too (its %ac and %fc would count it otherwise)
        Daemon.sleep(100);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(readMs);
            OutputStream out = s.getOutputStream();
            String how = null;
            try {
                for (int i = 0; i < pieces.size(); i++) {
                    if (i > 0) {
                        Daemon.sleep(gapMs);
                    }
                    out.write(pieces.get(i).getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
                if (fin) {
                    Daemon.sleep(gapMs);
                    s.shutdownOutput();
                }
            } catch (SocketException e) {
                how = "<RST>";
            }
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            if (how == null) {
                InputStream in = s.getInputStream();
                try {
                    int b;
                    while ((b = in.read()) >= 0) {
                        got.write(b);
                    }
                    how = "<FIN>";
                } catch (SocketTimeoutException e) {
                    how = "<TIMEOUT>";
                } catch (SocketException e) {
                    how = "<RST>";
                }
            }
            return new Seen(s.getLocalPort(), got.toString(StandardCharsets.US_ASCII) + how);
        }
    }

    record Result(Map<String, Seen> seen, Map<String, String> lines, Map<String, Map<String, String>> stat) {
    }

    static Result run(boolean haproxy, int echo, int bad, int clo) throws IOException {
        int[] p = new int[10];
        for (int i = 0; i < p.length; i++) {
            p[i] = Ports.free();
        }
        Map<String, Seen> seen = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, config(p, echo, bad, clo), p[0])) {
            // a first stream: a cold JVM loads what a connection needs then
            talk(p[0], List.of("warm up"), 0, true, 5000);
            seen.put("reject", talk(p[0], List.of("BADxx"), 0, false, 3000));
            seen.put("accept", talk(p[0], List.of("hello"), 0, true, 3000));
            seen.put("pieces", talk(p[0], List.of("B", "A", "D"), 60, false, 3000));
            seen.put("pieces-ok", talk(p[0], List.of("B", "A", "Xy"), 60, true, 3000));
            // nothing until after the delay: let through then, and the FIN closes it
            seen.put("quiet", talk(p[0], List.of(), 700, true, 3000));
            seen.put("drop", talk(p[0], List.of("SILx"), 0, false, 1000));
            seen.put("http-drop", talk(p[9], List.of("GET /sil HTTP/1.1\r\nhost: a\r\n\r\n"), 0, false, 1000));
            seen.put("be-reject", talk(p[1], List.of("BADxx"), 0, false, 3000));
            seen.put("be-accept", talk(p[1], List.of("hello"), 0, true, 3000));
            seen.put("conn-reject", talk(p[2], List.of("x"), 0, false, 3000));
            // nothing sent: a close with unread bytes is a reset, whichever proxy closes (HAProxy decides before they come)
            seen.put("sess-reject", talk(p[3], List.of(), 0, false, 3000));
            for (int i = 1; i <= 4; i++) {
                seen.put("rate-" + i, talk(p[4], List.of("r" + i), 0, true, 3000));
            }
            // response rules: an echo answer waited for, a banner rejected, a banner let through and the server closed
            seen.put("res-accept", talk(p[6], List.of("ping"), 0, true, 3000));
            seen.put("res-reject", talk(p[7], List.of(), 0, false, 3000));
            seen.put("res-close", talk(p[8], List.of(), 0, false, 3000));
            seen.put("client-timeout", talk(p[5], List.of(), 0, false, 3000));
            // the last line expected: the rest are out by then
            d.awaitLines(l -> l.contains(":" + seen.get("client-timeout").port() + " "), 1);
            Daemon.sleep(200);
            Map<String, String> lines = new LinkedHashMap<>();
            List<String> out = d.output().lines().toList();
            for (Map.Entry<String, Seen> e : seen.entrySet()) {
                String mark = "127.0.0.1:" + e.getValue().port() + " ";
                lines.put(e.getKey(), out.stream().filter(l -> l.contains(mark)).findFirst().orElse(null));
            }
            Path sock = d.dir().resolve("admin.sock");
            Map<String, Map<String, String>> stat = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
            return new Result(seen, lines, stat);
        }
    }

    @Test
    void tcpRulesBehaveAsHaproxys() throws Exception {
        Program.HAPROXY.require();
        try (TcpOrigin echo = TcpOrigin.start(TcpOrigin.ECHO); TcpOrigin bad = TcpOrigin.start(TcpOrigin.banner("BAD banner"));
                TcpOrigin clo = TcpOrigin.start(TcpOrigin.banner("CLO banner"))) {
            Result theirs = run(true, echo.port(), bad.port(), clo.port());
            Result ours = run(false, echo.port(), bad.port(), clo.port());
            for (String c : theirs.seen().keySet()) {
                String what = c + "\nhaproxy: " + theirs.lines().get(c) + " / " + theirs.seen().get(c) + "\nsluice:  " + ours.lines().get(c) + " / "
                        + ours.seen().get(c);
                if (!c.endsWith("drop") || ROOT) {
                    assertThat(ours.seen().get(c).text()).as(what).isEqualTo(theirs.seen().get(c).text());
                }
                if (theirs.lines().get(c) == null) {
                    assertThat(ours.lines().get(c)).as(what).isNull();
                    continue;
                }
                assertThat(ours.lines().get(c)).as(what).isNotNull();
                TcpLogTest.Line h = TcpLogTest.parse(theirs.lines().get(c));
                TcpLogTest.Line s = TcpLogTest.parse(ours.lines().get(c));
                assertThat(s.ft()).as(what).isEqualTo(h.ft());
                assertThat(s.be()).as(what).isEqualTo(h.be());
                assertThat(s.srv()).as(what).isEqualTo(h.srv());
                assertThat(s.flags()).as(what).isEqualTo(h.flags());
                assertThat(s.bytes()).as(what).isEqualTo(h.bytes());
                assertThat(s.counts()).as(what).isEqualTo(h.counts());
                // Tw: -1 without a slot, else the time to the slot, the inspection's wait included (the bytes' arrival)
                if (h.tw() < 0) {
                    assertThat(s.tw()).as(what).isEqualTo(h.tw());
                } else {
                    assertThat(s.tw()).as(what).isBetween(h.tw() - 60, h.tw() + 60);
                }
                assertThat(s.tc() < 0).as(what).isEqualTo(h.tc() < 0);
                assertThat(s.total()).as(what).isBetween(h.total() - 150, h.total() + 150);
            }
            // what HAProxy says of the cases
            assertThat(theirs.lines().get("reject")).contains(" fc fc/<NOSRV> -1/-1/").contains(" PR ");
            assertThat(theirs.lines().get("pieces")).contains(" PR ");
            assertThat(TcpLogTest.parse(theirs.lines().get("quiet")).tw()).isBetween(500L, 560L);
            assertThat(theirs.lines().get("be-reject")).contains(" fb bb/<NOSRV> ").contains(" PR ");
            assertThat(theirs.lines().get("client-timeout")).contains(" fto be/<NOSRV> ").contains(" cR ");
            assertThat(theirs.lines().get("conn-reject")).isNull();
            assertThat(theirs.lines().get("sess-reject")).isNull();
            // the rate counts the connection being decided: the third within the period is over 2
            assertThat(theirs.seen().get("rate-2").text()).isEqualTo("r2<FIN>");
            assertThat(theirs.lines().get("rate-3")).isNull();
            assertThat(theirs.lines().get("rate-4")).isNull();
            assertThat(theirs.lines().get("res-reject")).contains(" lbad lbad/bad ").contains(" PD ");
            assertThat(theirs.seen().get("res-close").text()).isEqualTo("CLO banner<FIN>");
            // root: both make the socket quiet (TCP_REPAIR); otherwise HAProxy's TTL trick does nothing on loopback and Sluice resets
            assertThat(ours.seen().get("drop").text()).isEqualTo(ROOT ? "<TIMEOUT>" : "<RST>");
            // http-request silent-drop too, the request phase's PR
            assertThat(ours.seen().get("http-drop").text()).isEqualTo(ROOT ? "<TIMEOUT>" : "<RST>");
            assertThat(theirs.lines().get("http-drop")).contains(" fhs fhs/<NOSRV> ").contains(" PR ");
            // the counters
            for (String px : List.of("fc", "fb", "fcr", "fsr", "frl", "fto", "fhs")) {
                for (String col : List.of("conn_tot", "stot", "dreq", "dcon", "dses")) {
                    assertThat(ours.stat().get(px + "/FRONTEND").get(col)).as("%s %s", px, col)
                            .isEqualTo(theirs.stat().get(px + "/FRONTEND").get(col));
                }
            }
            for (String px : List.of("be", "bb", "lres", "lbad", "lclo")) {
                for (String col : List.of("stot", "dreq", "dresp", "cli_abrt", "srv_abrt")) {
                    assertThat(ours.stat().get(px + "/BACKEND").get(col)).as("%s %s", px, col).isEqualTo(theirs.stat().get(px + "/BACKEND").get(col));
                }
            }
        }
    }
}

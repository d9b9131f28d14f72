package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The proxy and server state fetches ({@code nbsrv}, {@code srv_is_up}, {@code connslots}, {@code avg_queue}, the weights,
 * ids, timeouts, frontend connections, free slots, the server connection's addresses and encoding) and the URL hashes answered by {@code http-request return} while servers are disabled and reweighted on the admin
 * socket: the same bodies from Sluice and from HAProxy 2.6 on the same configuration.
 */
class StateFetchParityTest {
    private static final String CONFIG = """
            global
                stats socket @SOCK@ level admin
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 7s
            frontend fe
                bind 127.0.0.1:@P0@
                http-request return status 200 content-type text/plain lf-string "nbsrv=%[nbsrv(be)] up1=%[srv_is_up(be/s1)] \
            up2=%[srv_is_up(be/s2)] bconn=%[be_conn(be)] q=%[queue(be)] aq=%[avg_queue(be)] slots=%[connslots(be)] \
            sconn=%[srv_conn(be/s1)] sq=%[srv_queue(be/s1)] w=%[srv_weight(be/s1)] iw=%[srv_iweight(be/s1)] uw=%[srv_uweight(be/s1)] \
            nbk=%[nbsrv(bk)] fet=%[fe_client_timeout] \
            b32=%[base32] u32=%[url32] b32s=%[base32+src,hex] u32s=%[url32+src,hex] \
            feconn=%[fe_conn] feconn2=%[fe_conn(li)] defbe=%[fe_defbe] stop=%[stopping] free=%[be_conn_free(be)] \
            free2=%[srv_conn_free(be/s2)] freebk=%[be_conn_free(bk)] "
                default_backend be
            backend be
                server s1 127.0.0.1:1 maxconn 10 maxqueue 5 weight 3
                server s2 127.0.0.1:2 maxconn 4 maxqueue 2
            backend bk
                server a 127.0.0.1:3 backup
                server b 127.0.0.1:4 backup
            listen li
                bind 127.0.0.1:@P1@
                timeout tunnel 30s
                http-request return status 200 content-type text/plain lf-string "cst0=%[cur_server_timeout] ctt0=%[cur_tunnel_timeout] " if { path /before-set }
                http-request set-timeout server 3s
                http-request return status 200 content-type text/plain lf-string "beid=%[be_id] bst=%[be_server_timeout] btt=%[be_tunnel_timeout] \
            nbsrv=%[nbsrv] up=%[srv_is_up(x)] slots=%[connslots] conn=%[be_conn] cst=%[cur_server_timeout] ctt=%[cur_tunnel_timeout] "
                server x 127.0.0.1:5
            listen lo
                bind 127.0.0.1:@P2@
                http-response set-header X-S "%[srv_name] %[srv_id] %[be_id] %[srv_conn(lo/o)] %[be_conn] %[srv_is_up(o)] \
            %[bc_src] %[bc_src_port,bool] %[bc_dst] %[bc_dst_port] %[bc_http_major] %[cur_server_timeout] %[cur_tunnel_timeout]"
                server z 127.0.0.1:6 disabled
                server o 127.0.0.1:@O@ id 7
            """;

    private static String get(int port, String path) {
        try (RawClient c = new RawClient(port)) {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").read();
            String s = r.head().fields().stream().filter(f -> f[0].equalsIgnoreCase("x-s")).map(f -> f[1]).findFirst().orElse("");
            return path + " " + r.status() + " " + s + " " + (s.isEmpty() ? r.bodyText().strip() : "");
        }
    }

    private static List<String> run(boolean haproxy, Origin o) throws Exception {
        int[] ports = {Ports.free(), Ports.free(), Ports.free()};
        Path dir = Files.createTempDirectory("sluice-state-fetch");
        Path sock = dir.resolve("admin.sock");
        String config = CONFIG.replace("@SOCK@", sock.toString()).replace("@P0@", Integer.toString(ports[0]))
                .replace("@P1@", Integer.toString(ports[1])).replace("@P2@", Integer.toString(ports[2])).replace("@O@", Integer.toString(o.port()));
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config, ports[0])) {
            AdminClient.await(sock);
            // the start-up probe's connection accepted (stot 1: it may still wait in the accept queue while scur reads 0)
            // and gone first: fe_conn counts the frontend's current connections
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < deadline && !probeGone(AdminClient.run(sock, "show stat\n"))) {
                Daemon.sleep(20);
            }
            out.add(get(ports[0], "/all-up?a=1"));
            out.add(get(ports[2], "/origin"));
            out.add(get(ports[1], "/listen"));
            out.add(get(ports[1], "/before-set"));
            AdminClient.run(sock, "disable server be/s2\n");
            AdminClient.run(sock, "disable server bk/a\n");
            out.add(get(ports[0], "/s2-down"));
            AdminClient.run(sock, "set weight be/s1 1\n");
            out.add(get(ports[0], "/s1-weight-1"));
            AdminClient.run(sock, "disable server be/s1\n");
            AdminClient.run(sock, "disable server bk/b\n");
            out.add(get(ports[0], "/all-down"));
            AdminClient.run(sock, "enable server be/s2\n");
            AdminClient.run(sock, "disable server li/x\n");
            out.add(get(ports[0], "/s2-back"));
            out.add(get(ports[1], "/listen-down"));
        }
        return out;
    }

    private static boolean probeGone(String stat) {
        String[] fe = stat.lines().filter(l -> l.startsWith("fe,FRONTEND,")).findFirst().orElse(",,,,,,,,").split(",", -1);
        return fe[4].equals("0") && !fe[7].isEmpty() && Long.parseLong(fe[7]) >= 1;
    }

    @Test
    void stateFetchesAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        try (Origin o = Origin.start("o")) {
            List<String> sluice = run(false, o);
            List<String> haproxy = run(true, o);
            assertThat(sluice).isEqualTo(haproxy);
            assertThat(sluice.get(1)).startsWith("/origin 200 o 7 ");
            // bc_src, bc_src_port (not 0), bc_dst, bc_dst_port, bc_http_major: real values, not two empty samples alike
            assertThat(sluice.get(1)).contains(" 127.0.0.1 1 127.0.0.1 " + o.port() + " 1 7000 0");
            assertThat(sluice.get(2)).contains(" cst=3000 ctt=0");
            assertThat(sluice.get(3)).contains("cst0=0 ctt0=0");
            assertThat(sluice.get(0)).contains(" nbsrv=2 ", " feconn=1 ", " defbe=be ", " stop=0 ", " free=14 ");
        }
    }
}

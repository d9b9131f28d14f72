package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code option splice-auto} on the layer-4 relay: 64 MiB each way intact (SHA-256) with the log line's byte counts
 * and flags as on the copy path ({@link TcpRelayTest}), a client that half-closes first and then downloads, a server
 * resetting in the middle ({@code SD}).
 */
class TcpSpliceTest {
    static String config(int up, int sink, int down, int source, int resets, int resetPort) {
        return TcpRelayTest.config(up, sink, TcpRelayTest.TIMEOUTS + "\noption splice-auto") + """
                listen down
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                listen resets
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                """.formatted(down, source, resetPort, resets);
    }

    @Test
    void splicedTransfersAreIntactAndLoggedAsCopiedOnes() throws Exception {
        long big = TcpRelayTest.BIG;
        String expected = big + " " + TcpOrigin.patternSha(big);
        try (TcpOrigin sink = TcpOrigin.start(TcpOrigin.SINK); TcpOrigin source = TcpOrigin.start(TcpOrigin.source(big));
                TcpOrigin resets = TcpOrigin.start(TcpOrigin.resetAfter(1 << 20))) {
            int up = Ports.free();
            int down = Ports.free();
            int rst = Ports.free();
            try (Daemon d = Daemon.start(false, config(up, sink.port(), down, source.port(), resets.port(), rst), up)) {
                assertThat(TcpRelayTest.upload(up, big)).isEqualTo(expected);
                String answer = Integer.toString(expected.length() + 1);
                assertThat(d.awaitLines(x -> x.contains(" l l/s1 ") && x.split(" ")[5].equals(answer)
                        && TcpRelayTest.flags(x).equals("--"), 1)).as(d.output()).hasSize(1);
                assertThat(TcpRelayTest.download(down)).isEqualTo(expected);
                assertThat(d.awaitLines(x -> x.contains(" down down/s1 ") && x.split(" ")[5].equals(Long.toString(big))
                        && TcpRelayTest.flags(x).equals("--"), 1)).as(d.output()).hasSize(1);

                // half-closed first, then a download through the pipes
                int clientPort;
                try (Socket s = new Socket()) {
                    s.setReceiveBufferSize(64 * 1024);
                    s.connect(new java.net.InetSocketAddress("127.0.0.1", down));
                    s.setSoTimeout(20_000);
                    clientPort = s.getLocalPort();
                    s.getOutputStream().write("GET\n".getBytes(StandardCharsets.US_ASCII));
                    s.shutdownOutput();
                    Daemon.sleep(300);
                    MessageDigest md = TcpOrigin.sha256();
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[65536];
                    long count = 0;
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        md.update(buf, 0, n);
                        count += n;
                    }
                    assertThat(count + " " + HexFormat.of().formatHex(md.digest())).isEqualTo(expected);
                }
                String l = TcpRelayTest.line(d, clientPort);
                assertThat(TcpRelayTest.flags(l)).as(l).isEqualTo("--");
                assertThat(l.split(" ")[5]).as(l).isEqualTo(Long.toString(big));

                // the server resets after 1 MiB
                try (Socket s = TcpRelayTest.connect(rst)) {
                    clientPort = s.getLocalPort();
                    try {
                        s.getInputStream().readAllBytes();
                    } catch (java.net.SocketException e) {
                        // a reset is as good as a close here
                    }
                }
                assertThat(TcpRelayTest.flags(TcpRelayTest.line(d, clientPort))).isEqualTo("SD");
            }
        }
    }

    /** Pipes the daemon holds open now (a spliced direction has one). */
    static long pipes(long pid) throws java.io.IOException {
        try (var fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/" + pid + "/fd"))) {
            return fds.filter(f -> {
                try {
                    return java.nio.file.Files.readSymbolicLink(f).toString().startsWith("pipe:");
                } catch (java.io.IOException e) {
                    return false;
                }
            }).count();
        }
    }

    /**
     * A stalled download (the client does not read) holds a pipe per spliced direction with {@code option splice-auto},
     * none under {@code -dS} or {@code nosplice}: the relay copies then.
     */
    @Test
    void dSAndNospliceTurnSplicingOff() throws Exception {
        try (TcpOrigin source = TcpOrigin.start(TcpOrigin.source(64L << 20))) {
            for (String variant : new String[] {"splice", "-dS", "nosplice"}) {
                int port = Ports.free();
                String cfg = TcpRelayTest.config(port, source.port(), TcpRelayTest.TIMEOUTS + "\noption splice-auto");
                if (variant.equals("nosplice")) {
                    cfg = cfg.replace("    log stdout", "    nosplice\n    log stdout");
                }
                List<String> args = variant.equals("-dS") ? List.of("-dS") : List.of();
                try (Sluice d = Sluice.start(Sluice.writeConfig(cfg), args, java.util.Map.of(), port)) {
                    long before = pipes(d.pid());
                    try (Socket s = new Socket()) {
                        s.setReceiveBufferSize(64 * 1024);
                        s.connect(new java.net.InetSocketAddress("127.0.0.1", port));
                        s.getOutputStream().write('G');
                        Daemon.sleep(1000);
                        long during = pipes(d.pid()) - before;
                        assertThat(during).as("%s: pipes opened during a stalled download", variant)
                                .isEqualTo(variant.equals("splice") ? 4 : 0);
                    }
                }
            }
        }
    }
}

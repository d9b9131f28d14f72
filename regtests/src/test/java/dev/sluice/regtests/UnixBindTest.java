package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Listeners on UNIX sockets ({@code bind /path}, {@code unix@}, mode and owner) and in the abstract namespace
 * ({@code abns@}, for binds and servers), compared with HAProxy 2.6: what clients get, what the logs and fetches say of
 * them, the socket files (a stale file replaced, mode and owner set, left in place at the stop), HAProxy reaching
 * Sluice's abstract listener and the other way round, and an in-process reload keeping the socket.
 */
class UnixBindTest {
    private static final AtomicInteger SEQ = new AtomicInteger();

    /** A name in the abstract namespace no other run holds. */
    private static String abstractName(String what) {
        return "sluice-rt-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet() + "-" + what;
    }

    private static String curlUnix(Path socket, String target) throws Exception {
        return CurlTest.curl("--unix-socket", socket.toString(), "http://x" + target);
    }

    private static String fileFacts(Path p) throws Exception {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return "absent";
        }
        boolean socket = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther();
        return (socket ? "socket " : "file ") + PosixFilePermissions.toString(Files.getPosixFilePermissions(p)) + " "
                + Files.getAttribute(p, "unix:uid") + ":" + Files.getAttribute(p, "unix:gid");
    }

    private static List<String> run(boolean haproxy) throws Exception {
        Path dir = Files.createTempDirectory("sluice-unixbind");
        Path h = dir.resolve("h.sock");
        Path t = dir.resolve("t.sock");
        // left by an earlier run: replaced by the new socket
        Files.writeString(h, "stale");
        String abns = abstractName("h");
        int port = Ports.free();
        String cfg = """
                global
                    log stdout format raw local0
                defaults
                    log global
                    option dontlognull
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    mode http
                    bind unix@%s mode 640
                    bind abns@%s
                    bind 127.0.0.1:%d
                    option forwardfor
                    log-format "http ci=%%ci cp=%%cp fi=%%fi fp=%%fp src=%%[src] sp=%%[src_port] dst=%%[dst] dp=%%[dst_port] %%ST"
                    http-request return status 200 content-type text/plain lf-string "src=%%[src] sp=%%[src_port] ci=%%ci cp=%%cp xff=%%[req.hdr(x-forwarded-for)]\\n"
                frontend tfe
                    mode tcp
                    bind %s uid 1 gid 2 mode 600
                    log-format "tcp %%ci:%%cp %%b/%%s %%si:%%sp"
                    default_backend tbe
                backend tbe
                    mode tcp
                    server s1 abns@%s
                """.formatted(h, abns, port, t, abns);
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, port)) {
            // the TCP bind the start waits for may come up before the UNIX sockets of the next frontend
            for (long end = System.nanoTime() + 10_000_000_000L; !Files.exists(t) && System.nanoTime() < end; ) {
                Daemon.sleep(10);
            }
            out.add("h " + fileFacts(h).replaceFirst(" \\d+:\\d+$", ""));
            out.add("t " + fileFacts(t));
            out.add(curlUnix(h, "/a").strip());
            // mode tcp on a UNIX socket, relayed to the abstract listener (curl's --abstract-unix-socket cannot reach it: it does
            // not pad the name as HAProxy does)
            out.add(curlUnix(t, "/c").strip());
            out.addAll(d.awaitLines(l -> l.startsWith("http ci=unix") || l.startsWith("tcp "), 3).stream()
                    .map(l -> l.replaceFirst(" \\[.*$", "")).sorted().toList());
        }
        // the stop leaves the socket files
        out.add("after " + fileFacts(h).replaceFirst(" \\d+:\\d+$", "") + " / " + fileFacts(t));
        return out;
    }

    @Test
    void unixAndAbstractListenersAsInHaproxy() throws Exception {
        Program.CURL.require();
        List<String> sluice = run(false);
        assertThat(sluice).containsExactly(
                "h socket rw-r-----",
                "t socket rw------- 1:2",
                "src= sp= ci=unix cp=1 xff=",
                "src= sp= ci=unix cp=2 xff=",
                "http ci=unix cp=1 fi=unix fp=1 src=- sp=- dst=- dp=- 200",
                "http ci=unix cp=2 fi=unix fp=2 src=- sp=- dst=- dp=- 200",
                "tcp unix:1 tbe/s1 unix:0",
                "after socket rw-r----- / socket rw------- 1:2");
        Program.HAPROXY.require();
        assertThat(run(true)).as("HAProxy 2.6").isEqualTo(sluice);
    }

    /** HAProxy's server on abns@ reaches Sluice's abstract listener, Sluice's (and its check) reach HAProxy's. */
    @Test
    void abstractSocketsInteroperateWithHaproxy() throws Exception {
        Program.HAPROXY.require();
        String toSluice = abstractName("s");
        String toHaproxy = abstractName("h");
        int hPort = Ports.free();
        int sPort = Ports.free();
        String common = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                """;
        String haproxy = common + """
                frontend local
                    bind abns@%s
                    http-request return status 200 content-type text/plain string "from haproxy"
                frontend front
                    bind 127.0.0.1:%d
                    default_backend other
                backend other
                    server s1 abns@%s
                """.formatted(toHaproxy, hPort, toSluice);
        String sluice = "global\n    stats socket @DIR@/admin.sock level admin\n" + common + """
                frontend local
                    bind abns@%s
                    http-request return status 200 content-type text/plain string "from sluice"
                frontend front
                    bind 127.0.0.1:%d
                    default_backend other
                backend other
                    server s1 abns@%s check inter 200
                """.formatted(toSluice, sPort, toHaproxy);
        try (Daemon h = Daemon.start(true, haproxy, hPort); Daemon s = Daemon.start(false, sluice, sPort)) {
            assertThat(CurlTest.curl("http://127.0.0.1:" + hPort + "/")).isEqualTo("from sluice");
            assertThat(CurlTest.curl("http://127.0.0.1:" + sPort + "/")).isEqualTo("from haproxy");
            ServerQueueTest.awaitStat(s, "other,s1", "check_status", "L4OK");
        }
    }

    /** An in-process reload keeps the UNIX socket (the same file, the same socket), and the new rules answer on it. */
    @Test
    void aReloadKeepsTheSocket() throws Exception {
        Program.CURL.require();
        Path dir = Files.createTempDirectory("sluice-unixbind");
        Path sock = dir.resolve("fe.sock");
        Path admin = dir.resolve("admin.sock");
        Path cfg = dir.resolve("test.cfg");
        int port = Ports.free();
        String text = """
                global
                    stats socket %s level admin
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind %s mode 600
                    bind 127.0.0.1:%d
                    http-request wait-for-body time 5s if METH_POST
                    http-request return status 200 content-type text/plain string "%s"
                """;
        Files.writeString(cfg, text.formatted(admin, sock, port, "gen-a"));
        try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port)) {
            AdminClient.await(admin);
            assertThat(curlUnix(sock, "/")).isEqualTo("gen-a");
            // a client on the socket, its request's body not complete: show sess names it as HAProxy 2.6 does (src=unix:<listener id>)
            try (java.nio.channels.SocketChannel held = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(sock))) {
                held.write(java.nio.ByteBuffer.wrap("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\nab".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
                String sess = "";
                for (long end = System.nanoTime() + 5_000_000_000L; !sess.contains("unix") && System.nanoTime() < end; ) {
                    sess = AdminClient.run(admin, "show sess\n");
                }
                assertThat(sess).contains(" proto=unix_stream src=unix:1 fe=fe ");
            }
            Object inode = Files.getAttribute(sock, "unix:ino");
            Files.writeString(cfg, text.formatted(admin, sock, port, "gen-b"));
            assertThat(InProcessReloadTest.reload(admin)).startsWith("Success=1");
            assertThat(curlUnix(sock, "/")).isEqualTo("gen-b");
            assertThat(Files.getAttribute(sock, "unix:ino")).as("the same socket file").isEqualTo(inode);
            assertThat(dir.toFile().list()).as("no temporary name left").noneMatch(n -> n.endsWith(".tmp"));
        }
    }

    /** The inode of the socket listening on {@code abns@name}, from /proc/net/unix (NULs read as '@'), or null. */
    private static String abstractInode(String name) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/net/unix"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 7 && f[5].equals("01") && f[7].replaceFirst("@+$", "").equals("@" + name)) {
                return f[6];
            }
        }
        return null;
    }

    /**
     * HAProxy hands its UNIX and abstract listening sockets to Sluice ({@code -x}, as it would to its own next process):
     * Sluice accepts on the same sockets (the path's file and the abstract socket unchanged) and answers there; then Sluice
     * hands them to a new HAProxy the same way.
     */
    @Test
    void haproxyHandsItsUnixSocketsToSluice() throws Exception {
        String haproxy = Program.HAPROXY.require();
        Program.CURL.require();
        Path dir = Files.createTempDirectory("sluice-unixbind");
        Path sock = dir.resolve("fe.sock");
        String abns = abstractName("x");
        int port = Ports.free();
        String cfg = """
                global
                    stats socket %s level admin expose-fd listeners
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind %s
                    bind abns@%s
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "%s"
                """;
        Path hsock = dir.resolve("haproxy.sock");
        Path hcfg = dir.resolve("haproxy.cfg");
        Files.writeString(hcfg, cfg.formatted(hsock, sock, abns, port, "haproxy"));
        Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        try {
            SocketHandoverTest.awaitPort("127.0.0.1", port, h);
            assertThat(curlUnix(sock, "/")).isEqualTo("haproxy");
            Object file = Files.getAttribute(sock, "unix:ino");
            String abstractSocket = abstractInode(abns);
            assertThat(abstractSocket).isNotNull();
            Path scfg = Sluice.writeConfig(cfg.formatted(dir.resolve("sluice.sock"), sock, abns, port, "sluice"));
            try (Sluice s = Sluice.start(scfg, List.of("-sf", Long.toString(h.pid()), "-x", hsock.toString()), java.util.Map.of())) {
                assertThat(h.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).as("HAProxy finished").isTrue();
                assertThat(s.process().isAlive()).as("Sluice serves:\n%s", s.output()).isTrue();
                assertThat(curlUnix(sock, "/")).isEqualTo("sluice");
                assertThat(Files.getAttribute(sock, "unix:ino")).as("HAProxy's socket file").isEqualTo(file);
                assertThat(abstractInode(abns)).as("HAProxy's abstract socket").isEqualTo(abstractSocket);
                // and back: a new HAProxy takes them from Sluice (its sockets' names, <path>.<pid>.tmp and the padded one, match)
                Path h2cfg = dir.resolve("haproxy2.cfg");
                Files.writeString(h2cfg, cfg.formatted(dir.resolve("haproxy2.sock"), sock, abns, port, "haproxy2"));
                Process h2 = new ProcessBuilder(haproxy, "-db", "-f", h2cfg.toString(), "-sf", Long.toString(s.pid()), "-x",
                        dir.resolve("sluice.sock").toString()).redirectErrorStream(true).redirectOutput(dir.resolve("haproxy2.log").toFile()).start();
                try {
                    assertThat(s.process().waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).as("Sluice finished").isTrue();
                    assertThat(h2.isAlive()).as("HAProxy serves: %s", Files.readString(dir.resolve("haproxy2.log"))).isTrue();
                    assertThat(curlUnix(sock, "/")).isEqualTo("haproxy2");
                    assertThat(Files.getAttribute(sock, "unix:ino")).as("the first socket file").isEqualTo(file);
                    assertThat(abstractInode(abns)).as("the first abstract socket").isEqualTo(abstractSocket);
                } finally {
                    h2.destroy();
                    h2.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
                }
            }
        } finally {
            h.destroy();
            h.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Sends {@code bytes} on the UNIX socket {@code path} and reads until the other side closes. */
    private static String exchange(Path path, String bytes) throws Exception {
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(path))) {
            ch.write(java.nio.ByteBuffer.wrap(bytes.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4096);
            while (ch.read(b) > 0) {
                out.write(b.array(), 0, b.position());
                b.clear();
            }
            return out.toString(java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    private static List<String> protocols(boolean haproxy, TestPki.Issued cert) throws Exception {
        Path dir = Files.createTempDirectory("sluice-unixbind");
        int port = Ports.free();
        String cfg = """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    option dontlognull
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind %1$s/h.sock
                    bind %1$s/pp.sock accept-proxy
                    bind %1$s/tls.sock ssl crt %2$s alpn h2,http/1.1
                    bind 127.0.0.1:%3$d
                    log-format "log %%ci:%%cp %%fi:%%fp %%HV %%[ssl_fc] %%ST"
                    http-request return status 200 content-type text/plain lf-string "%%HV src=%%[src] sp=%%[src_port] ssl=%%[ssl_fc]"
                """.formatted(dir, cert.pem(), port);
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, port)) {
            for (long end = System.nanoTime() + 10_000_000_000L; !Files.exists(dir.resolve("tls.sock")) && System.nanoTime() < end; ) {
                Daemon.sleep(10);
            }
            out.add(CurlTest.curl("--http2-prior-knowledge", "--unix-socket", dir.resolve("h.sock").toString(), "http://x/"));
            String pp = exchange(dir.resolve("pp.sock"), "PROXY TCP4 192.0.2.7 198.51.100.1 4321 80\r\nGET / HTTP/1.0\r\n\r\n");
            out.add(pp.substring(pp.indexOf("\r\n\r\n") + 4));
            out.add(CurlTest.curl("-k", "--unix-socket", dir.resolve("tls.sock").toString(), "https://x/"));
            out.addAll(d.awaitLines(l -> l.startsWith("log "), 3).stream().sorted().toList());
        }
        return out;
    }

    /** HTTP/2 with prior knowledge, the PROXY protocol and TLS over UNIX sockets, as HAProxy 2.6 serves them. */
    @Test
    void h2ProxyProtocolAndTlsOverUnixSockets() throws Exception {
        Program.CURL.require();
        TestPki.Issued cert = new TestPki("unix-ca").leaf("unix.test", "unix.test");
        List<String> sluice = protocols(false, cert);
        assertThat(sluice).containsExactly(
                "HTTP/2.0 src= sp= ssl=0",
                "HTTP/1.0 src=192.0.2.7 sp=4321 ssl=0",
                "HTTP/2.0 src= sp= ssl=1",
                "log 192.0.2.7:4321 198.51.100.1:80 HTTP/1.0 0 200",
                "log unix:1 unix:1 HTTP/2.0 0 200",
                "log unix:3 unix:3 HTTP/2.0 1 200");
        Program.HAPROXY.require();
        assertThat(protocols(true, cert)).as("HAProxy 2.6").isEqualTo(sluice);
    }

    /** {@code line message} of each error a {@code -c} prints: Sluice's {@code file:N: error: }, HAProxy's {@code parsing [file:N] : }. */
    private static List<String> checkErrors(String config, boolean haproxy) throws Exception {
        if (!haproxy) {
            Sluice.Result r = Sluice.check(config);
            assertThat(r.exitCode()).isEqualTo(1);
            assertThat(r.output()).contains("Fatal errors found in configuration.").doesNotContain("Configuration file is valid");
            return r.output().lines().filter(l -> l.contains(": error: ")).map(l -> l.replaceFirst("^.*?:(\\d+): error: ", "$1 ")).toList();
        }
        Process h = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", Sluice.writeConfig(config).toString()).redirectErrorStream(true).start();
        String out = new String(h.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(h.waitFor()).isEqualTo(1);
        return out.lines().filter(l -> l.contains("parsing [")).map(l -> l.replaceFirst("^.*parsing \\[[^:]*:(\\d+)\\] ?: ", "$1 ")).toList();
    }

    /**
     * Users and groups are looked up as HAProxy looks them up (getpwnam/getgrnam: every NSS source), so -c fails on an
     * unknown one at its line, with HAProxy 2.6's words, and passes with a known one.
     */
    @Test
    void unknownOwnersFailTheCheckAsInHaproxy() throws Exception {
        Path dir = Files.createTempDirectory("sluice-unix-owners");
        String config = """
                global
                    unix-bind user no-such-user-here
                    unix-bind group no-such-group-here
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind %1$s/a.sock user no-such-user-here
                    bind %1$s/b.sock group no-such-group-here mode 600
                    bind %1$s/c.sock user nobody group root
                    http-request return status 200
                """.formatted(dir);
        List<String> sluice = checkErrors(config, false);
        assertThat(sluice).containsExactly("2 'unix-bind' : 'no-such-user-here' unknown user.",
                "3 'unix-bind' : 'no-such-group-here' unknown group.",
                "10 'bind " + dir + "/a.sock' in section 'frontend' : 'user' : unknown user name 'no-such-user-here'",
                "11 'bind " + dir + "/b.sock' in section 'frontend' : 'group' : unknown group name 'no-such-group-here'");
        String known = config.replace("no-such-user-here", "nobody").replace("no-such-group-here", "root");
        assertThat(Sluice.check(known).exitCode()).isZero();
        Program.HAPROXY.require();
        assertThat(checkErrors(config, true)).as("HAProxy 2.6").isEqualTo(sluice);
    }
}

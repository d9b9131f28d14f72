package dev.sluice.regtests;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * A TLS 1.3 echo server on the JDK's {@code SSLServerSocket} (not Netty, not Sluice's TLS): each connection echoes what
 * it reads until the peer's close_notify (or FIN), then sends its own close_notify and FIN (TLS 1.3's half-close), and
 * closes once the peer is gone. Records the server name each handshake asked for ("" for none). Closed by the test.
 */
final class TlsEchoOrigin implements AutoCloseable {
    private final SSLServerSocket server;
    private final List<String> serverNames = Collections.synchronizedList(new ArrayList<>());
    private final List<Socket> open = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean closed;

    TlsEchoOrigin(TestPki pki, TestPki.Issued cert) {
        try {
            server = (SSLServerSocket) pki.serverContext(cert).getServerSocketFactory().createServerSocket(Ports.free(), 64,
                    InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setEnabledProtocols(new String[] {"TLSv1.3"});
        Thread t = new Thread(this::acceptLoop, "tls-echo-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    List<String> serverNames() {
        synchronized (serverNames) {
            return List.copyOf(serverNames);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            SSLSocket s;
            try {
                s = (SSLSocket) server.accept();
            } catch (IOException e) {
                return;
            }
            open.add(s);
            Thread t = new Thread(() -> serve(s), "tls-echo-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(SSLSocket s) {
        try (s) {
            s.startHandshake();
            serverNames.add(serverName(s));
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[65536];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
                out.flush();
            }
            s.shutdownOutput();
            while (in.read(buf) >= 0) {
                // until the peer closes
            }
        } catch (IOException e) {
            // a failed handshake, or the peer reset
        }
    }

    private static String serverName(SSLSocket s) {
        if (s.getSession() instanceof ExtendedSSLSession x) {
            for (SNIServerName n : x.getRequestedServerNames()) {
                if (n instanceof SNIHostName h) {
                    return h.getAsciiName();
                }
            }
        }
        return "";
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing
        }
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException e) {
                // closing
            }
        }
    }
}

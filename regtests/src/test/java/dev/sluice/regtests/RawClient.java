package dev.sluice.regtests;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A raw-socket HTTP/1 client for byte-exact requests and for reading responses exactly as sent. */
final class RawClient implements AutoCloseable {

    /** A response: status line, head, body and trailers. */
    record Response(Http1.Head head, byte[] body, List<String[]> trailers) {
        int status() {
            return Integer.parseInt(head.startLine().split(" ")[1]);
        }

        String header(String name) {
            return head.get(name);
        }

        String bodyText() {
            return new String(body, StandardCharsets.ISO_8859_1);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawClient(int port) {
        this(port, 10_000);
    }

    RawClient(int port, int readTimeoutMs) {
        this(port, readTimeoutMs, null);
    }

    /** A client whose connection comes from {@code localIp} (any 127.x.y.z works on Linux), or the default address. */
    RawClient(int port, int readTimeoutMs, String localIp) {
        this("127.0.0.1", port, readTimeoutMs, localIp);
    }

    /** A client of {@code host} (an address literal, e.g. "::1"). */
    RawClient(String host, int port) {
        this(host, port, 10_000, null);
    }

    private RawClient(String host, int port, int readTimeoutMs, String localIp) {
        try {
            socket = new Socket();
            if (localIp != null) {
                socket.bind(new InetSocketAddress(localIp, 0));
            }
            socket.connect(new InetSocketAddress(host, port), 5000);
            socket.setSoTimeout(readTimeoutMs);
            socket.setTcpNoDelay(true);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    RawClient send(String s) {
        return send(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawClient send(byte[] b) {
        try {
            out.write(b);
            out.flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The client's own port. */
    int localPort() {
        return socket.getLocalPort();
    }

    OutputStream out() {
        return out;
    }

    InputStream in() {
        return in;
    }

    void shutdownOutput() {
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one response to a non-HEAD request. */
    Response read() {
        return read(false);
    }

    Response read(boolean headRequest) {
        try {
            Http1.Head h = Http1.readHead(in);
            if (h == null) {
                throw new IOException("connection closed before a response");
            }
            int status = Integer.parseInt(h.startLine().split(" ")[1]);
            List<String[]> trailers = new ArrayList<>();
            byte[] body;
            if (headRequest || status == 204 || status == 304 || status < 200) {
                body = new byte[0];
            } else if (Http1.isChunked(h)) {
                body = Http1.readChunked(in, trailers);
            } else if (h.has("content-length")) {
                body = Http1.readFixed(in, Long.parseLong(h.get("content-length")));
            } else {
                body = in.readAllBytes();
            }
            return new Response(h, body, trailers);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Everything until the server closes the connection. */
    byte[] readToEnd() {
        try {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String readToEndText() {
        return new String(readToEnd(), StandardCharsets.ISO_8859_1);
    }

    /** True when the server closed the connection (read returns end of stream within the timeout). */
    /** Whether the server closed the connection (end of stream or reset) before the read timeout; a timeout is false. */
    boolean closedByPeerBeforeTimeout() {
        try {
            return in.read() == -1;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    boolean closedByPeer() {
        try {
            return in.read() == -1;
        } catch (IOException e) {
            return true;
        }
    }

    /** Closes with a reset (SO_LINGER 0): an abort, not the half-close HAProxy keeps serving. */
    void reset() {
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException e) {
            // closing anyway
        }
        close();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}

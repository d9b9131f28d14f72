package dev.sluice.regtests;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A UDP relay on 127.0.0.1 between one client and a server, as a NAT would be: the client talks to the relay's
 * port, the relay to the server from an upstream socket that {@link #move} replaces (the client's address changes in
 * the server's eyes, a NAT rebinding). Counts what each upstream socket got back. Owned by one test; one thread reads
 * the client side, one each upstream socket.
 */
final class UdpRelay implements AutoCloseable {
    /** One upstream socket and the datagrams the server sent to it. */
    record Upstream(DatagramSocket socket, AtomicLong received) {
        int port() {
            return socket.getLocalPort();
        }
    }

    private final DatagramSocket front;
    private final InetSocketAddress server;
    private final List<Upstream> upstreams = new CopyOnWriteArrayList<>();
    private volatile InetSocketAddress client;

    UdpRelay(int serverPort) throws IOException {
        server = new InetSocketAddress(InetAddress.getLoopbackAddress(), serverPort);
        front = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        move();
        Thread.ofPlatform().daemon().name("relay-front").start(() -> {
            byte[] buf = new byte[65535];
            while (!front.isClosed()) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    front.receive(p);
                    client = (InetSocketAddress) p.getSocketAddress();
                    current().socket().send(new DatagramPacket(p.getData(), p.getLength(), server));
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    /** The port the client connects to. */
    int port() {
        return front.getLocalPort();
    }

    /** The upstream socket in use. */
    Upstream current() {
        return upstreams.getLast();
    }

    /** Sends on from a new upstream socket (a new port); the old one still relays what comes back to it. */
    Upstream move() throws SocketException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Upstream u = new Upstream(s, new AtomicLong());
        upstreams.add(u);
        Thread.ofPlatform().daemon().name("relay-up-" + s.getLocalPort()).start(() -> {
            byte[] buf = new byte[65535];
            while (!s.isClosed()) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    s.receive(p);
                    u.received().incrementAndGet();
                    InetSocketAddress to = client;
                    if (to != null) {
                        front.send(new DatagramPacket(p.getData(), p.getLength(), to));
                    }
                } catch (IOException e) {
                    return;
                }
            }
        });
        return u;
    }

    @Override
    public void close() {
        front.close();
        upstreams.forEach(u -> u.socket().close());
    }
}

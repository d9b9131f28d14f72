package dev.sluice.regtests;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Free TCP ports on the loopback interface for configurations written by tests. Ports come from
 * 20000-31999, below the kernel's ephemeral range (32768 and up), so that the outgoing connections of
 * clients and proxies never take a port a configuration is about to bind. The test JVMs that surefire runs
 * side by side ({@code sluice.fork} of {@code sluice.forks}, numbered from 1) each take their own slice of
 * the range, so that two of them never hand out the same port between the check and the daemon's bind;
 * within a slice, a JVM walks from its own offset and never hands out a port twice (with ephemeral ports, a
 * test asking for dozens of ports got the same one twice now and then).
 */
final class Ports {
    private Ports() {
    }

    private static final int RANGE_LOW = 20000;
    private static final int RANGE_SIZE = 12000;
    private static final int FORKS = Math.max(1, Integer.getInteger("sluice.forks", 1));
    private static final int FORK = Math.floorMod(Integer.getInteger("sluice.fork", 1) - 1, FORKS);
    private static final int SIZE = RANGE_SIZE / FORKS;
    private static final int LOW = RANGE_LOW + FORK * SIZE;
    private static final AtomicInteger NEXT = new AtomicInteger((int) ((ProcessHandle.current().pid() * 7919L) % SIZE));

    static int free() {
        for (int tries = 0; tries < SIZE; tries++) {
            int port = LOW + Math.floorMod(NEXT.getAndIncrement(), SIZE);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException e) {
                // taken: try the next one
            }
        }
        throw new IllegalStateException("no free port in " + LOW + "-" + (LOW + SIZE - 1));
    }
}

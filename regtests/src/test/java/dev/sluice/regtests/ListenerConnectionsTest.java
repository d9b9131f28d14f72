package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code dst_conn} (the connections the listener holds now, the one evaluated included) and {@code so_id} in
 * {@code tcp-request connection} rules and in a reply, against HAProxy 2.6: the same steps (connections held open,
 * one refused by the rule, one closed) give the same answers ({@link HaproxyParityTest#compare}).
 */
class ListenerConnectionsTest {

    private static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:@FE@ id 7
                tcp-request connection reject if { dst_conn gt 2 }
                tcp-request connection reject if !{ so_id 7 }
                http-request return status 200 content-type text/plain lf-string "dc=%[dst_conn] so=%[so_id]"
            """;

    private static String ask(RawClient c) {
        return c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().bodyText();
    }

    /**
     * Two connections held, a third refused, the first closed, a fourth served, the fourth closed: what each saw. A close
     * reaches the proxy a moment after the client's, and connections that waited for the port to open may be accepted
     * late: a connection refused meanwhile is made again (a refusal changes no count), and each question is asked again
     * until the count settles to what the steps make it.
     */
    private static List<String> play(int port) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        RawClient a = served(port, deadline);
        seen.add(settled(a, "dc=1 ", deadline));
        try (RawClient b = served(port, deadline)) {
            seen.add(settled(b, "dc=2 ", deadline));
            seen.add("third refused: " + refused(port));
            a.close();
            try (RawClient d = served(port, deadline)) {
                seen.add(settled(d, "dc=2 ", deadline));
            }
            seen.add(settled(b, "dc=1 ", deadline));
        }
        return seen;
    }

    /** A connection the proxy serves (one it refuses is made again until the deadline). */
    private static RawClient served(int port, long deadline) throws InterruptedException {
        while (true) {
            RawClient c = null;
            try {
                c = new RawClient(port, 2000);
                ask(c);
                return c;
            } catch (RuntimeException e) {
                if (c != null) {
                    c.close();
                }
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    /** The answer on {@code c}, asked again until it starts with {@code want} or the deadline passes. */
    private static String settled(RawClient c, String want, long deadline) throws InterruptedException {
        String answer = ask(c);
        while (!answer.startsWith(want) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            answer = ask(c);
        }
        return answer;
    }

    /** Whether a new connection is refused (a reset, seen at the connect or at the first read, as the timing goes). */
    private static boolean refused(int port) {
        try (RawClient c = new RawClient(port, 2000)) {
            return c.closedByPeerBeforeTimeout();
        } catch (java.io.UncheckedIOException e) {
            return true;
        }
    }

    @Test
    void dstConnCountsTheListenersConnectionsAsHaproxy() throws Exception {
        List<String> theirs = HaproxyParityTest.compareRecording(CONFIG, List.of("first", "second", "third", "fourth", "second again"), ports -> {
            try {
                return play(ports[0]);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
            }
        });
        assertThat(theirs).containsExactly("dc=1 so=7", "dc=2 so=7", "third refused: true", "dc=2 so=7", "dc=1 so=7");
    }
}

package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerPath} on its own, for a stream that carries no HTTP request (as a layer-4 stream will): a fake
 * {@link Exchange} and {@link ClientEnd}, {@link Attempts} without a request, the real backend, slot, queue and
 * connector on embedded channels. Refused connections are retried after HAProxy's turn-around wait, timed-out ones at
 * once, then given up (econ); {@code option redispatch} moves to another server; a queued stream gets the slot given
 * back, or gives up at {@code timeout queue} (sQ); a connection arriving after the stream ended is given back.
 */
class ServerPathTest {

    private final EmbeddedProxy proxy = EmbeddedProxy.of("""
            defaults
                mode http
                timeout connect 5s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:8080
                default_backend be
            backend be
                retries 2
                server s1 127.0.0.1:9001
            backend two
                retries 1
                option redispatch
                balance roundrobin
                server s1 127.0.0.1:9001
                server s2 127.0.0.1:9002
            backend q
                timeout queue 2s
                server s1 127.0.0.1:9001 maxconn 1
            """);

    /** The client connection's facts. */
    private final class Client implements ClientEnd {
        @Override
        public EventLoop loop() {
            return proxy.loop();
        }

        @Override
        public int loopIndex() {
            return 0;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return EmbeddedProxy.CLIENT;
        }

        @Override
        public InetSocketAddress localAddress() {
            return EmbeddedProxy.FRONT;
        }

        @Override
        public long acceptDate() {
            return System.currentTimeMillis();
        }

        @Override
        public long requestStartNanos() {
            return System.nanoTime();
        }

        @Override
        public boolean tls() {
            return false;
        }

        @Override
        public TlsSession tlsSession() {
            return null;
        }

        @Override
        public long bytesOut() {
            return 0;
        }
    }

    /** What rules would read of a stream without a request. */
    private static final class Target implements Txn {
        private final Map<String, Object> vars = new HashMap<>();

        @Override
        public dev.sluice.proxy.http.RequestHead request() {
            return null;
        }

        @Override
        public dev.sluice.proxy.http.ResponseHead response() {
            return null;
        }

        @Override
        public InetSocketAddress clientAddress() {
            return EmbeddedProxy.CLIENT;
        }

        @Override
        public InetSocketAddress frontendAddress() {
            return EmbeddedProxy.FRONT;
        }

        @Override
        public boolean tls() {
            return false;
        }

        @Override
        public String sni() {
            return null;
        }

        @Override
        public String frontendName() {
            return "fe";
        }

        @Override
        public String backendName() {
            return null;
        }

        @Override
        public Map<String, Object> vars() {
            return vars;
        }
    }

    /** A stream without a request, with its path; records what the path tells it. */
    private final class Fake implements Exchange {
        final List<String> events = new ArrayList<>();
        final Client client = new Client();
        final Target target = new Target();
        final Backend backend;
        final Accounting accounting = new Accounting(this, client, proxy.frontend());
        final Persistence persistence = new Persistence(client, null, target);
        final Termination outcome = new Termination();
        final Attempts attempts;
        final ServerPath path;
        Server server;
        boolean finished;

        Fake(String backendName) {
            backend = proxy.backend(backendName);
            attempts = new Attempts(backend, null, backend.retries());
            path = new ServerPath(this, client, backend, attempts) {
                @Override
                void established(ServerConnection c) {
                    events.add("established " + server.name());
                }

                @Override
                void unreachable() {
                    if (outcome.cause() == Termination.Cause.NONE) {
                        // no server, or no connection: SC, as HTTP's 503 and HAProxy's TCP streams say
                        outcome.set(Termination.Cause.SERVER_ABORT, Termination.State.CONNECT);
                    }
                    finished = true;
                    slot().release();
                    events.add("unreachable " + outcome.cause().letter() + outcome.state().letter());
                }
            };
        }

        /** Balanced, as a stream without persistence is. */
        Fake start() {
            path.assign(persistence.route(backend, null), persistence.persistTarget() != null);
            proxy.run();
            return this;
        }

        @Override
        public Backend backend() {
            return backend;
        }

        @Override
        public Server server() {
            return server;
        }

        @Override
        public void server(Server s) {
            server = s;
        }

        @Override
        public Txn target() {
            return target;
        }

        @Override
        public Accounting accounting() {
            return accounting;
        }

        @Override
        public Persistence persistence() {
            return persistence;
        }

        @Override
        public Termination outcome() {
            return outcome;
        }

        @Override
        public boolean finished() {
            return finished;
        }
    }

    @AfterEach
    void close() {
        proxy.close();
    }

    private static long count(Server s, Counter c) {
        return s.counters().get(c);
    }

    @Test
    void aRefusedConnectionIsRetriedAfterTheTurnAroundThenGivenUp() {
        proxy.refuseConnects(3, new ConnectException("Connection refused"));
        Fake x = new Fake("be").start();
        Server s1 = proxy.backend("be").servers().get(0);
        // the first attempt failed; the retry waits MIN(1s, timeout connect)
        assertThat(proxy.servers()).hasSize(1);
        assertThat(x.events).isEmpty();
        proxy.advance(999);
        assertThat(proxy.servers()).hasSize(1);
        proxy.advance(1);
        assertThat(proxy.servers()).hasSize(2);
        proxy.advance(1000);
        // retries 2: three attempts, then no connection (SC, as a 503 would say)
        assertThat(proxy.servers()).hasSize(3);
        assertThat(x.events).containsExactly("unreachable SC");
        assertThat(x.attempts.done()).isEqualTo(2);
        assertThat(x.attempts.redispatched()).isFalse();
        assertThat(count(s1, Counter.CONNECTS)).isEqualTo(3);
        assertThat(count(s1, Counter.RETRIES)).isEqualTo(2);
        assertThat(count(s1, Counter.CONNECT_ERRORS)).isEqualTo(1);
        assertThat(proxy.backend("be").counters().get(Counter.CONNECT_ERRORS)).isEqualTo(1);
        assertThat(count(s1, Counter.SELECTED)).isEqualTo(1);
    }

    @Test
    void aTimedOutConnectIsRetriedWithoutWaiting() {
        proxy.refuseConnects(2, new ConnectTimeoutException("connection timed out"));
        Fake x = new Fake("be").start();
        // no turn-around after a connect timeout: the third attempt is under way at once, and succeeds
        assertThat(proxy.servers()).hasSize(3);
        assertThat(x.events).containsExactly("established s1");
        assertThat(x.attempts.done()).isEqualTo(2);
        assertThat(x.accounting.connectStarted()).isTrue();
    }

    @Test
    void withRedispatchARefusedConnectionMovesToTheOtherServerAtOnce() {
        proxy.refuseConnects(1, new ConnectException("Connection refused"));
        Fake x = new Fake("two").start();
        Backend two = proxy.backend("two");
        Server now = x.server;
        Server left = now == two.servers().get(0) ? two.servers().get(1) : two.servers().get(0);
        // balanced over two usable servers: the retry goes through the balancing, without the turn-around wait
        assertThat(proxy.servers()).hasSize(2);
        assertThat(x.events).containsExactly("established " + now.name());
        assertThat(x.attempts.redispatched()).isTrue();
        assertThat(x.attempts.done()).isEqualTo(1);
        assertThat(count(left, Counter.REDISPATCHES)).isEqualTo(1);
        assertThat(count(left, Counter.RETRIES)).isZero();
        assertThat(count(left, Counter.CONNECTS)).isEqualTo(1);
        assertThat(count(now, Counter.CONNECTS)).isEqualTo(1);
        assertThat(two.counters().get(Counter.SELECTED)).isEqualTo(2);
        assertThat(left.activeStreams()).isZero();
        assertThat(now.activeStreams()).isEqualTo(1);
    }

    @Test
    void aQueuedStreamGetsTheSlotTheFirstOneGivesBack() {
        Fake first = new Fake("q").start();
        assertThat(first.events).containsExactly("established s1");
        Fake second = new Fake("q").start();
        // maxconn 1: the second waits in the backend's queue (for any server)
        assertThat(second.events).isEmpty();
        assertThat(second.path.slot().waiting()).isTrue();
        assertThat(second.server).isNull();
        first.path.slot().release();
        proxy.run();
        assertThat(second.events).containsExactly("established s1");
        // it waited (the wait is measured in real time, not on the loop's clock)
        assertThat(second.path.slot().queueMillis()).isGreaterThanOrEqualTo(0);
        assertThat(second.path.slot().backendQueuePosition()).isEqualTo(1);
    }

    @Test
    void aQueuedStreamGivesUpAtTimeoutQueueWithSQ() {
        Fake first = new Fake("q").start();
        Fake second = new Fake("q").start();
        proxy.advance(1999);
        assertThat(second.events).isEmpty();
        proxy.advance(1);
        assertThat(second.events).containsExactly("unreachable sQ");
        assertThat(proxy.backend("q").counters().get(Counter.CONNECT_ERRORS)).isEqualTo(1);
        assertThat(second.path.slot().waiting()).isFalse();
        assertThat(second.path.slot().queueMillis()).isGreaterThanOrEqualTo(0);
        assertThat(first.events).containsExactly("established s1");
    }

    @Test
    void aConnectionArrivingAfterTheStreamEndedIsGivenBack() {
        Fake x = new Fake("be");
        x.path.assign(null, false);
        // the stream ends while its connection is being established
        x.finished = true;
        proxy.run();
        assertThat(x.events).isEmpty();
        assertThat(x.accounting.connectedAt()).isEqualTo(-1);
        assertThat(proxy.servers()).hasSize(1);
        // given back: the next stream to s1 finds it idle in the pool (or, closed, opens another)
        Fake next = new Fake("be").start();
        assertThat(next.events).containsExactly("established s1");
        assertThat(proxy.servers()).hasSize(proxy.server(0).isOpen() ? 1 : 2);
    }
}

package dev.sluice.proxy.check;

import dev.sluice.config.model.EmailAlert;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.transport.Transport;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * The alerts waiting for one mailer of a proxy (HAProxy's email_alertq): each one's rule set is played by a
 * {@link TcpCheckRun} against the mailer, one after the other, each within {@code timeout mail} (the run's
 * {@code inter}; {@code timeout check} after the connection, when set, as for a check). At most {@link #MAX_PENDING}
 * wait; more are dropped (HAProxy's queue has no bound). On {@link #loop}; {@link #add} from any thread.
 */
final class MailerQueue implements TcpCheckOwner {
    static final int MAX_PENDING = 1024;

    private final String proxy;
    private final EmailAlert.Mailer mailer;
    private final InetSocketAddress target;
    private final long timeoutMs;
    private final long timeoutCheck;
    private final long timeoutConnect;
    private final EventLoop loop;
    private final Transport transport;
    private final int bufsize;
    private final ProcScope process;
    private final ArrayDeque<TcpCheckPlan> pending = new ArrayDeque<>();
    private TcpCheckPlan rules;
    private CheckAttempt current;
    /** Exchanges that ended, and those that ended with a failure (for tests and diagnostics). */
    private long done;
    private long failed;

    MailerQueue(String proxy, EmailAlert.Mailer mailer, long timeoutMs, long timeoutCheck, long timeoutConnect, EventLoop loop, Transport transport,
            int bufsize, ProcScope process) {
        this.proxy = proxy;
        this.mailer = mailer;
        this.target = new InetSocketAddress(mailer.host(), mailer.port());
        this.timeoutMs = timeoutMs;
        this.timeoutCheck = timeoutCheck;
        this.timeoutConnect = timeoutConnect;
        this.loop = loop;
        this.transport = transport;
        this.bufsize = bufsize;
        this.process = process;
    }

    /** Queues one alert's exchange. Any thread. */
    void add(TcpCheckPlan alert) {
        loop.execute(() -> {
            if (pending.size() >= MAX_PENDING) {
                return;
            }
            pending.add(alert);
            if (current == null) {
                next();
            }
        });
    }

    private void next() {
        if (current != null) {
            return;
        }
        rules = pending.poll();
        if (rules == null) {
            return;
        }
        current = new TcpCheckRun(this);
        current.start();
    }

    EmailAlert.Mailer mailer() {
        return mailer;
    }

    /** Exchanges ended so far, and how many of them failed; read on the loop. */
    long[] counts() {
        return new long[] {done, failed};
    }

    @Override
    public TcpCheckPlan tcpRules() {
        return rules;
    }

    @Override
    public int bufsize() {
        return bufsize;
    }

    @Override
    public ProcScope process() {
        return process;
    }

    @Override
    public long timeoutCheck() {
        return timeoutCheck;
    }

    @Override
    public long timeoutConnect() {
        return timeoutConnect;
    }

    @Override
    public long inter() {
        return timeoutMs;
    }

    @Override
    public String proxyName() {
        return proxy;
    }

    @Override
    public InetSocketAddress target() {
        return target;
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public Transport transport() {
        return transport;
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
    public int proxyHeaderVersion() {
        return 0;
    }

    @Override
    public Server server() {
        return null;
    }

    @Override
    public void interim(CheckAttempt run, Expectations.Outcome outcome) {
        // no parser of the SMTP rules reports early
    }

    @Override
    public void completed(CheckAttempt run, Expectations.Outcome outcome) {
        if (run != current) {
            return;
        }
        current = null;
        done++;
        if (outcome.status().result() == CheckStatus.Result.FAILED) {
            failed++;
        }
        // the next one after this run has unwound
        loop.execute(this::next);
    }
}

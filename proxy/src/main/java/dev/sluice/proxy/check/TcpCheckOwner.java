package dev.sluice.proxy.check;

import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.transport.Transport;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;

/**
 * What a {@link TcpCheckRun} plays its rules for and reports to: a server's {@link HealthCheck}, or one mailer of a
 * proxy's email alerts ({@link MailerQueue}), which HAProxy 2.6 sends as a tcp-check rule set too. On {@link #loop} only.
 */
interface TcpCheckOwner {
    /** The rules to play. */
    TcpCheckPlan tcpRules();

    /** How much of a response is read (HAProxy: {@code tune.bufsize}). */
    int bufsize();

    /** The process's variables and environment, which the rules read and set. */
    ProcScope process();

    /** {@code timeout check} in milliseconds, 0 when unset. */
    long timeoutCheck();

    /** {@code timeout connect} in milliseconds, 0 when unset. */
    long timeoutConnect();

    /** The time a connection may take to be made (a check's {@code inter}). */
    long inter();

    /** The proxy the rules belong to (the {@code be_name} of their samples). */
    String proxyName();

    /** The UNIX socket a check of a server on one connects to (null: none, the check uses {@link #target}). */
    default java.net.SocketAddress unixTarget() {
        return null;
    }

    /** Where a connect rule without address or port goes. */
    InetSocketAddress target();

    EventLoop loop();

    Transport transport();

    /** Whether a {@code connect default} speaks TLS. */
    boolean tls();

    /** The SNI of a {@code connect default} over TLS (null: none). */
    String sni();

    /** The PROXY protocol version a {@code connect default} starts with (0: none). */
    int proxyHeaderVersion();

    /** The server whose TLS settings and {@code send-proxy} version a connect rule uses (null: none, as for a mailer). */
    Server server();

    /** The run reports {@code outcome} before its end (the protocol parsers of mysql-check and ldap-check do). */
    void interim(CheckAttempt run, Expectations.Outcome outcome);

    /** The run ended with {@code outcome}. */
    void completed(CheckAttempt run, Expectations.Outcome outcome);
}

package dev.sluice.proxy.runtime;

import dev.sluice.proxy.listener.ListenerCounters;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.h1.H1ClientConnection;
import dev.sluice.proxy.h2.H2ClientConnection;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.Listener;
import dev.sluice.proxy.stream.ConnectionRules;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.tcp.TcpClientConnection;
import dev.sluice.proxy.tls.ServerTlsContext;
import dev.sluice.proxy.tls.TlsContexts;
import io.netty.channel.ChannelHandler;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What each bind of a frontend puts first on an accepted connection: the PROXY header reader ({@code accept-proxy},
 * {@code tcp-request connection expect-proxy}), then the TLS handshake ({@code ssl}), then, by the frontend's mode, the
 * HTTP/1 or HTTP/2 connection ({@code proto h2}) or the layer-4 one ({@code mode tcp}); QUIC binds go to
 * {@link QuicBinds}. Also the {@code alt-svc} value a frontend's
 * QUIC binds give its TCP connections. Static.
 */
final class BindPipelines {
    private BindPipelines() {
    }

    /**
     * The listeners of the TCP binds of frontend {@code p}, in declaration order, each with the handler it starts an
     * accepted connection with; its QUIC binds are added to {@code quic}.
     */
    static List<Listener> listeners(Proxy p, Frontend fe, ConnectionLimit limit, ConnectionRules connectionRules, TlsContexts tls,
            QuicBinds quic) {
        List<Listener> listeners = new ArrayList<>();
        boolean expectsProxy = p.tcpRules().connection().stream()
                .anyMatch(r -> r instanceof HttpRule.Action a && a.name().equals("expect-proxy"));
        int bindIndex = 0;
        for (Bind b : p.binds()) {
            bindIndex++;
            // HAProxy's listener id: the bind's id option, else its position
            int luid = b.socket().id() > 0 ? b.socket().id() : bindIndex;
            if (b.isQuic()) {
                quic.add(fe, b, tls.forQuicBind(p.name(), b), connectionRules, listenerCounters(p, b, luid, fe),
                        new dev.sluice.proxy.listener.ListenerIdentity(luid, b.socket().name()));
                continue;
            }
            String bindName = b.socket().name() != null ? b.socket().name() : Integer.toString(bindIndex);
            Listener l = new Listener(b, p.name(), limit, starter(p, b, bindName, fe, tls, expectsProxy)).id(luid);
            ListenerCounters lc = listenerCounters(p, b, luid, fe);
            if (lc != null) {
                l.counters(lc);
            }
            listeners.add(l);
        }
        return listeners;
    }

    /**
     * The counters of bind {@code b} (listener id {@code luid}) of {@code p} when {@code p} has {@code option socket-stats}, given
     * to the frontend for its rows; else null. HAProxy's listener ids: the bind addresses numbered from 1 in order (or
     * {@code id}); the default name {@code sock-<id>}.
     */
    private static ListenerCounters listenerCounters(Proxy p, Bind b, int luid, Frontend fe) {
        if (!p.options().socketStats()) {
            return null;
        }
        String address = switch (b.address()) {
            case ListenAddress.Inet i -> i.toString();
            case ListenAddress.Quic q -> (q.host().indexOf(':') >= 0 ? "[" + q.host() + "]" : q.host()) + ":" + q.port();
            default -> "unix";
        };
        ListenerCounters lc = new ListenerCounters(b.socket().name() != null ? b.socket().name() : "sock-" + luid, luid, address);
        fe.listenerCounters(lc);
        return lc;
    }

    /**
     * What a connection accepted on TCP bind {@code b} (named {@code bindName} in connection error lines) of frontend
     * {@code p} starts with, given whether it is admitted already: the PROXY header reader, the TLS set-up, or the
     * protocol's connection.
     */
    static Function<Boolean, ChannelHandler> starter(Proxy p, Bind b, String bindName, Frontend fe, TlsContexts tls, boolean expectsProxy) {
        boolean h2 = "h2".equals(b.proto());
        // proto h1: HTTP/1 forced, HTTP/2's preface is a bad request (HAProxy's explicit h1 multiplexer does not upgrade)
        boolean h1 = "h1".equals(b.proto());
        long handshakeTimeout = handshakeTimeout(p.timeouts());
        Function<Boolean, ChannelHandler> first;
        if (b.tls() != null) {
            ServerTlsContext ctx = tls.forBind(p.name(), b);
            TlsClientSetup.Protocol protocol;
            if (p.mode() == Mode.TCP) {
                // TLS ends here: the decrypted bytes are relayed, whatever ALPN chose
                protocol = (session, date, nanos) -> new TcpClientConnection(fe, true, date, nanos);
            } else {
                protocol = (session, date, nanos) -> h1 ? new H1ClientConnection(fe, true).noH2Upgrade()
                        : h2 || "h2".equals(session.alpn()) ? H2ClientConnection.create(fe, true) : new H1ClientConnection(fe, true);
            }
            int capture = tls.helloCaptureSize();
            first = admitted -> new TlsClientSetup(fe, ctx, bindName, protocol, handshakeTimeout, admitted).captureHello(capture);
        } else if (p.mode() == Mode.TCP) {
            first = admitted -> new TcpClientConnection(fe, admitted);
        } else {
            first = admitted -> h2 ? H2ClientConnection.create(fe, admitted)
                    : h1 ? new H1ClientConnection(fe, admitted).noH2Upgrade() : new H1ClientConnection(fe, admitted);
        }
        Function<Boolean, ChannelHandler> after = first;
        if (b.acceptProxy()) {
            // the PROXY header comes before anything else, TLS included
            return admitted -> new ProxyHeaderReader(fe, bindName, handshakeTimeout, admitted, after);
        }
        if (expectsProxy) {
            // tcp-request connection expect-proxy layer4: the rules decided, per connection
            return admitted -> ProxyHeaderReader.ifExpected(fe, bindName, handshakeTimeout, admitted, after);
        }
        return first;
    }

    /**
     * The {@code alt-svc} value {@code option h3-alt-svc} adds on the TCP connections of a frontend: its first
     * QUIC bind's port and the configured max age; null when off or when the frontend has no QUIC bind.
     */
    static AsciiString altSvc(Proxy p) {
        long ma = p.http().h3AltSvcMaxAge();
        if (ma < 0) {
            return null;
        }
        for (Bind b : p.binds()) {
            if (b.address() instanceof ListenAddress.Quic q) {
                return new AsciiString("h3=\":" + q.port() + "\"; ma=" + ma);
            }
        }
        return null;
    }

    /**
     * How long a client has to complete its TLS handshake: {@code timeout client} (what HAProxy's
     * {@code timeout client-hs} falls back to), else {@code timeout http-request}, else 10 s.
     */
    static long handshakeTimeout(Timeouts t) {
        if (t.client() != Timeouts.UNSET && t.client() > 0) {
            return t.client();
        }
        if (t.httpRequest() != Timeouts.UNSET && t.httpRequest() > 0) {
            return t.httpRequest();
        }
        return ServerTlsContext.DEFAULT_HANDSHAKE_TIMEOUT_MS;
    }
}

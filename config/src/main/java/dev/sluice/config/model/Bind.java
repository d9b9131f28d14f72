package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * A {@code bind} line: where a frontend accepts connections, whether it terminates TLS ({@code tls}
 * null for clear text) and which protocol it speaks on clear text ({@code proto} "h2" for HTTP/2 with
 * prior knowledge, null for HTTP/1.x). A {@code quic4@}/{@code quic6@} bind ({@link ListenAddress.Quic})
 * always has {@code tls} and carries its QUIC options in {@code quic}; {@code quic} is null on TCP binds.
 * {@code socket} holds the listener's name and socket options. {@code acceptProxy}: each connection starts with a
 * PROXY protocol header (v1 or v2) giving the client's addresses ({@code accept-proxy}).
 */
public record Bind(SourceRef where, ListenAddress address, String text, BindTls tls, String proto, BindQuic quic, BindSocket socket,
        boolean acceptProxy) {

    public Bind(SourceRef where, ListenAddress address, String text, BindTls tls, String proto, BindQuic quic, BindSocket socket) {
        this(where, address, text, tls, proto, quic, socket, false);
    }

    public Bind(SourceRef where, ListenAddress address, String text) {
        this(where, address, text, null, null, null, BindSocket.DEFAULT);
    }

    public Bind(SourceRef where, ListenAddress address, String text, BindTls tls, String proto) {
        this(where, address, text, tls, proto, null, BindSocket.DEFAULT);
    }

    public Bind(SourceRef where, ListenAddress address, String text, BindTls tls, String proto, BindQuic quic) {
        this(where, address, text, tls, proto, quic, BindSocket.DEFAULT);
    }

    public Bind withTls(BindTls t) {
        return new Bind(where, address, text, t, proto, quic, socket, acceptProxy);
    }

    public Bind withSocket(BindSocket s) {
        return new Bind(where, address, text, tls, proto, quic, s, acceptProxy);
    }

    /** With the proxy's {@code backlog} when the line sets none. */
    public Bind withDefaultBacklog(int backlog) {
        if (backlog <= 0 || socket.backlog() > 0 || isQuic()) {
            return this;
        }
        BindSocket s = socket;
        return new Bind(where, address, text, tls, proto, quic, new BindSocket(s.name(), s.id(), backlog, s.deferAccept(), s.fastOpen(),
                s.transparent(), s.v4v6(), s.v6only(), s.mss(), s.userTimeoutMs(), s.iface(), s.unix()), acceptProxy);
    }

    /** Whether this bind listens for QUIC (HTTP/3) datagrams rather than TCP connections. */
    public boolean isQuic() {
        return address instanceof ListenAddress.Quic;
    }
}

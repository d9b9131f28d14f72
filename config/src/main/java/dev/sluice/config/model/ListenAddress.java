package dev.sluice.config.model;

/** The address part of a {@code bind} or {@code stats socket} line. */
public sealed interface ListenAddress {

    /**
     * An IPv4 or IPv6 address (or wildcard) and a port. {@code host} is an IP literal without brackets,
     * empty for "all addresses".
     */
    record Inet(String host, int port) implements ListenAddress {
        @Override
        public String toString() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /**
     * {@code quic4@<ip>:<port>} or {@code quic6@<ip>:<port>}: a UDP socket receiving QUIC datagrams.
     * {@code host} is an IP literal without brackets ({@code 0.0.0.0} or {@code ::} for all addresses).
     */
    record Quic(String host, int port) implements ListenAddress {
        public boolean ipv6() {
            return host.indexOf(':') >= 0;
        }

        @Override
        public String toString() {
            return ipv6() ? "quic6@[" + host + "]:" + port : "quic4@" + host + ":" + port;
        }
    }

    /** {@code fd@<n>}: an already-listening socket inherited from the parent process. */
    record InheritedFd(int fd) implements ListenAddress {
        @Override
        public String toString() {
            return "fd@" + fd;
        }
    }

    /**
     * A UNIX stream socket path ({@code stats socket /run/sluice.sock}, {@code bind /run/fe.sock}, {@code bind unix@fe.sock});
     * a bind's path has the global {@code unix-bind prefix} in front already.
     */
    record Unix(String path) implements ListenAddress {
        @Override
        public String toString() {
            return "unix@" + path;
        }
    }

    /**
     * {@code abns@<name>}: a socket in Linux's abstract namespace, no file. As HAProxy 2.6 (and so that each can reach the
     * other), its address is the whole {@code sun_path}: a NUL, the name, NULs up to 108 bytes.
     */
    record Abstract(String name) implements ListenAddress {
        @Override
        public String toString() {
            return "abns@" + name;
        }
    }
}

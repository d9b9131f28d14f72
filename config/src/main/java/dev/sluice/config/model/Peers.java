package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A {@code peers} section: the peers that replicate the tables of this section and of the proxies whose
 * {@code stick-table} names it. {@code localName} is the name this process answers to ({@code -L}, the global
 * {@code localpeer}, or the host name) as it stood when the section was read; {@code local} is the peer of that
 * name (null when the section has none: HAProxy then removes the section with a warning, and so does the runtime:
 * {@link #active()} is false). {@code bind} is where the local peer listens (from its {@code peer} line or the
 * section's {@code bind}; null when neither says). {@code tables} are the section's own {@code table} lines,
 * named {@code <section>/<table>}.
 *
 * @param timeoutConnectMs the connect timeout to remote peers
 * @param maxUpdates       updates sent per table and pass ({@code tune.peers.max-updates-at-once}, default 200)
 */
public record Peers(SourceRef where, String name, boolean disabled, String localName, List<Peer> peers, ListenAddress bind,
        SourceRef bindWhere, List<String> bindOptions, List<String> defaultServerOptions, int shards, List<PeersTable> tables,
        List<String> logLines, long timeoutConnectMs, int maxUpdates) {

    public Peers {
        peers = List.copyOf(peers);
        bindOptions = List.copyOf(bindOptions);
        defaultServerOptions = List.copyOf(defaultServerOptions);
        tables = List.copyOf(tables);
        logLines = List.copyOf(logLines);
    }

    /** The peer this process is, or null. */
    public Peer local() {
        for (Peer p : peers) {
            if (p.local()) {
                return p;
            }
        }
        return null;
    }

    /** The certificate of an encrypted listener ({@code ssl crt <pem>} on the bind or default-bind), or null. */
    public String bindCertificate() {
        int i = bindOptions.lastIndexOf("crt");
        return bindOptions.contains("ssl") && i >= 0 && i + 1 < bindOptions.size() ? bindOptions.get(i + 1) : null;
    }

    /** Every peer but the local one, in declaration order. */
    public List<Peer> remotes() {
        return peers.stream().filter(p -> !p.local()).toList();
    }

    /** Whether the section replicates: not disabled and with a local peer. */
    public boolean active() {
        return !disabled && local() != null;
    }

    /**
     * One peer: {@code host}/{@code port} where it listens (for a remote peer, where to connect; for the local one,
     * where this process is reached, 0/null when a {@code server} line without address names it), whether it is this
     * process, and the options after the address ({@code ssl} among them).
     */
    public record Peer(SourceRef where, String name, String host, int port, boolean local, List<String> options) {
        public Peer {
            options = List.copyOf(options);
        }

        public boolean ssl() {
            return options.contains("ssl");
        }

        /** The word after {@code name} in the options, or null ({@code verify}, {@code ca-file}). */
        public String option(String name) {
            int i = options.lastIndexOf(name);
            return i >= 0 && i + 1 < options.size() ? options.get(i + 1) : null;
        }
    }

    /** A {@code table} line of a peers section: its short name, the full name {@code <section>/<name>}, and its definition. */
    public record PeersTable(SourceRef where, String name, String fullName, StickTableDecl decl) {
    }
}

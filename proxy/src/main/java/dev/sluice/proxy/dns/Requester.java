package dev.sluice.proxy.dns;

import dev.sluice.config.model.ServerDns;
import dev.sluice.proxy.backend.Server;
import java.util.List;

/**
 * A server following DNS: the A/AAAA resolution that gives its address (null for a server-template slot no SRV record
 * filled, or one whose SRV record came with its address) and the record it took, or, for a slot of an SRV
 * {@code server-template}, the SRV record it was given. Confined to its section's event loop.
 */
final class Requester {
    final Server server;
    final ServerDns options;
    /** The {@code resolve-net} networks, parsed. */
    final List<Network> networks;
    Resolution resolution;
    Resolution.Record ipRecord;
    Resolution.Record srvRecord;

    Requester(Server server, ServerDns options) {
        this.server = server;
        this.options = options;
        this.networks = Network.parse(options.networks());
    }
}

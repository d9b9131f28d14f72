package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A {@code resolvers} section: the name servers asked (in order, each over UDP or, with {@code tcp@}, TCP) and the timing
 * of the resolutions of the servers that name it. Times are in milliseconds. {@code holdValid}: how long an answer
 * stays good before the name is asked again; {@code holdNx|Timeout|Refused|Other}: how long a server keeps its last
 * address after an NXDOMAIN, no answer, a REFUSED or another error before it goes to maintenance; {@code holdObsolete}:
 * how long an address (or SRV target) missing from the answers is kept. {@code timeoutResolve}: the time between two
 * resolutions of a name (HAProxy's resolution period); {@code timeoutRetry}: the time before a query is sent again,
 * {@code resolveRetries} times at most. {@code implicit}: the {@code default} section HAProxy creates from
 * /etc/resolv.conf when the configuration has none of that name.
 */
public record Resolvers(SourceRef where, String name, List<Nameserver> nameservers, int acceptedPayloadSize, int resolveRetries,
        long timeoutResolve, long timeoutRetry, long holdValid, long holdNx, long holdTimeout, long holdRefused, long holdOther,
        long holdObsolete, boolean implicit) {

    public Resolvers {
        nameservers = List.copyOf(nameservers);
    }

    /** A {@code nameserver <id> [udp@|tcp@]<ip>:<port>} line (or one of /etc/resolv.conf, port 53, its address as id). */
    public record Nameserver(SourceRef where, String id, String host, int port, boolean tcp) {
    }
}

package dev.sluice.config.model;

import java.util.List;

/**
 * How a server follows DNS at run time ({@code server ... resolvers <name>}): the {@code resolvers} section asked,
 * the address family preferred ({@code resolve-prefer}, IPv6 by default as in HAProxy), {@code resolve-opts}
 * ({@code allowDupIp}: several servers of the same name may take the same address; {@code ignoreWeight}: SRV weights
 * leave the server's weight alone) and {@code resolve-net}, the networks (CIDR, as written) whose addresses are
 * preferred, in order.
 */
public record ServerDns(String resolvers, boolean preferIpv6, boolean allowDupIp, boolean ignoreWeight, List<String> networks) {
    public ServerDns {
        networks = networks == null ? List.of() : List.copyOf(networks);
    }

    /** HAProxy's defaults before any {@code resolvers} is named: IPv6 preferred, no duplicate addresses. */
    public static final ServerDns DEFAULT = new ServerDns(null, true, false, false, List.of());

    public ServerDns withResolvers(String r) {
        return new ServerDns(r, preferIpv6, allowDupIp, ignoreWeight, networks);
    }

    public ServerDns withPreferIpv6(boolean v6) {
        return new ServerDns(resolvers, v6, allowDupIp, ignoreWeight, networks);
    }

    public ServerDns withOptions(boolean allowDup, boolean ignoreW) {
        return new ServerDns(resolvers, preferIpv6, allowDup, ignoreW, networks);
    }

    public ServerDns withNetworks(List<String> n) {
        return new ServerDns(resolvers, preferIpv6, allowDupIp, ignoreWeight, n);
    }
}

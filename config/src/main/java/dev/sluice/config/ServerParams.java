package dev.sluice.config;

import dev.sluice.config.model.Server;

/**
 * The load-balancing options of a {@code server} or {@code default-server} line while it is parsed:
 * what {@code default-server} passes on to the servers that follow it. Parse-time only.
 */
final class ServerParams {
    int weight = 1;
    /** {@code id <n>}: only on a server line; 0 when the id is to be assigned. */
    int id;
    boolean backup;
    boolean disabled;
    Server.InitState initState;
    int maxconn;
    int maxqueue;
    long slowstart;

    ServerParams copy() {
        ServerParams p = new ServerParams();
        p.weight = weight;
        p.id = id;
        p.backup = backup;
        p.disabled = disabled;
        p.initState = initState;
        p.maxconn = maxconn;
        p.maxqueue = maxqueue;
        p.slowstart = slowstart;
        return p;
    }
}

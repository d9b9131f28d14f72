package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.rules.Txn;

/**
 * A stream as the machinery it shares with every kind of stream sees it: the server slot and queue
 * ({@link ServerSlot}), the way to a server connection ({@link ServerPath}), the counters ({@link Accounting}):
 * its backend and server, what rules and the balancing read of it, its counters, persistence and termination,
 * and whether it is over. Nothing of what it carries (an HTTP request, a byte stream). Its methods are public
 * only because an interface's are; the interface is the package's. Used on the stream's event loop only.
 */
interface Exchange {
    /** The backend, null until one was chosen. */
    Backend backend();

    /** The server, null until one was assigned (or while waiting for any server of the backend). */
    Server server();

    /** The server the stream goes to (or waits for), null for none. */
    void server(Server s);

    /** What the rules, the stick rules and the balancing's hashes read of the stream. */
    Txn target();

    Accounting accounting();

    Persistence persistence();

    Termination outcome();

    /** Whether the stream is over: late callbacks (a connection, a slot handed over) only give back what they bring. */
    boolean finished();
}

package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Txn;

/**
 * The hash algorithms ({@code source uri url_param hdr hash}): the request's key hashed by the
 * {@code hash-type} function, then mapped to a server by a {@link Table} (HAProxy's map or its consistent
 * ring). A request without a key goes round robin over the same table, as in HAProxy. A request with a key
 * is {@link #bound} to its server: when that server is at its maxconn, the request waits in its queue.
 */
final class HashBalance implements LbAlgorithm {

    /** Maps hashes to servers. */
    interface Table {
        /** The server for a hash (its slot not taken), or null when no server is usable. */
        Server lookup(int hash);

        /** The next server in the table's round robin that can take a request, its slot taken, or null. */
        Server takeNext();

        void rebuild();
    }

    private final RequestKey key;
    private final HashFunction function;
    private final Table table;

    HashBalance(RequestKey key, HashFunction function, Table table) {
        this.key = key;
        this.function = function;
        this.table = table;
    }

    @Override
    public Server pick(Txn txn) {
        long h = txn == null ? RequestKey.NONE : key.hash(txn, function);
        if (h == RequestKey.NONE) {
            return table.takeNext();
        }
        Server s = table.lookup((int) h);
        return s != null && s.tryTake() ? s : null;
    }

    @Override
    public Server bound(Txn txn) {
        long h = txn == null ? RequestKey.NONE : key.hash(txn, function);
        return h == RequestKey.NONE ? null : table.lookup((int) h);
    }

    @Override
    public void rebuild() {
        table.rebuild();
    }

    Table table() {
        return table;
    }
}

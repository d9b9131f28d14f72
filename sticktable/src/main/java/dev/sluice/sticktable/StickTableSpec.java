package dev.sluice.sticktable;

import java.util.List;
import java.util.function.Consumer;

/**
 * The arguments of a {@code stick-table} line:
 * {@code type ip|ipv6|integer|string [len n]|binary [len n] size <n>[k|m|g] [expire <t>] [nopurge]
 * [peers <name>] [srvkey name|addr] [store <list>]...}. {@code keyLength} is in bytes (the {@code len}
 * of string/binary keys, the fixed length otherwise); {@code expireMs} 0 means entries never expire
 * (they only go by eviction); {@code peers} is null without replication. Immutable; built by the config
 * module from a config line, by tests directly.
 */
public record StickTableSpec(KeyType keyType, int keyLength, int size, long expireMs, boolean noPurge, String peers,
        ServerKeySource serverKeySource, StoreSpec store) {

    /** What {@code stick store} writes into {@code server_key} ({@code srvkey}, default {@code name}). */
    public enum ServerKeySource { NAME, ADDR }

    public StickTableSpec {
        if (keyType == null) {
            throw new IllegalArgumentException("key type is required");
        }
        if (keyType.hasCustomLength() ? keyLength < 1 || keyLength > KeyType.MAX_LENGTH : keyLength != keyType.defaultLength()) {
            throw new IllegalArgumentException("bad key length " + keyLength + " for type " + keyType.haproxyName());
        }
        if (size < 1) {
            throw new IllegalArgumentException("size must be positive");
        }
        if (expireMs < 0 || expireMs > HaproxyUnits.MAX_TIME_MS) {
            throw new IllegalArgumentException("bad expire " + expireMs);
        }
        serverKeySource = serverKeySource == null ? ServerKeySource.NAME : serverKeySource;
        store = store == null ? StoreSpec.EMPTY : store;
    }

    /** A spec with the type's default key length, no peers and no store list. */
    public static StickTableSpec of(KeyType type, int size, long expireMs) {
        return new StickTableSpec(type, type.defaultLength(), size, expireMs, false, null, ServerKeySource.NAME, StoreSpec.EMPTY);
    }

    public StickTableSpec withStore(StoreSpec s) {
        return new StickTableSpec(keyType, keyLength, size, expireMs, noPurge, peers, serverKeySource, s);
    }

    public StickTableSpec withNoPurge(boolean b) {
        return new StickTableSpec(keyType, keyLength, size, expireMs, b, peers, serverKeySource, store);
    }

    public StickTableSpec withPeers(String p) {
        return new StickTableSpec(keyType, keyLength, size, expireMs, noPurge, p, serverKeySource, store);
    }

    public StickTableSpec withKeyLength(int len) {
        return new StickTableSpec(keyType, len, size, expireMs, noPurge, peers, serverKeySource, store);
    }

    /**
     * Parses the words after {@code stick-table}. Errors throw {@link StickTableConfigException} with the
     * index of the word at fault; warnings (a store type listed twice) go to {@code warnings}, which may
     * be null.
     */
    public static StickTableSpec parse(List<String> args, Consumer<String> warnings) {
        KeyType type = null;
        int len = 0;
        long size = 0;
        long expire = 0;
        boolean noPurge = false;
        String peers = null;
        ServerKeySource srvKey = ServerKeySource.NAME;
        StoreSpec store = StoreSpec.EMPTY;
        int i = 0;
        while (i < args.size()) {
            String w = args.get(i);
            switch (w) {
                case "type" -> {
                    String t = value(args, i);
                    type = KeyType.fromConfigName(t);
                    if (type == null) {
                        throw new StickTableConfigException("unknown type '" + t + "'; expected ip, ipv6, integer, string or binary", i + 1);
                    }
                    len = type.defaultLength();
                    i += 2;
                    if (type.hasCustomLength() && i < args.size() && args.get(i).equals("len")) {
                        String l = value(args, i);
                        len = parseLen(l, type, i + 1);
                        i += 2;
                    }
                }
                case "size" -> {
                    String s = value(args, i);
                    long v = wrap(() -> HaproxyUnits.parseSize(s, "size"), i + 1);
                    if (v < 1) {
                        throw new StickTableConfigException("size must be greater than zero", i + 1);
                    }
                    if (v > Integer.MAX_VALUE) {
                        throw new StickTableConfigException("value '" + s + "' of 'size' is too large (at most 2147483647 entries)", i + 1);
                    }
                    size = v;
                    i += 2;
                }
                case "expire" -> {
                    String s = value(args, i);
                    expire = wrap(() -> HaproxyUnits.parseTimeMillis(s, "expire"), i + 1);
                    i += 2;
                }
                case "nopurge" -> {
                    noPurge = true;
                    i++;
                }
                case "peers" -> {
                    peers = value(args, i);
                    i += 2;
                }
                case "srvkey" -> {
                    String s = value(args, i);
                    srvKey = switch (s) {
                        case "name" -> ServerKeySource.NAME;
                        case "addr" -> ServerKeySource.ADDR;
                        default -> throw new StickTableConfigException("unknown server key type '" + s + "' (expected 'name' or 'addr')", i + 1);
                    };
                    i += 2;
                }
                case "store" -> {
                    String s = value(args, i);
                    StoreSpec base = store;
                    store = wrap(() -> base.plus(s, warnings), i + 1);
                    i += 2;
                }
                case "write-to", "recv-only", "brates-factor" ->
                    throw new StickTableConfigException("'" + w + "' is not supported by Sluice yet", i);
                case "len" -> throw new StickTableConfigException("'len' only applies right after 'type string' or 'type binary'", i);
                default -> throw new StickTableConfigException("unknown argument '" + w
                        + "'; expected type, size, expire, nopurge, peers, srvkey or store", i);
            }
        }
        if (type == null) {
            throw new StickTableConfigException("missing type");
        }
        if (size == 0) {
            throw new StickTableConfigException("missing size");
        }
        return new StickTableSpec(type, len, (int) size, expire, noPurge, peers, srvKey, store);
    }

    private static String value(List<String> args, int i) {
        if (i + 1 >= args.size() || args.get(i + 1).isEmpty()) {
            throw new StickTableConfigException("missing argument after '" + args.get(i) + "'", i);
        }
        return args.get(i + 1);
    }

    private static int parseLen(String s, KeyType type, int index) {
        int v;
        try {
            v = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            v = -1;
        }
        if (v < 1 || v > KeyType.MAX_LENGTH) {
            throw new StickTableConfigException("invalid length '" + s + "' for type " + type.haproxyName()
                    + ": expected an integer between 1 and " + KeyType.MAX_LENGTH, index);
        }
        return v;
    }

    private interface Parse<T> {
        T get();
    }

    private static <T> T wrap(Parse<T> p, int index) {
        try {
            return p.get();
        } catch (StickTableConfigException e) {
            throw e.at(index);
        }
    }
}

package dev.sluice.sticktable;

/**
 * The key type of a stick table ({@code type ip|ipv6|integer|string [len n]|binary [len n]}). The name is
 * the one HAProxy prints in {@code show table} headers; {@code defaultLength} is the key length in bytes
 * when no {@code len} is given (fixed for addresses and integers). Immutable.
 */
public enum KeyType {
    /** IPv4 address, 4 bytes in network order. */
    IP("ip", 4, false),
    /** IPv6 address, 16 bytes in network order. */
    IPV6("ipv6", 16, false),
    /** 32-bit unsigned integer, 4 bytes big-endian (a 64-bit sample is truncated, as in HAProxy). */
    INTEGER("integer", 4, false),
    /** Byte string truncated to {@code len} bytes (default 32). */
    STRING("string", 32, true),
    /** Byte string truncated or zero-padded to exactly {@code len} bytes (default 32). */
    BINARY("binary", 32, true);

    /** Largest {@code len} accepted for string and binary keys. */
    public static final int MAX_LENGTH = 65535;

    private final String haproxyName;
    private final int defaultLength;
    private final boolean customLength;

    KeyType(String haproxyName, int defaultLength, boolean customLength) {
        this.haproxyName = haproxyName;
        this.defaultLength = defaultLength;
        this.customLength = customLength;
    }

    /** The name printed in {@code show table} ("ip", "ipv6", "integer", "string", "binary"). */
    public String haproxyName() {
        return haproxyName;
    }

    public int defaultLength() {
        return defaultLength;
    }

    /** True for the types that accept {@code len <n>}. */
    public boolean hasCustomLength() {
        return customLength;
    }

    /** The type for a config word: the printed names, plus {@code ipv4} as an alias of {@code ip}. */
    public static KeyType fromConfigName(String word) {
        return switch (word) {
            case "ip", "ipv4" -> IP;
            case "ipv6" -> IPV6;
            case "integer" -> INTEGER;
            case "string" -> STRING;
            case "binary" -> BINARY;
            default -> null;
        };
    }
}

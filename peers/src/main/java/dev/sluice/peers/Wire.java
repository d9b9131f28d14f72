package dev.sluice.peers;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The constants of HAProxy's peers protocol v2.1 (src/peers.c, doc/peers-v2.0.txt) and the small messages: the hello
 * lines, the status line, control and error messages. A message is a class byte and a type byte; types with bit 7 set
 * (the stick-table messages) carry a varint length and that many bytes.
 */
public final class Wire {
    private Wire() {
    }

    public static final String PROTOCOL = "HAProxyS";
    public static final int MAJOR = 2;
    public static final int MINOR = 1;

    // message classes
    public static final int CLASS_CONTROL = 0;
    public static final int CLASS_ERROR = 1;
    public static final int CLASS_STICKTABLE = 10;
    public static final int CLASS_RESERVED = 255;

    // control types
    public static final int CTRL_RESYNC_REQUEST = 0;
    public static final int CTRL_RESYNC_FINISHED = 1;
    public static final int CTRL_RESYNC_PARTIAL = 2;
    public static final int CTRL_RESYNC_CONFIRM = 3;
    public static final int CTRL_HEARTBEAT = 4;

    // error types
    public static final int ERR_PROTOCOL = 0;
    public static final int ERR_SIZE_LIMIT = 1;

    // stick-table types
    public static final int STKT_UPDATE = 0x80;
    public static final int STKT_INCUPDATE = 0x81;
    public static final int STKT_DEFINE = 0x82;
    public static final int STKT_SWITCH = 0x83;
    public static final int STKT_ACK = 0x84;
    public static final int STKT_UPDATE_TIMED = 0x85;
    public static final int STKT_INCUPDATE_TIMED = 0x86;

    // status codes of the handshake (and the pseudo codes HAProxy shows in 'show peers')
    public static final int SC_CONNECT = 100;
    public static final int SC_CONNECTED = 110;
    public static final int SC_SUCCESS = 200;
    public static final int SC_TRY_AGAIN = 300;
    public static final int SC_ERR_PROTO = 501;
    public static final int SC_ERR_VERSION = 502;
    public static final int SC_ERR_HOST = 503;
    public static final int SC_ERR_PEER = 504;

    // network key types
    public static final int KT_SINT = 2;
    public static final int KT_IPV4 = 4;
    public static final int KT_IPV6 = 5;
    public static final int KT_STR = 6;
    public static final int KT_BIN = 7;

    /** HAProxy's limit of a stick-table message's length: its trash buffer, tune.bufsize (16384 by default). */
    public static final int DEFAULT_MAX_MESSAGE = 16384;
    /** The longest varint HAProxy reads for a message length (its 7-byte header buffer less the two type bytes). */
    public static final int MAX_LENGTH_BYTES = 5;
    /** Entries of the per-peer dictionary cache of server keys (PEER_STKT_CACHE_MAX_ENTRIES). */
    public static final int DICT_ENTRIES = 128;

    // timers (ms)
    public static final long RESYNC_TIMEOUT_MS = 5000;
    public static final long RECONNECT_TIMEOUT_MS = 5000;
    public static final long HEARTBEAT_TIMEOUT_MS = 3000;

    /** The hello: {@code HAProxyS 2.1\n<remote>\n<local> <pid> 1\n}. */
    public static String hello(String remote, String local, long pid) {
        return PROTOCOL + " " + MAJOR + "." + MINOR + "\n" + remote + "\n" + local + " " + pid + " 1\n";
    }

    public static void writeLine(ByteBuf out, String s) {
        out.writeCharSequence(s, StandardCharsets.ISO_8859_1);
    }

    /** A two-byte message (control, error). */
    public static void writeShort(ByteBuf out, int cls, int type) {
        out.writeByte(cls);
        out.writeByte(type);
    }

    /** HAProxy's statuscode_str, for 'show peers'. */
    public static String statusName(int code) {
        return switch (code) {
            case SC_CONNECT -> "CONN";
            case SC_CONNECTED -> "HSHK";
            case SC_SUCCESS -> "ESTA";
            case SC_TRY_AGAIN -> "RETR";
            case SC_ERR_PROTO -> "PROT";
            case SC_ERR_VERSION -> "VERS";
            case SC_ERR_HOST -> "NAME";
            case SC_ERR_PEER -> "UNKN";
            default -> "NONE";
        };
    }
}

package dev.sluice.quic;

import io.netty.handler.codec.quic.QuicConnectionIdGenerator;
import java.nio.ByteBuffer;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.function.LongPredicate;

/**
 * The connection IDs of one QUIC socket, laid out as {@link Cids} says: a new connection (or a Retry) gets a
 * new prefix; every later CID of that connection (Netty asks with one of its current CIDs as input) keeps the
 * prefix and draws new random bytes after it, so any CID the peer switches to still leads to the connection,
 * or to its closing record. Owned by the socket's event loop, with its own DRBG instance: drawing random bytes
 * takes no lock shared with other loops (the JDK's default {@code NativePRNG} reads /dev/urandom under one
 * process-wide lock, and Netty's own generator shares one instance).
 */
public final class CidGenerator implements QuicConnectionIdGenerator {
    private final int serverId;
    private final int socketIndex;
    private final SecureRandom random;
    private final LongPredicate taken;

    /**
     * @param taken whether a prefix is in use by a connection of this socket (a closing one, whose record
     *              would otherwise answer for the new connection); a new prefix is drawn again then
     */
    public CidGenerator(int serverId, int socketIndex, LongPredicate taken) {
        if (serverId < 0 || serverId > 255 || socketIndex < 0 || socketIndex > 255) {
            throw new IllegalArgumentException("server id and socket index are one byte each");
        }
        this.serverId = serverId;
        this.socketIndex = socketIndex;
        this.taken = taken;
        this.random = newRandom();
    }

    /** A DRBG of its own for one thread (never a shared or blocking source). */
    static SecureRandom newRandom() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    @Override
    public ByteBuffer newId(int length) {
        return ByteBuffer.wrap(fresh(length));
    }

    /** {@code input} is a CID of the connection that asks: the new one keeps its prefix when it is ours. */
    @Override
    public ByteBuffer newId(ByteBuffer input, int length) {
        if (length != Cids.LENGTH || input.remaining() != Cids.LENGTH || !ours(input)) {
            return newId(length);
        }
        byte[] id = new byte[length];
        input.duplicate().get(id, 0, Cids.PREFIX_LENGTH);
        byte[] tail = new byte[length - Cids.PREFIX_LENGTH];
        random.nextBytes(tail);
        System.arraycopy(tail, 0, id, Cids.PREFIX_LENGTH, tail.length);
        return ByteBuffer.wrap(id);
    }

    /** The first CID of a connection (or the one a Retry hands out): a new prefix. */
    @Override
    public ByteBuffer newId(ByteBuffer scid, ByteBuffer dcid, int length) {
        return newId(length);
    }

    private boolean ours(ByteBuffer b) {
        int p = b.position();
        return (b.get(p) & 0xff) == Cids.FIRST_OCTET && (b.get(p + Cids.SERVER_ID) & 0xff) == serverId
                && (b.get(p + Cids.SOCKET_INDEX) & 0xff) == socketIndex;
    }

    private byte[] fresh(int length) {
        byte[] id = new byte[length];
        if (length != Cids.LENGTH) {
            random.nextBytes(id);
            return id;
        }
        do {
            random.nextBytes(id);
            id[0] = (byte) Cids.FIRST_OCTET;
            id[Cids.SERVER_ID] = (byte) serverId;
            id[Cids.SOCKET_INDEX] = (byte) socketIndex;
        } while (taken.test(Cids.prefix(id, 0)));
        return id;
    }

    int socketIndex() {
        return socketIndex;
    }

    @Override
    public int maxConnectionIdLength() {
        return 20;
    }

    @Override
    public boolean isIdempotent() {
        return false;
    }
}

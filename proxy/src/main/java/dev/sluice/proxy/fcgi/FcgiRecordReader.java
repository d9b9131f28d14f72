package dev.sluice.proxy.fcgi;

import io.netty.buffer.ByteBuf;

/**
 * The FastCGI record layer, the reading side: cuts the bytes an application sends into records and hands their
 * contents to a {@link Sink}. STDOUT and STDERR contents are passed on as they arrive (a record need not be complete:
 * a large STDOUT record streams), the other records once whole; padding is skipped. One per connection, on its loop.
 */
public final class FcgiRecordReader {

    /** What the records say. */
    public interface Sink {
        /** A piece of STDOUT of request {@code id} (a retained slice, the sink releases it); empty: the end of the stream. */
        void onStdout(int id, ByteBuf data);

        /** A piece of STDERR of request {@code id} (a retained slice, the sink releases it). */
        void onStderr(int id, ByteBuf data);

        /** END_REQUEST of request {@code id}. */
        void onEndRequest(int id, long appStatus, int protocolStatus);

        /** GET_VALUES_RESULT's content (a slice, valid during the call). */
        void onValues(ByteBuf content);

        /** A record's header was read (before its content); the sink may {@link #stop} the reader. */
        default void onHeader(int type, int id) {
        }

        /** A record the reader cannot take (bad version, an unexpected type): the connection cannot go on. */
        void onError(String why);
    }

    private final Sink sink;
    private int type = -1;
    private int id;
    /** Content bytes of the current record not read yet, then its padding. */
    private int contentLeft;
    private int paddingLeft;
    private boolean failed;

    public FcgiRecordReader(Sink sink) {
        this.sink = sink;
    }

    public boolean failed() {
        return failed;
    }

    /** Reads nothing more (the connection is closing): a record being read is not finished. */
    public void stop() {
        failed = true;
    }

    /** Reads what {@code in} holds (its reader index moves past what was used; an incomplete header stays). */
    public void read(ByteBuf in) {
        while (!failed) {
            if (type < 0) {
                if (in.readableBytes() < FcgiRecords.HEADER_SIZE) {
                    return;
                }
                int version = in.readUnsignedByte();
                type = in.readUnsignedByte();
                id = in.readUnsignedShort();
                contentLeft = in.readUnsignedShort();
                paddingLeft = in.readUnsignedByte();
                in.skipBytes(1);
                if (version != FcgiRecords.VERSION) {
                    fail("unsupported FastCGI version " + version);
                    return;
                }
                sink.onHeader(type, id);
                if (failed) {
                    return;
                }
                if (contentLeft == 0 && !startEmpty()) {
                    return;
                }
                if (contentLeft == 0) {
                    continue;
                }
            }
            if (contentLeft > 0) {
                if (!content(in)) {
                    return;
                }
                continue;
            }
            int skip = Math.min(paddingLeft, in.readableBytes());
            in.skipBytes(skip);
            paddingLeft -= skip;
            if (paddingLeft > 0) {
                return;
            }
            type = -1;
        }
    }

    /** A record without content: true when reading goes on. */
    private boolean startEmpty() {
        switch (type) {
            case FcgiRecords.STDOUT -> sink.onStdout(id, io.netty.buffer.Unpooled.EMPTY_BUFFER);
            case FcgiRecords.STDERR, FcgiRecords.GET_VALUES_RESULT, FcgiRecords.UNKNOWN_TYPE -> {
            }
            default -> {
                fail("unexpected empty FastCGI record of type " + type);
                return false;
            }
        }
        return !failed;
    }

    /** Reads (part of) the current record's content: false when more bytes are needed. */
    private boolean content(ByteBuf in) {
        switch (type) {
            case FcgiRecords.STDOUT, FcgiRecords.STDERR -> {
                int n = Math.min(contentLeft, in.readableBytes());
                if (n == 0) {
                    return false;
                }
                ByteBuf piece = in.readRetainedSlice(n);
                contentLeft -= n;
                if (type == FcgiRecords.STDOUT) {
                    sink.onStdout(id, piece);
                } else {
                    sink.onStderr(id, piece);
                }
                return true;
            }
            case FcgiRecords.END_REQUEST -> {
                if (contentLeft < 8) {
                    fail("END_REQUEST record too short");
                    return false;
                }
                if (in.readableBytes() < contentLeft) {
                    return false;
                }
                long app = in.readUnsignedInt();
                int status = in.readUnsignedByte();
                in.skipBytes(contentLeft - 5);
                contentLeft = 0;
                sink.onEndRequest(id, app, status);
                return !failed;
            }
            case FcgiRecords.GET_VALUES_RESULT, FcgiRecords.UNKNOWN_TYPE -> {
                if (in.readableBytes() < contentLeft) {
                    return false;
                }
                ByteBuf c = in.readSlice(contentLeft);
                contentLeft = 0;
                if (type == FcgiRecords.GET_VALUES_RESULT) {
                    sink.onValues(c);
                }
                return !failed;
            }
            default -> {
                fail("unexpected FastCGI record of type " + type);
                return false;
            }
        }
    }

    private void fail(String why) {
        failed = true;
        sink.onError(why);
    }
}

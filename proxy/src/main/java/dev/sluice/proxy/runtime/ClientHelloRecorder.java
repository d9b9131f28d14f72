package dev.sluice.proxy.runtime;

import dev.sluice.proxy.rules.ClientHelloCapture;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Reads a TLS client's first handshake message as it passes to the TLS handler, without taking anything from it, and
 * leaves a {@link ClientHelloCapture} on the channel ({@code tune.ssl.capture-buffer-size}); then leaves the pipeline.
 * The message may come in several records and several reads: the handshake bytes of the records are gathered until the
 * message's length is there (at most 64 KiB, the most a hello can carry here). Anything that is not a handshake record
 * ends the reading without a capture, as OpenSSL's message callback would never see a hello. One per connection, before
 * the TLS handler, on the connection's event loop.
 */
final class ClientHelloRecorder extends ChannelInboundHandlerAdapter {
    private static final int MAX_HELLO = 1 << 16;

    private final int size;
    /** The record bytes seen so far (headers included), copied. */
    private byte[] records = new byte[0];
    private int recordsLen;

    ClientHelloRecorder(int size) {
        this.size = size;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        boolean done = false;
        if (msg instanceof ByteBuf b) {
            append(b);
            done = read(ctx);
        }
        ctx.fireChannelRead(msg);
        if (done && records != null) {
            records = null;
            ctx.pipeline().remove(this);
        }
    }

    private void append(ByteBuf b) {
        int n = Math.min(b.readableBytes(), MAX_HELLO + 5 * 16 - recordsLen);
        if (n <= 0) {
            return;
        }
        if (recordsLen + n > records.length) {
            records = java.util.Arrays.copyOf(records, Math.max(recordsLen + n, records.length * 2));
        }
        b.getBytes(b.readerIndex(), records, recordsLen, n);
        recordsLen += n;
    }

    /** Whether the reading is over (a capture left, or none to make). */
    private boolean read(ChannelHandlerContext ctx) {
        byte[] message = new byte[Math.min(recordsLen, MAX_HELLO)];
        int messageLen = 0;
        int p = 0;
        while (p + 5 <= recordsLen) {
            if (records[p] != 22) {
                return true;
            }
            int len = (records[p + 3] & 0xff) << 8 | records[p + 4] & 0xff;
            int n = Math.min(len, recordsLen - p - 5);
            n = Math.min(n, message.length - messageLen);
            System.arraycopy(records, p + 5, message, messageLen, n);
            messageLen += n;
            if (messageLen >= 4) {
                int want = 4 + ((message[1] & 0xff) << 16 | (message[2] & 0xff) << 8 | message[3] & 0xff);
                if (want > MAX_HELLO) {
                    return true;
                }
                if (messageLen >= want) {
                    ClientHelloCapture c = ClientHelloCapture.parse(java.util.Arrays.copyOf(message, want), size);
                    if (c != null) {
                        ctx.channel().attr(ClientHelloCapture.ATTRIBUTE).set(c);
                    }
                    return true;
                }
            }
            if (p + 5 + len > recordsLen) {
                return false;
            }
            p += 5 + len;
        }
        return recordsLen >= MAX_HELLO + 5 * 16;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        records = null;
        ctx.fireChannelInactive();
    }
}

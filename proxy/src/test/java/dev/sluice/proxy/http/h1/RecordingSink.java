package dev.sluice.proxy.http.h1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Test sink of {@link H1Parser}: records every event in order, copies and releases every body slice it
 * is given (the sink owns them), and checks the order heads, bodies and ends come in.
 */
public final class RecordingSink implements H1Parser.Sink {

    /** One message as seen by the sink. */
    public static final class Message {
        public final MessageHead head;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        int slices;
        boolean ended;
        public HttpFields trailers;

        Message(MessageHead head) {
            this.head = head;
        }

        public RequestHead request() {
            return (RequestHead) head;
        }

        public ResponseHead response() {
            return (ResponseHead) head;
        }

        String body() {
            return body.toString(StandardCharsets.ISO_8859_1);
        }

        public byte[] bodyBytes() {
            return body.toByteArray();
        }
    }

    final List<Message> messages = new ArrayList<>();
    /** Event log: {@code head}, {@code body}, {@code end}, {@code error <status>}. */
    final List<String> events = new ArrayList<>();
    H1Error error;

    @Override
    public void onHead(MessageHead head) {
        assertThat(error).as("head after an error").isNull();
        if (!messages.isEmpty()) {
            Message last = messages.getLast();
            boolean interim = last.head instanceof ResponseHead r && r.isInterim();
            assertThat(last.ended || interim).as("head before the end of the previous message").isTrue();
        }
        messages.add(new Message(head));
        events.add("head");
    }

    @Override
    public void onBody(ByteBuf data) {
        try {
            assertThat(messages).as("body before any head").isNotEmpty();
            Message m = messages.getLast();
            assertThat(m.ended).as("body after the end").isFalse();
            assertThat(data.refCnt()).as("body slice must be retained for the sink").isPositive();
            byte[] b = new byte[data.readableBytes()];
            data.getBytes(data.readerIndex(), b);
            m.body.writeBytes(b);
            m.slices++;
            if (!events.getLast().equals("body")) {
                events.add("body");
            }
        } finally {
            data.release();
        }
    }

    @Override
    public void onEnd(HttpFields trailers) {
        assertThat(messages).as("end before any head").isNotEmpty();
        Message m = messages.getLast();
        assertThat(m.ended).as("two ends for one message").isFalse();
        m.ended = true;
        m.trailers = trailers;
        events.add("end");
    }

    @Override
    public void onError(H1Error e) {
        assertThat(error).as("two errors").isNull();
        error = e;
        events.add("error " + e.status());
    }

    public Message only() {
        assertThat(error).as("unexpected error").isNull();
        assertThat(messages).hasSize(1);
        return messages.getFirst();
    }

    Message last() {
        return messages.getLast();
    }

    /** The fields of a head (or trailers) as {@code name: value} strings, in order. */
    public static List<String> fields(HttpFields f) {
        List<String> out = new ArrayList<>();
        if (f != null) {
            for (int i = 0; i < f.size(); i++) {
                out.add(f.name(i) + ": " + f.value(i));
            }
        }
        return out;
    }
}

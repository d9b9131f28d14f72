package dev.sluice.proxy.stream;

import dev.sluice.config.model.Tune;
import dev.sluice.proxy.auth.Userlists;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.h1.RequestPeek;
import dev.sluice.proxy.rules.RuleTarget;
import dev.sluice.proxy.rules.Trackers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * What the rules, the stick rules and the balancing's hashes read of a layer-4 stream ({@link TcpStream}), and what its
 * content rules act on: its client connection's addresses, TLS and PROXY header facts, its frontend and backend, its
 * variables, stick counters and captures, and during content inspection the bytes held ({@link #requestPayload()}),
 * whether they are final, and the fetches' "may change" reports. No response; the request is the HTTP/1 head the held
 * bytes may start with, as HAProxy's HTTP fetches read one in a TCP proxy. A rule that ends the stream ({@code reject}, {@code silent-drop}) leaves its decision for the stream to read
 * ({@link #ended()}). One per stream, on its event loop.
 */
final class TcpTarget extends ClientTxn<TcpClientSide> implements RuleTarget {
    /** What {@link #ended()} says after a {@code reject}. */
    static final int REJECTED = 1;
    /** What {@link #ended()} says after a {@code silent-drop}. */
    static final int DROPPED = 2;

    private final TcpStream stream;
    private Trackers trackers;
    /** Whether the content is final for the fetches: true outside inspection (use_backend, stick rules, logs). */
    private boolean contentFinal = true;
    private boolean mayChange;
    private boolean responsePhase;
    private int ended;
    private boolean closeServer;
    private boolean switchMode;
    /** The multiplexer {@code switch-mode http proto} forces (null: none). */
    private String switchProto;
    /** The request head read from the held bytes, for how many of them, and what was found. */
    private RequestHead peeked;
    private int peekedAt;
    private final RequestPeek.Outcome[] peekOutcome = {RequestPeek.Outcome.INCOMPLETE};

    TcpTarget(TcpStream stream, TcpClientSide client, Frontend frontend) {
        super(client, frontend);
        this.stream = stream;
        Trackers session = client.sessionTrackers();
        if (session != null) {
            // the connection's counters (tcp-request connection track-sc*) see the stream's bytes
            trackers = new Trackers(session);
        }
    }

    /** The stick counters, null when neither the connection nor a rule tracks any. */
    Trackers trackersIfAny() {
        return trackers;
    }

    /** Content inspection of the request ({@code response} false) or the response is about to run on final content or not. */
    void inspecting(boolean response, boolean isFinal) {
        this.responsePhase = response;
        this.contentFinal = isFinal;
    }

    /** Inspection is over: the content is final for what reads it next. */
    void inspected() {
        this.contentFinal = true;
        this.responsePhase = false;
    }

    /** Whether a {@code switch-mode http} rule asked for HTTP. */
    boolean switchModeRequested() {
        return switchMode;
    }

    /** The multiplexer a {@code switch-mode http proto} rule forces: "h1", "h2", or null. */
    String switchProto() {
        return switchProto;
    }

    /** Whether a {@code tcp-response content close} rule asked for the server connection's end. */
    boolean closeServerRequested() {
        return closeServer;
    }

    @Override
    public int processCalls() {
        return calls;
    }

    /** No set-timeout in TCP rules: the backend's once connected, else 0. */
    @Override
    public Long currentTimeout(boolean tunnel) {
        return StreamTarget.connectedTimeout(stream.lastConnection() == null ? null : stream.backend(), tunnel);
    }

    @Override
    public io.netty.channel.Channel serverChannel() {
        TcpServerSide c = stream.lastConnection();
        return c == null ? null : c.channel();
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession serverTlsSession() {
        TcpServerSide c = stream.lastConnection();
        return c == null ? null : c.tlsSession();
    }

    /** 0, or {@link #REJECTED} or {@link #DROPPED} when a rule ended the stream. */
    int ended() {
        return ended;
    }

    // ------------------------------------------------------------------ Txn

    /**
     * The HTTP/1 request head at the start of the client's held bytes, as HAProxy reads one for the HTTP fetches of a
     * TCP proxy: null when there is none (yet: "may change" is reported while the content is not final).
     */
    @Override
    public RequestHead request() {
        ByteBuf b = stream.heldRequest();
        int n = b == null ? 0 : b.readableBytes();
        if (n != peekedAt) {
            peekedAt = n;
            peeked = n == 0 ? null : RequestPeek.peek(b, frontend.h1Limits(), peekOutcome);
            if (n == 0) {
                peekOutcome[0] = RequestPeek.Outcome.INCOMPLETE;
            }
        }
        if (peeked == null && peekOutcome[0] == RequestPeek.Outcome.INCOMPLETE && !contentFinal) {
            mayChange();
        }
        return peeked;
    }

    @Override
    public ResponseHead response() {
        return null;
    }

    @Override
    public dev.sluice.proxy.rules.ProxyStates states() {
        return new StateViews(frontend, stream);
    }

    @Override
    public String backendName() {
        return stream.backend() == null ? null : stream.backend().name();
    }

    @Override
    public Userlists userlists() {
        return frontend.userlists();
    }

    @Override
    public long requestDate() {
        return client.acceptDate();
    }

    @Override
    public long requestCounter() {
        return stream.number();
    }

    @Override
    public Trackers trackers() {
        if (trackers == null) {
            trackers = new Trackers(null);
        }
        return trackers;
    }

    /** The client's bytes held so far (empty, not null: {@code req.len} is 0 and may change). */
    @Override
    public ByteBuf requestPayload() {
        ByteBuf b = stream.heldRequest();
        return b == null ? Unpooled.EMPTY_BUFFER : b;
    }

    @Override
    public ByteBuf responsePayload() {
        ByteBuf b = stream.heldResponse();
        return b == null ? Unpooled.EMPTY_BUFFER : b;
    }

    @Override
    public boolean contentFinal() {
        return contentFinal;
    }

    @Override
    public void mayChange() {
        mayChange = true;
    }

    @Override
    public boolean takeMayChange() {
        boolean m = mayChange;
        mayChange = false;
        return m;
    }

    @Override
    public Tune tune() {
        return frontend.tune();
    }

    // ------------------------------------------------------------------ RuleTarget: what content actions do

    /** No HTTP message: the actions that need one are not allowed in tcp rules. */
    @Override
    public MessageHead head() {
        return null;
    }

    @Override
    public boolean responsePhase() {
        return responsePhase;
    }

    /** {@code reject}: the stream ends, HAProxy's {@code PR}. */
    @Override
    public void drop() {
        if (ended == 0) {
            ended = REJECTED;
        }
    }

    @Override
    public void silentDrop() {
        if (ended == 0) {
            ended = DROPPED;
        }
    }

    @Override
    public void closeServer() {
        closeServer = true;
    }

    @Override
    public void switchMode(String proto) {
        switchMode = true;
        switchProto = proto;
    }

    /** Not a tcp action (the configuration refuses it there); ends the stream as a reject would. */
    @Override
    public void answer(ResponseHead head, byte[] body, char cause) {
        drop();
    }

    @Override
    public void answerStatus(int status, char cause) {
        drop();
    }

    @Override
    public void tarpit(int status) {
        drop();
    }

    /** Not a tcp action. */
    @Override
    public void setTimeout(String which, long millis) {
    }

    /** Not a tcp action. */
    @Override
    public void setRetries(int retries) {
    }
}

package dev.sluice.proxy.stream;

import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.h1.ErrorResponses;
import dev.sluice.proxy.rules.Action;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.Reply;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.stream.Termination.State;
import java.util.concurrent.TimeUnit;

/**
 * The responses a {@link Stream} makes itself instead of forwarding the server's, each ending the exchange: the error
 * pages (the proxy's, or an {@code errorfile}; an empty one closes), and how rules end it (an answer, the page of a
 * status, a drop, a tarpit), each with its termination flags and counters. Every response passes the
 * {@code http-after-response} rules before it goes. Owned by its stream, used on the stream's event loop only.
 */
final class Answers {
    private final Stream stream;
    private final ClientSide client;
    private final Frontend frontend;

    Answers(Stream stream, ClientSide client, Frontend frontend) {
        this.stream = stream;
        this.client = client;
        this.frontend = frontend;
    }

    /** Answers with the error page of {@code code}; without termination flags yet, those of a failed connection (503) or a refused request. */
    /**
     * The stream was killed ({@link Stream#kill}, its outcome set): waiting for the response head, the client gets a 502,
     * counted as a response error (and, for {@code observe}, the close it sees), as HAProxy's stream_shutdown under its
     * response analyser; otherwise both connections close at once.
     */
    void killed() {
        if (stream.outcome().state() == State.HEADERS) {
            stream.accounting().responseError(ServerFailure.CLOSED_BEFORE_RESPONSE);
            fail(502);
            return;
        }
        stream.stop();
        client.abort();
        stream.log();
    }

    void fail(int code) {
        Termination outcome = stream.outcome();
        if (outcome.cause() == Cause.NONE) {
            // no server could be reached (503), or the request was refused before that
            outcome.set(code == 503 ? Cause.SERVER_ABORT : Cause.PROXY, code == 503 ? State.CONNECT : State.REQUEST);
        }
        stream.stop();
        stream.status(code);
        Backend backend = stream.backend();
        // the backend's reply for the code first (an http-error reply, an errorfile page), then the frontend's, as HAProxy
        Reply reply = reply(backend != null ? backend.rules() : null, code);
        boolean backendHas = reply != null || backend != null && (backend.errors().head(code) != null || backend.errors().closes(code));
        if (!backendHas) {
            reply = reply(frontend.rules(), code);
        }
        ErrorResponses pages = backendHas && reply == null ? backend.errors() : frontend.errors();
        if (reply != null) {
            Reply.Page p = reply.render(stream.target());
            send(p.head(), p.body());
        } else if (pages.closes(code)) {
            // an empty errorfile: close without a reply
            stream.accounting().sent(code);
            client.abort();
        } else {
            ResponseHead custom = pages.head(code);
            if (custom != null) {
                send(custom, pages.body(code));
            } else {
                GeneratedResponse g = GeneratedResponse.of(code);
                send(g.head(), g.body(), g.htxBeyondHead());
            }
        }
        stream.log();
    }

    private static Reply reply(ProxyRules rules, int code) {
        return rules == null ? null : rules.errorReplies().get(code);
    }

    /** Sends a response the proxy made, after the http-after-response rules saw it. */
    private void send(ResponseHead head, byte[] body) {
        send(head, body, 0);
    }

    /** {@code htxBeyondHead}: what HAProxy's HTX of the page has that {@code head} does not (see {@link GeneratedResponse}). */
    private void send(ResponseHead head, byte[] body, int htxBeyondHead) {
        stream.afterResponse(head);
        // HAProxy's http_reply_message counts the reply's HTX into the response's bytes
        stream.accounting().responded(head.htxSize() + htxBeyondHead + (body != null ? body.length : 0));
        stream.endTracking();
        stream.accounting().sent(head.status());
        client.sendGenerated(head, body);
    }

    // ------------------------------------------------------------------ how rules end the exchange (see StreamTarget)

    /** An answer made by a rule; in the response phase it replaces the server's response. */
    void answer(ResponseHead head, byte[] body, Cause why) {
        if (why == Cause.LOCAL && !stream.responsePhase()) {
            stream.accounting().intercepted();
        }
        if (why == Cause.PROXY) {
            cookieForLog();
        }
        stream.outcome().set(why, phaseOfRules());
        stream.stop();
        notAResponse();
        send(head, body);
        stream.log();
    }

    /** A rule answers with the proxy's page for {@code code}. */
    void answerStatus(int code, Cause why) {
        if (why == Cause.PROXY) {
            countDenied();
        }
        stream.outcome().set(why, phaseOfRules());
        notAResponse();
        fail(code);
    }

    /** A rule closes the client connection without a response; {@code silently}: without telling the client. */
    void drop(boolean silently) {
        countDenied();
        stream.outcome().set(Cause.PROXY, phaseOfRules());
        stream.stop();
        notAResponse();
        if (silently) {
            client.dropSilently();
        } else {
            client.abort();
        }
        stream.log();
    }

    /** A rule holds the request for {@code timeout tarpit}, then answers with {@code reply}, or {@code code}'s page. */
    void tarpit(int code, Action reply) {
        long t = frontend.timeouts().tarpit();
        if (t == Timeouts.UNSET) {
            t = frontend.timeouts().connect() != Timeouts.UNSET ? frontend.timeouts().connect() : 0;
        }
        countDenied();
        stream.outcome().set(Cause.PROXY, State.TARPIT);
        client.loop().schedule(() -> {
            if (!stream.finished()) {
                if (reply != null) {
                    reply.apply(stream.target());
                } else {
                    fail(code);
                }
            }
        }, t, TimeUnit.MILLISECONDS);
    }

    /** A response rule ended the exchange: as HAProxy, the server's response was not a valid one and %Tr is -1. */
    private void notAResponse() {
        if (stream.responsePhase()) {
            stream.accounting().responseDropped();
        }
    }

    /** The state a rule's ending leaves in the log: H in the response rules, R in the request rules. */
    private State phaseOfRules() {
        return stream.responsePhase() ? State.HEADERS : State.REQUEST;
    }

    /** A rule denied the request (dreq) or the response (dresp). */
    private void countDenied() {
        cookieForLog();
        stream.accounting().denied(stream.responsePhase());
    }

    /**
     * A request rule denied the request: as HAProxy, the cookies are still read so that the log tells what the client
     * sent ({@code capture cookie}, and the server the persistence cookie designates, in the backend or, before
     * switching, in a listen section).
     */
    private void cookieForLog() {
        if (stream.responsePhase()) {
            return;
        }
        stream.persistence().captureCookie(stream.target().captures());
        if (stream.server() == null) {
            Backend backend = stream.backend();
            stream.server(stream.persistence().designated(backend != null ? backend : frontend.ownBackend()));
        }
    }
}
